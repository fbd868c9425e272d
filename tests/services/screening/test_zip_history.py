"""A Study's ZIP keeps who decided what: a Study screened blind in pairs (supersedes, an
undo, a reveal, a resolution, a conflict left open) recovered into another server has the
same PRISMA 2020 flow, the same agreement per pair and the same conflict queue; reviewers
with an account there get their own decisions, the others keep their names (recorded by
the recovering account); in a single-user workspace every reviewer keeps their name.
Hostile history files are refused with a typed error or their rows skipped and counted.
SQLite and PostgreSQL, real stores, real accounts."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from tests._store_template import pg_schema_url, sqlite_url_at_head

from litdesk import Settings
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.adapters.store import accounts as access
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    AgreementRequest,
    ConfigureRequest,
    ConflictsRequest,
    DecideRequest,
    ItemsRequest,
    PrismaFlowRequest,
    ResolveRequest,
    StudyStageRequest,
    UndoRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest, RecoverRequest
from litdesk.services.workspace import now_iso

TA, FT = "title_abstract", "full_text"
EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
ANA, ED, BOB = "acct_ana", "acct_ed", "acct_bob"


@pytest.fixture(params=["sqlite", "postgres"])
def two_urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two stores at the newest migration on the same backend: the original server's and
    the one the Study is recovered into."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        yield (
            sqlite_url_at_head(template, tmp_path / "one" / "litdesk.sqlite3"),
            sqlite_url_at_head(template, tmp_path / "two" / "litdesk.sqlite3"),
        )
        return
    pg = request.getfixturevalue("pg_template")
    with ExitStack() as stack:
        one, two = (stack.enter_context(pg.schema_at_head()) for _ in range(2))
        yield pg_schema_url(pg.base_url, one), pg_schema_url(pg.base_url, two)


def _accounts(app: App, *who: tuple[str, str]) -> None:
    with app.store.write() as conn:
        for account_id, name in who:
            access.insert_account(conn, account_id, name, "not-a-hash", now_iso())


def _pair_screened(app: App, fixtures: Path) -> tuple[str, list[str]]:
    """Ana's Study, screened blind in pairs at title/abstract by Ed and Bob ("maybe" a
    conflict), a change, an undo, revealed, two conflicts settled and one left open; full
    text screened by Ana alone."""
    _accounts(app, (ANA, "ana"), (ED, "ed"), (BOB, "bob"))
    sid = app.studies.create_study(CreateStudyRequest("Pairs", None), owner=ANA).id
    app.studies.import_files(ImportRequest(study=sid, paths=(str(fixtures / EXPORT),)), owner=ANA)
    with app.store.write() as conn:
        for who in (ED, BOB):
            access.set_member(conn, sid, who, "editor", ANA, now_iso())
    app.screening.configure(
        ConfigureRequest(sid, dual_review={TA: True}, maybe_is_conflict=True), owner=ANA
    )
    rows = app.screening.items(ItemsRequest(sid, page_size=30), owner=ANA).rows
    keys = [str(r["record_key"]) for r in rows]
    ed = "iieeimeieeiiemie" + "ei"
    bob = "ieeeiiemeeiiiiee" + "ee"
    word = {"i": "include", "e": "exclude", "m": "maybe"}
    for k, a, b in zip(keys, ed, bob, strict=False):
        app.screening.decide(DecideRequest(sid, TA, k, word[a]), owner=ED)  # type: ignore[arg-type]
        app.screening.decide(
            DecideRequest(sid, TA, k, word[b], note=f"bob on {k[:6]}"),  # type: ignore[arg-type]
            owner=BOB,
        )
    app.screening.decide(DecideRequest(sid, TA, keys[1], "include"), owner=ED)  # a change
    app.screening.decide(DecideRequest(sid, TA, keys[2], "include"), owner=BOB)
    app.screening.undo(UndoRequest(sid, TA), owner=BOB)  # back to exclude
    app.screening.reveal(StudyStageRequest(sid, TA), owner=ANA)
    queue = app.screening.conflicts(ConflictsRequest(sid, TA), owner=ANA).conflicts
    assert len(queue) >= 4
    app.screening.resolve(
        ResolveRequest(sid, TA, queue[0].record_key, "include", note="meets criteria"), owner=ANA
    )
    app.screening.resolve(ResolveRequest(sid, TA, queue[1].record_key, "exclude"), owner=ANA)
    agreed = [k for k, a, b in zip(keys, ed, bob, strict=False) if a == b == "i"]
    app.screening.decide(DecideRequest(sid, FT, agreed[0], "include"), owner=ANA)
    app.screening.decide(
        DecideRequest(sid, FT, agreed[1], "exclude", reason="Wrong population"), owner=ANA
    )
    return sid, keys


def _state(app: App, sid: str, owner: str) -> dict[str, Any]:
    """What must survive: the flow, agreement per pair (by reviewer name) and the queue."""
    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=owner).to_dict()
    pairs = app.screening.agreement(AgreementRequest(sid), owner=owner).pairs
    queue = app.screening.conflicts(ConflictsRequest(sid, TA), owner=owner)
    return {
        "flow": flow["total"],
        "rounds": flow["rounds"],
        "pairs": sorted(
            (
                p["stage"],
                tuple(sorted(p["reviewer_names"])),
                p["n"],
                p["agreed"],
                p["kappa"],
                p["percent_agreement"],
                str(p["over_time"]),
            )
            for p in pairs  # fmt: skip
        ),
        "queue": [
            (c.title, sorted((d["reviewer_name"], d["verdict"], d["note"]) for d in c.decisions))
            for c in queue.conflicts
        ],
        "resolved": queue.resolved,
        "revealed": queue.revealed,
    }


def _names(state: dict[str, Any], rename: dict[str, str]) -> dict[str, Any]:
    out = dict(state)
    out["pairs"] = sorted(
        (s, tuple(sorted(rename.get(n, n) for n in names)), *rest)
        for s, names, *rest in state["pairs"]
    )
    out["queue"] = [
        (t, sorted((rename.get(n, n), v, note) for n, v, note in ds)) for t, ds in state["queue"]
    ]
    return out


def test_a_pair_screened_study_keeps_who_decided_what(
    two_urls: tuple[str, str], tmp_path: Path, fixtures_dir: Path
) -> None:
    one, two = two_urls
    with open_app_sync(Settings(data_dir=tmp_path / "d1", database_url=one)) as app:
        sid, _ = _pair_screened(app, fixtures_dir)
        before = _state(app, sid, ANA)
        assert before["queue"] and before["resolved"] == 2 and before["pairs"]
        data = app.studies.export_zip(sid, owner=ANA).body
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        history = z.read("screening/history.csv").decode()
        review = json.loads(z.read("screening/review.json"))
    assert review["dual_review"][TA] and review["revealed"][TA] and review["maybe_is_conflict"]
    assert "acct_" not in history and ",ed,account," in history  # names, never account ids

    # the other server: Ed has an account there, Bob none; Ana recovers it as "ana"
    with open_app_sync(Settings(data_dir=tmp_path / "d2", database_url=two)) as app2:
        _accounts(app2, ("acct_ana_2", "ana"), ("acct_ed_2", "ed"))
        done = app2.studies.recover_zip(RecoverRequest(data), owner="acct_ana_2").to_dict()
        new = str(done["study_id"])
        assert done["decisions"]["history"]["unmatched"] == 0  # type: ignore[index]
        assert done["decisions"]["history"]["skipped"] == 0  # type: ignore[index]
        who = {r["name"]: r["as"] for r in done["reviewers"]}  # type: ignore[attr-defined]
        assert who == {"ana": "you", "ed": "account", "bob": "name"}
        after = _state(app2, new, "acct_ana_2")
        assert after == before
        with app2.store.read() as conn:
            from litdesk.adapters.store import screening as stored

            rows = stored.list_decisions(conn, new)
        assert {r.reviewer for r in rows} == {"acct_ana_2", "acct_ed_2", "bob"}
        assert all(r.source == "zip" for r in rows)
        assert len(rows) == before_rows(one)

    # a single-user workspace: every reviewer keeps their name, the flow is the same
    local = Settings(data_dir=tmp_path / "d3")
    with open_app_sync(local) as app3:
        done = app3.studies.recover_zip(RecoverRequest(data), owner=LOCAL_OWNER).to_dict()
        who = {r["name"]: r["as"] for r in done["reviewers"]}  # type: ignore[attr-defined]
        assert who == {"ana": "name", "ed": "name", "bob": "name"}
        after = _state(app3, str(done["study_id"]), LOCAL_OWNER)
        assert after == before


def before_rows(url: str) -> int:
    """How many decision rows the original store holds."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(sa.text("SELECT count(*) FROM screening_decisions")).scalar_one()
            )
    finally:
        engine.dispose()


