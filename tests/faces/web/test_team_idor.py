"""IDOR tests generated from the OpenAPI document (``/api/v1/openapi.json``), on SQLite and
PostgreSQL: account ana keeps private records (a saved paper, a note, evidence, a search
run, a Study, a dedup job; with a scripted model server on loopback an assistance draft,
evidence saved from it with its provenance, a Study summary draft and a saved Study report;
a PDF in the library, its index job and a report build job); account bob, a member of
nothing, calls EVERY route that names a record —
a path parameter, or a query/body field in :data:`RECORD_FIELDS` — with ana's ids and a body
built from the route's own schema. Each answer must be 403 or 404 and carry none of ana's
data; routes without a record parameter are read as bob and must not show ana's data
either; afterwards ana's records are unchanged.

ana's records are made once per backend for the module (:class:`SharedAna`): each test
probes as an account of its own (bob: a member of nothing; carol: a viewer; dave: a viewer,
then an editor), and what one test gives its account (a role in ana's Study, a report
there, its own notes and AI calls) is not what another asserts on.

A route added later is picked up on its own. A path parameter this test cannot fill fails
the test naming the route: add the parameter to :data:`RECORD_FIELDS`.

The PDF library is one per server in team mode (README, "Team server"): a route whose only
record is a library file (:data:`SHARED_FIELDS`) may answer bob, but still with none of
ana's data; her chat rounds, report builds and jobs are hers alone (the library's index job
shows every account its progress, not its owner, parameters, message or result).

No absolute server paths in a team server's answers (issue 29; moved here from
``test_team_paths.py`` to read ana's records of this module instead of making them again):
every JSON read of the API document and the main pages, as ana, with her own record ids,
and the answers to bad uploads, name no directory of the server (its data dir, the test's
folders, the source tree).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from tests.faces.web._assist_jobs import settle
from tests.faces.web._idor import (
    MARKERS,
    OWN_RECORD_WRITES,
    RECORD_FIELDS,
    VIEWER_DRAFTS,
    SharedAna,
    assert_ana_unchanged,
    build_probes,
    leaks,
    leaks_text,
    send,
    shared_ana,  # noqa: F401 - fixture
    study_members,
)
from tests.faces.web._team import SRC

from litdesk.adapters.store import allowance_owner, assist_usage, open_store
from litdesk.adapters.store._assist import assist_calls


def test_bob_reaches_none_of_anas_records(shared_ana: SharedAna) -> None:  # noqa: F811
    server = shared_ana.served
    ana_client, ana = shared_ana.records()
    with server.signed_in("bob") as bob:
        members = study_members(ana_client, ana)  # other tests' accounts, never bob
        assert all(m["username"] != "bob" for m in members), members
        doc = bob.get("/api/v1/openapi.json").json()
        probes = build_probes(doc, ana)
        routes = {(p.method, p.path) for p in probes if p.record}
        assert len(routes) >= 20, sorted(routes)  # the document really was walked
        failures: list[str] = []
        index_progress = ("GET", f"/api/v1/jobs/{ana.values['job_id'][1]}")
        for probe in probes:
            r = send(bob, probe)
            leaked = leaks(r)
            if leaked:
                failures.append(f"{probe.label()}: {r.status_code} shows ana's {leaked}")
            elif probe.record and (probe.method, probe.url) == index_progress:
                # the library's index job: every account may watch its progress, no more
                seen = r.json() if r.status_code == 200 else {}
                if set(seen) and (seen["owner"], seen["params"], seen["result"]) != ("", {}, None):
                    failures.append(f"{probe.label()}: {r.status_code} {r.text[:200]!r}")
            elif probe.record and r.status_code not in (403, 404):
                failures.append(f"{probe.label()}: {r.status_code} {r.text[:200]!r}")
        assert not failures, "routes that let bob reach ana's records:\n" + "\n".join(failures)

        assert_ana_unchanged(ana_client, bob, ana, members)
        # ana's chat session is hers: her cookie in bob's browser opens a new session
        ana_chat = ana_client.get("/api/v1/chat").json()
        assert ana_chat["scope"] == {"papers": [ana.file], "whole_library": False}
        assert [r["number"] for r in ana_chat["index"]] == [1]
        assert ana_client.get("/api/v1/chat/rounds/1").json()["question"] == MARKERS[2]
        bob.cookies.delete("ld_chat")  # bob's browser with the chat cookie ana left in it
        bob.cookies.set("ld_chat", ana_client.cookies["ld_chat"])
        r = bob.get("/api/v1/chat")
        assert r.status_code == 200 and "ld_chat" not in r.headers.get("set-cookie", "")
        bob_chat = r.json()
        assert bob_chat["scope"] == {"papers": [], "whole_library": True}
        assert bob_chat["index"] == [] and not leaks_text(json.dumps(bob_chat))
        # ana's AI calls counted under the hash of her account id, never the id itself: the
        # assistance's two, and her chat question's (at least its English variant; the
        # answer is not asked when the PDF does not hold it); bob's probes asked as bob (the
        # other tests' accounts ask under their own hashes)
        store = open_store(server.team.settings)
        try:
            usage = assist_usage(store, datetime.now(UTC).date().isoformat())
            c = assist_calls.c
            with store.read() as conn:
                by_feature = Counter(
                    (str(o), str(f)) for o, f in conn.execute(sa.select(c.owner, c.feature))
                )
        finally:
            store.dispose()
        ana_hash, bob_hash = allowance_owner(server.ids["ana"]), allowance_owner(server.ids["bob"])
        assert set(usage) <= {allowance_owner(i) for i in server.ids.values()}
        assistance = {
            k: n
            for k, n in by_feature.items()
            if k[0] in (ana_hash, bob_hash) and k[1] not in ("chat", "report")
        }
        assert assistance == {(ana_hash, "extract"): 1, (ana_hash, "summary"): 1}, by_feature
        assert by_feature[(ana_hash, "chat")] >= 1, by_feature
        assert not any(i in json.dumps(usage) for i in server.ids.values())


def test_a_viewer_reads_but_changes_nothing(shared_ana: SharedAna) -> None:  # noqa: F811
    """The same generated probes for a Study carol may view: reads of the Study's records
    answer, every write to them is refused (403) or finds nothing of ana's private ones."""
    server = shared_ana.served
    ana_client, ana = shared_ana.records()
    with server.signed_in("carol") as bob:
        r = ana_client.post(
            f"/api/v1/studies/{ana.study_id}/members", json={"username": "carol", "role": "viewer"}
        )
        assert r.status_code == 200
        assert bob.get(f"/api/v1/studies/{ana.study_id}").json()["name"] == MARKERS[0]
        doc = bob.get("/api/v1/openapi.json").json()
        ana.values = {
            **{k: ana.values[k] for k in RECORD_FIELDS if k in ana.values},
            "paper_id": [ana.study_paper],
            "paper_ids": [[ana.study_paper]],
            "ref": [ana.study_id],
            "study": [ana.study_id],
            "run_id": [ana.run_id],
        }
        failures = []
        for probe in build_probes(doc, ana):
            if probe.method == "GET" or not probe.record:
                continue
            r = send(bob, probe)
            if (probe.method, probe.path) in OWN_RECORD_WRITES and r.status_code == 200:
                continue  # bob's own private note on a paper he may read (checked below)
            if (probe.method, probe.path) in VIEWER_DRAFTS:
                continue  # bob's own summary draft of a Study he may read
            if r.status_code not in (403, 404):
                failures.append(f"{probe.label()}: {r.status_code} {r.text[:200]!r}")
        assert not failures, "writes a viewer could make:\n" + "\n".join(failures)
        study = ana_client.get(f"/api/v1/studies/{ana.study_id}").json()
        assert study["name"] == MARKERS[0]
        assert [p["status"] for p in study["papers"] if p["status"]] == ["reading"]
        assert study["notes"] == 0 and study["evidence"] == 0  # ana's were not in the Study
        notes = ana_client.get("/api/v1/notebook").json()["notes"]
        assert sorted(n["comment"] for n in notes) == [MARKERS[2], MARKERS[2]]
        # the probes name ana's Study in a comment (a viewer may not write there); a
        # comment of no Study on a paper carol may read is her own private note
        own = {"comment": "bob was here"}
        assert bob.post(f"/api/v1/papers/{ana.study_paper}/comments", json=own).is_success
        mine = bob.get("/api/v1/notebook").json()["notes"]
        assert mine and all(n["comment"] != MARKERS[2] for n in mine)


