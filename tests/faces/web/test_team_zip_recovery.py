"""Study ZIP recovery on a team server (issue 29): what a ZIP carries is re-created under
the importer; nothing is linked to an existing object by its id, and no run keeps the
owner its ZIP names — on both databases, two accounts, the ZIP posted over HTTP."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import sqlalchemy as sa
from tests.faces.web._team import TeamServer
from tests.faces.web.test_team_auth import server, team_settings

from litdesk.adapters.store import get_search_run, open_store
from litdesk.adapters.store._schema import search_runs
from litdesk.core.fusion import Sighting, fuse
from litdesk.core.records import make_paper
from litdesk.core.runs import LaneResult, RunDefinition, SearchRun, build_run
from litdesk.services.accounts import Accounts
from litdesk.services.search import save_run
from litdesk.services.workspace import Workspace, export_study

__all__ = ["server", "team_settings"]


def _run(run_id: str, title: str) -> SearchRun:
    paper = make_paper(pmid="77", title=title)
    return build_run(
        run_id=run_id,
        definition=RunDefinition(title, "keyword", ("europepmc",)),
        lanes=[LaneResult("europepmc-keyword", "europepmc", "ok", title, 1, 1)],
        hits=fuse([Sighting("europepmc-keyword", "europepmc", 1, paper)]),
        coverage="provider-order",
        candidate_limit=20,
        retrieved_at="2026-11-30T10:00:00+00:00",
    )


def _rewrite(data: bytes, old: str, new: str, owner: str) -> bytes:
    """``data`` with run ``old`` renamed ``new`` and said to be owned by ``owner``: the
    manifest's digests made to match, as an attacker would."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {n: zf.read(n) for n in zf.namelist() if n != "manifest.json"}
        manifest = json.loads(zf.read("manifest.json"))
    out: dict[str, bytes] = {}
    for name, body in members.items():
        if name.startswith("search-runs/"):
            name = name.replace(old, new)
            if name.endswith(".json"):
                doc = json.loads(body)
                doc["id"], doc["owner"], doc["run"]["id"] = new, owner, new
                body = json.dumps(doc).encode()
        elif name == "study.json":
            bundle = json.loads(body)
            bundle["search_runs"] = [new if r == old else r for r in bundle["search_runs"]]
            body = json.dumps(bundle).encode()
        out[name] = body
    manifest["members"] = [
        {"path": n, "bytes": len(b), "sha256": "sha256:" + hashlib.sha256(b).hexdigest()}
        for n, b in sorted(out.items())
    ]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in sorted(out.items()):
            zf.writestr(n, b)
        zf.writestr("manifest.json", json.dumps(manifest))
    return buf.getvalue()


def test_a_study_zip_recreates_its_runs_under_the_importer(server: TeamServer) -> None:
    settings = server.settings
    store = open_store(settings)
    try:
        named = {a.username: a for a in Accounts(store, settings).list()}
        ana, bob = named["ana"], named["bob"]
        ws_ana, ws_bob = Workspace(store, owner=ana.id), Workspace(store, owner=bob.id)
        ws_ana.create_study("Ana's", None)
        save_run(store, _run("run-ana", "Secret"), owner=ana.id, study="Ana's")
        ana_run = get_search_run(store, "run-ana").run
        ws_bob.create_study("Bob's", None)
        ws_bob.save_paper(make_paper(doi="10.5555/b.1", title="Bob"), study="Bob's")
        save_run(store, _run("run-bob", "Plain"), owner=bob.id, study="Bob's")
        exported = export_study(ws_bob, "Bob's")
    finally:
        store.dispose()
    # bob names ana's run by its id; a second ZIP claims a fresh run is ana's
    relink = _rewrite(exported, "run-bob", "run-ana", bob.id)
    planted = _rewrite(exported, "run-bob", "run-planted", ana.id)
    with server.signed_in("bob") as c:
        done = []
        for data, name in ((relink, "relinked"), (planted, "planted")):
            r = c.post(
                "/api/v1/study-imports",
                files={"file": ("s.zip", data, "application/zip")},
                data={"name": name},
            )
            assert r.status_code == 200, r.text
            assert r.json()["search_runs"] == 1
            done.append(r.json()["study_id"])
        run_ids = []
        for study_id in done:
            view = c.get(f"/api/v1/studies/{study_id}").json()
            (run,) = view["runs"]
            assert run["id"] not in ("run-ana", "run-bob", "run-planted")
            run_ids.append(run["id"])
            zipped = c.get(f"/api/v1/studies/{study_id}/export")
            assert zipped.status_code == 200
            assert b"Secret" not in zipped.content  # ana's run is not reachable through it
    store = open_store(settings)
    try:
        with store.read() as conn:
            owners = dict(conn.execute(sa.select(search_runs.c.id, search_runs.c.owner)).all())
        assert owners["run-ana"] == ana.id and "run-planted" not in owners
        assert all(owners[i] == bob.id for i in run_ids)
        assert get_search_run(store, "run-ana").run == ana_run  # untouched
    finally:
        store.dispose()