def _replace(data: bytes, changes: dict[str, bytes | None]) -> bytes:
    """The ZIP with members replaced (or removed: ``None``) and its manifest to match."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    manifest = json.loads(members["manifest.json"])
    for name, body in changes.items():
        if body is None:
            members.pop(name, None)
            manifest["members"] = [m for m in manifest["members"] if m["path"] != name]
            continue
        members[name] = body
        for entry in manifest["members"]:
            if entry["path"] == name:
                entry["bytes"], entry["sha256"] = (
                    len(body),
                    "sha256:" + hashlib.sha256(body).hexdigest(),
                )
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            z.writestr(n, b)
    return out.getvalue()


@pytest.fixture(scope="module")
def _team_built(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path, fixtures_dir: Path
) -> tuple[Path, bytes]:
    """The pair-screened Study's data dir (its app closed) and its ZIP, made once per module
    (screening it costs ~0.5 s of CPU); each test recovers into its own copy of that data."""
    folder = tmp_path_factory.mktemp("zip-history") / "t"
    url = sqlite_url_at_head(sqlite_template, folder / "litdesk.sqlite3")
    with open_app_sync(Settings(data_dir=folder, database_url=url)) as app:
        sid, _ = _pair_screened(app, fixtures_dir)
        data = app.studies.export_zip(sid, owner=ANA).body
    return folder, data


@pytest.fixture
def team(tmp_path: Path, _team_built: tuple[Path, bytes]) -> Iterator[tuple[App, bytes]]:
    """The app of the server that screened the Study (a copy of its data: the recoveries
    write there) and the Study's ZIP."""
    built, data = _team_built
    folder = tmp_path / "t"
    shutil.copytree(built, folder)
    url = f"sqlite:///{folder / 'litdesk.sqlite3'}"
    with open_app_sync(Settings(data_dir=folder, database_url=url)) as app:
        yield app, data