def test_a_viewer_drafts_a_summary_an_editor_saves_it(shared_ana: SharedAna) -> None:  # noqa: F811
    """The summary as dave sees the Study (none of ana's private notes); a viewer's draft
    may not become a Study report, an editor's may, recorded in the Study's history."""
    server = shared_ana.served
    ana_client, ana = shared_ana.records()
    with server.signed_in("dave") as bob:
        base = f"/api/v1/studies/{ana.study_id}"
        members = f"{base}/members"
        assert ana_client.post(members, json={"username": "dave", "role": "viewer"}).is_success
        r = bob.post(f"{base}/summary/notice", json={"focus": "overview"})
        assert r.status_code == 200, r.text
        assert MARKERS[0] in r.text and MARKERS[2] not in r.text  # ana's notes are private
        assert MARKERS[3] not in r.text  # and so is her evidence
        drafted = settle(
            bob,
            bob.post(f"{base}/summary", json={"focus": "overview", "consent": r.json()["token"]}),
        )
        assert drafted.status == 200, drafted.body
        draft = drafted.body["draft_id"]
        r = bob.post(f"{base}/reports", json={"draft_id": draft, "reviewed": True})
        assert r.status_code == 403, r.text
        assert bob.get(f"{base}/reports").json()["reports"] == []
        assert ana_client.post(members, json={"username": "dave", "role": "editor"}).is_success
        r = bob.post(f"{base}/reports", json={"draft_id": draft, "reviewed": True})
        assert r.status_code == 200, r.text
        report = r.json()["id"]
        assert [x["id"] for x in bob.get(f"{base}/reports").json()["reports"]] == [report]
        assert bob.get(f"{base}/reports/{report}.html").status_code == 200
        # the report is dave's: ana's listing holds her own only
        ana_reports = ana_client.get(f"{base}/reports").json()["reports"]
        assert [x["id"] for x in ana_reports] == ana.values["report_id"]
        entries = ana_client.get(f"{base}/history").json()["entries"]
        saved = [e for e in entries if e["action"] == "report_saved"]
        assert [(e["username"], e["target"]) for e in saved] == [
            ("dave", report),
            ("ana", ana.values["report_id"][0]),
        ]


def _paths(settings_dirs: list[str], text: str) -> list[str]:
    found = [d for d in settings_dirs if d in text]
    # any absolute POSIX path of three or more parts (a file name alone is fine)
    found += re.findall(r"(?<![\w.:/])/(?:home|tmp|srv|var|work|usr|root|opt)/[^\s\"'<]+", text)
    return found


def test_team_answers_name_no_server_paths(
    shared_ana: SharedAna,  # noqa: F811
    tmp_path: Path,
) -> None:
    """ana's answers (her API reads with her record ids, the main pages, two bad uploads)
    name no folder of the server. It reads and writes nothing the module's other tests
    assert on (they pass before it and after it: run in the reverse order)."""
    server = shared_ana.served
    settings = server.team.settings
    dirs = sorted(
        {
            str(settings.resolved_data_dir()),
            str(shared_ana.folder),
            str(tmp_path),
            str(SRC),
            str(SRC.parent),
        },
        key=len,
        reverse=True,
    )
    ana_client, ana = shared_ana.records()
    doc = ana_client.get("/api/v1/openapi.json").json()
    failures: list[str] = []
    probes = [p for p in build_probes(doc, ana) if p.method == "GET"]
    assert len(probes) >= 30
    pages = ["/", "/library", "/saved", "/studies", f"/study/{ana.study_id}", "/chat"]
    pages += [f"/study/{ana.study_id}/{tail}" for tail in ("fulltext", "dedup", "prisma")]
    for probe in probes:
        r = send(ana_client, probe)
        found = _paths(dirs, r.content.decode("utf-8", "replace"))
        if found:
            failures.append(f"{probe.label()}: {r.status_code} names {found[:3]}")
    for url in pages:
        r = ana_client.get(url)
        found = _paths(dirs, r.text)
        if found:
            failures.append(f"GET {url}: {r.status_code} names {found[:3]}")
    # bad uploads: their refusals name the file as sent, never where it was kept
    bad = [
        ("/api/v1/library/uploads", "files", ("x.pdf", b"%PDF-1.4 broken", "application/pdf")),
        ("/api/v1/study-imports", "file", ("s.zip", b"PK\x03\x04broken", "application/zip")),
    ]
    for url, field, part in bad:
        r = ana_client.post(url, files=[(field, part)])
        found = _paths(dirs, r.text)
        if found:
            failures.append(f"POST {url}: {r.status_code} names {found[:3]}")
    assert not failures, "answers naming server paths:\n" + "\n".join(failures)