def _history(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return z.read("screening/history.csv").decode()


def test_an_old_zip_without_history_recovers_as_before(team: tuple[App, bytes]) -> None:
    app, data = team
    old = _replace(data, {"screening/history.csv": None, "screening/review.json": None})
    done = app.studies.recover_zip(RecoverRequest(old, "Old"), owner=ANA).to_dict()
    assert "history" not in done["decisions"] and done["reviewers"] == []  # type: ignore[operator]
    assert done["decisions"][TA]["recorded"] > 0  # type: ignore[index]
    with app.store.read() as conn:
        from litdesk.adapters.store import screening as stored

        reviewers = {r.reviewer for r in stored.list_decisions(conn, str(done["study_id"]))}
    assert reviewers == {ANA}  # the outcomes, as the recovering account's


def test_a_malformed_history_is_refused_and_the_outcomes_recorded(team: tuple[App, bytes]) -> None:
    app, data = team
    for body in (b"\xff\xfe not utf-8", b"a,b,c\n1,2,3\n", b'event,stage\n"unclosed\n' * 3):
        broken = _replace(data, {"screening/history.csv": body})
        done = app.studies.recover_zip(RecoverRequest(broken, "Broken"), owner=ANA).to_dict()
        decisions = done["decisions"]
        assert set(decisions["history"]) == {"error"}  # type: ignore[index]
        assert decisions[TA]["recorded"] > 0  # type: ignore[index]  # the fallback
        assert done["papers"] == 49


def test_hostile_rows_are_skipped_and_counted(team: tuple[App, bytes]) -> None:
    app, data = team
    rows = list(csv.reader(io.StringIO(_history(data), newline="")))
    header, good, first = rows[0], rows[1:], rows[1]
    at = first[13]
    bad = [
        ["9001", TA, "decision", "no-such-record", "", "", "", "Nothing", "mallory", "name",
         "include", "", "", at, "", "api"],  # a record not in the ZIP: counted, not recorded
        ["9002", "sideways", *first[2:]],
        ["9003", *first[1:10], "perhaps", *first[11:]],
        ["9004", first[1], "undo", *first[3:10], "", "", "", at, "77777", "api"],
        ["9005", *first[1:13], "yesterday", *first[14:]],
        ["9006", *first[1:9], "root", *first[10:]],
        ["9007", *first[1:7], "T" * 50_000, *first[8:]],  # a title too long: found by its key
    ]  # fmt: skip
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows([header, *good, *bad])
    hostile = _replace(data, {"screening/history.csv": buf.getvalue().encode()})
    done = app.studies.recover_zip(RecoverRequest(hostile, "Hostile"), owner=ANA).to_dict()
    history = done["decisions"]["history"]  # type: ignore[index]
    assert history["skipped"] == 5 and history["unmatched"] == 1
    assert history["recorded"] == len(good) + 1


def test_a_huge_history_is_refused(
    team: tuple[App, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    from litdesk.services.screening import _zip_history

    app, data = team
    monkeypatch.setattr(_zip_history, "MAX_EVENTS", 10)
    done = app.studies.recover_zip(RecoverRequest(data, "Huge"), owner=ANA).to_dict()
    assert "10" in str(done["decisions"]["history"]["error"])  # type: ignore[index]
    long = _history(data).split("\r\n")
    cell = long[0] + "\r\n" + "1," + "x" * 200_000 + "\r\n"
    done = app.studies.recover_zip(
        RecoverRequest(_replace(data, {"screening/history.csv": cell.encode()}), "Long"),
        owner=ANA,
    ).to_dict()
    assert "error" in done["decisions"]["history"]  # type: ignore[index]


def test_a_blind_stage_carries_only_the_exporters_own_decisions(
    tmp_path: Path, sqlite_template: Path, fixtures_dir: Path
) -> None:
    url = sqlite_url_at_head(sqlite_template, tmp_path / "b" / "litdesk.sqlite3")
    with open_app_sync(Settings(data_dir=tmp_path / "b", database_url=url)) as app:
        _accounts(app, (ANA, "ana"), (ED, "ed"), (BOB, "bob"))
        sid = app.studies.create_study(CreateStudyRequest("Blind", None), owner=ANA).id
        app.studies.import_files(
            ImportRequest(study=sid, paths=(str(fixtures_dir / EXPORT),)), owner=ANA
        )
        with app.store.write() as conn:
            for who in (ED, BOB):
                access.set_member(conn, sid, who, "editor", ANA, now_iso())
        app.screening.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=ANA)
        keys = [
            str(r["record_key"]) for r in app.screening.items(ItemsRequest(sid), owner=ANA).rows
        ]
        for k in keys[:5]:
            app.screening.decide(DecideRequest(sid, TA, k, "include"), owner=ED)
            app.screening.decide(DecideRequest(sid, TA, k, "exclude"), owner=BOB)
        mine = _history(app.studies.export_zip(sid, owner=ED).body)
        everyone = _history(app.studies.export_zip(sid, owner=ANA).body)
    assert ",bob," not in mine and mine.count(",ed,account,") == 5
    assert everyone.count(",bob,account,") == 5
