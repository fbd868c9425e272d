"""A Study's screening decisions and exclusion reasons go back to the Zotero items its
papers came from (issue 31): settled decisions per stage as ``litdesk:ta:…`` /
``litdesk:ft:…`` tags and ``litdesk:reason:…``, shown in the plan first; a changed or
undone decision takes its old tag off (guarded by the item's version, 412 refused); a paper
two Zotero items became gives back to both; the RIS file and the local API carry the same.
Through the loopback Zotero Web API v3 server, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._zotero_lib import LibraryBuilder
from tests._zotero_server import ToLoopback, ZoteroServer, ZoteroState
from tests.services.conftest import pg_schema

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.adapters.zotero._web import ZoteroConflict
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    ConfigureRequest,
    DecideRequest,
    ItemsRequest,
    UndoRequest,
)
from litdesk.services.workspace import now_iso
from litdesk.services.zotero import (
    PushPlanView,
    ZoteroArea,
    ZoteroImportRequest,
    ZoteroPushRequest,
)

__all__ = ["pg_schema"]

pytestmark = pytest.mark.fixtures
KEY = "K" * 24
TA, FT = "title_abstract", "full_text"
BOB = "acct_bob"


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest, tmp_settings: Settings) -> Iterator[App]:
    settings = tmp_settings
    if request.param == "postgres":
        settings = tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    with open_app_sync(settings) as opened:
        yield opened


def _import(fixtures_dir: Path, tmp_path: Path, app: App) -> dict[str, str]:
    """Four items; ``dup`` has ``i0``'s DOI (Zotero keeps two items, litdesk one paper)."""
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    keys = {
        f"i{i}": b.item(
            fields={"title": f"Trial {i} of aspirin", "DOI": f"10.1000/t.{i}"},
            tags=["zotero-tag"],
        )
        for i in range(3)
    }
    keys["dup"] = b.item(fields={"title": "Trial 0 of aspirin", "DOI": "10.1000/t.0"})
    b.close()
    app.zotero.import_library(
        ZoteroImportRequest(data_dir=str(b.data_dir), study="Review", pdfs=False),
        owner=app.owner,
    )
    return keys


def _record(app: App, doi: str) -> str:
    """The screening record key of the Study's paper with ``doi``."""
    paper_id = app.workspace().paper(doi).paper.id
    sid = app.workspace().study("Review").id
    for group in app.screening.cache.screen_set(sid).groups:
        if any(m.paper_id == paper_id for m in group.members):
            return group.key
    raise AssertionError(f"no record of {doi}")


def _decide(app: App, doi: str, verdict: str, stage: str = TA, reason: str = "") -> None:
    req = DecideRequest("Review", stage, _record(app, doi), verdict, reason=reason)  # type: ignore[arg-type]
    app.screening.decide(req, owner=app.owner)


def _tags(plan: PushPlanView) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    return {i.key: (i.tags, i.removed_tags) for i in plan.items}


def _push(app: App, state: ZoteroState, req: ZoteroPushRequest) -> None:
    with ZoteroServer(state) as server:
        area = ZoteroArea(
            store=app.store,
            pdfs=app.pdfs,
            screening=app.screening,
            http_transport=ToLoopback(server.port),
        )
        asyncio.run(area.push(req, owner=app.owner, confirm=True))


def _server_tags(state: ZoteroState, key: str) -> list[str]:
    tags = state.items[key]["tags"]
    assert isinstance(tags, list)
    return [t["tag"] for t in tags]


def test_decisions_and_reasons_go_back_through_the_web_api(
    fixtures_dir: Path, tmp_path: Path, app: App
) -> None:
    keys = _import(fixtures_dir, tmp_path, app)
    assert len(app.screening.items(ItemsRequest("Review"), owner=app.owner).rows) == 3
    _decide(app, "10.1000/t.0", "include")
    _decide(app, "10.1000/t.0", "exclude", FT, reason="wrong outcome")
    _decide(app, "10.1000/t.1", "exclude", reason="wrong population")
    _decide(app, "10.1000/t.2", "maybe")
    req = ZoteroPushRequest(study="Review", library="users/123", api_key=KEY)
    plan = app.zotero.plan_push(req, owner=app.owner)
    first = ("litdesk:ta:included", "litdesk:ft:excluded", "litdesk:reason:wrong outcome")
    assert _tags(plan) == {
        keys["i0"]: (first, ()),
        keys["dup"]: (first, ()),  # the same paper: both its Zotero items
        keys["i1"]: (("litdesk:ta:excluded", "litdesk:reason:wrong population"), ()),
        keys["i2"]: (("litdesk:ta:maybe",), ()),
    }
    assert plan.blind_stages == ()

    state = ZoteroState()
    for k in keys.values():
        state.add_item(k, 1, [] if k == keys["dup"] else ["zotero-tag"])
    _push(app, state, req)
    assert _server_tags(state, keys["i0"]) == ["zotero-tag", *first]
    assert _server_tags(state, keys["dup"]) == list(first)
    assert _server_tags(state, keys["i2"]) == ["zotero-tag", "litdesk:ta:maybe"]
    assert app.zotero.plan_push(req, owner=app.owner).empty  # nothing twice

    # changed: maybe → include; undone: i1's exclusion (its reason goes with it)
    _decide(app, "10.1000/t.2", "include")
    app.screening.undo(UndoRequest("Review", TA, _record(app, "10.1000/t.1")), owner=app.owner)
    plan = app.zotero.plan_push(req, owner=app.owner)
    by = _tags(plan)
    assert by[keys["i2"]] == (("litdesk:ta:included",), ("litdesk:ta:maybe",))
    assert by[keys["i1"]] == ((), ("litdesk:ta:excluded", "litdesk:reason:wrong population"))
    assert by[keys["i0"]] == ((), ())
    before = state.items[keys["i2"]]["version"]
    _push(app, state, req)
    assert _server_tags(state, keys["i2"]) == ["zotero-tag", "litdesk:ta:included"]
    assert _server_tags(state, keys["i1"]) == ["zotero-tag"]
    guarded = [o for r in state.received[-1:] for o in r.body if o["key"] == keys["i2"]]
    assert guarded[0]["version"] == before  # the version the last push left
    assert app.zotero.plan_push(req, owner=app.owner).empty

    # a newer change in Zotero: refused by name, the other items written
    _decide(app, "10.1000/t.2", "exclude", reason="wrong comparator")
    _decide(app, "10.1000/t.1", "include")
    state.items[keys["i2"]]["version"] = 999
    with pytest.raises(ZoteroConflict) as err:
        _push(app, state, req)
    assert err.value.details["items"] == [keys["i2"]]
    assert _server_tags(state, keys["i2"]) == ["zotero-tag", "litdesk:ta:included"]
    assert _server_tags(state, keys["i1"]) == ["zotero-tag", "litdesk:ta:included"]
    left = _tags(app.zotero.plan_push(req, owner=app.owner))
    assert left[keys["i2"]][0] == ("litdesk:ta:excluded", "litdesk:reason:wrong comparator")
    assert left[keys["i1"]] == ((), ())

    # excluded at title/abstract now: the full-text decision no longer holds (not reached)
    _decide(app, "10.1000/t.0", "exclude", reason="wrong population")
    left = _tags(app.zotero.plan_push(req, owner=app.owner))
    assert left[keys["dup"]] == (
        ("litdesk:ta:excluded", "litdesk:reason:wrong population"),
        ("litdesk:ta:included", "litdesk:ft:excluded", "litdesk:reason:wrong outcome"),
    )


def test_ris_file_and_local_api_carry_the_decisions(
    fixtures_dir: Path, tmp_path: Path, tmp_settings: Settings
) -> None:
    with open_app_sync(tmp_settings) as app:
        keys = _import(fixtures_dir, tmp_path, app)
        _decide(app, "10.1000/t.1", "exclude", reason="wrong population")
        app.workspace().set_status(app.workspace().paper("10.1000/t.1").paper.id, "read")
        out = tmp_path / "back.ris"
        view = asyncio.run(
            app.zotero.push(
                ZoteroPushRequest(study="Review", ris_path=str(out)), owner=app.owner, confirm=True
            )
        )
        assert view.file == str(out)
        blocks = out.read_text(encoding="utf-8").split("ER  - ")
        (one,) = [b for b in blocks if "DO  - 10.1000/t.1" in b]
        for tag in ("litdesk:read", "litdesk:ta:excluded", "litdesk:reason:wrong population"):
            assert f"KW  - {tag}\n" in one
        assert "litdesk:ta:" not in "".join(b for b in blocks if b is not one)

        state = ZoteroState(library="api/users/0", api_key=None)
        for k in keys.values():
            state.add_item(k, 1, ["zotero-tag"])
        _push(app, state, ZoteroPushRequest(study="Review", local=True))
        assert _server_tags(state, keys["i1"]) == [
            "zotero-tag",
            "litdesk:read",
            "litdesk:ta:excluded",
            "litdesk:reason:wrong population",
        ]
        assert [len(r.body) for r in state.received] == [1]


def test_a_blind_stage_is_not_given_back(
    fixtures_dir: Path, tmp_path: Path, tmp_settings: Settings
) -> None:
    with open_app_sync(tmp_settings) as app:
        keys = _import(fixtures_dir, tmp_path, app)
        sid = app.workspace().study("Review").id
        with app.store.write() as conn:
            access.set_member(conn, sid, BOB, "editor", app.owner, now_iso())
        app.screening.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=app.owner)
        record = _record(app, "10.1000/t.1")
        for who in (app.owner, BOB):  # the pair agrees: settled, but still blind
            app.screening.decide(DecideRequest(sid, TA, record, "include"), owner=who)
        req = ZoteroPushRequest(study="Review", local=True)
        plan = app.zotero.plan_push(req, owner=app.owner)
        assert plan.blind_stages == (TA,)
        assert _tags(plan)[keys["i1"]] == ((), ())
        app.screening.configure(ConfigureRequest(sid, revealed={TA: True}), owner=app.owner)
        plan = app.zotero.plan_push(req, owner=app.owner)
        assert plan.blind_stages == ()
        assert _tags(plan)[keys["i1"]] == (("litdesk:ta:included",), ())


def test_two_papers_grouped_as_one_study_both_get_the_decision(
    fixtures_dir: Path, tmp_path: Path, tmp_settings: Settings
) -> None:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    title = "Aspirin for the secondary prevention of stroke: a randomised controlled trial"
    same = {"title": title, "date": "2019", "publicationTitle": "Lancet"}
    with_doi = b.item(fields={**same, "DOI": "10.1000/asp"}, creators=[("author", "Smith", "J")])
    without = b.item(fields=same, creators=[("author", "Smith", "J")])
    b.close()
    with open_app_sync(tmp_settings) as app:
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="Review", pdfs=False),
            owner=app.owner,
        )
        sid = app.workspace().study("Review").id
        (group,) = app.screening.cache.screen_set(sid).groups
        assert len({m.paper_id for m in group.members}) == 2  # two papers, one study
        req = DecideRequest(sid, TA, group.key, "exclude", reason="duplicate")
        app.screening.decide(req, owner=app.owner)
        plan = app.zotero.plan_push(ZoteroPushRequest(study="Review", local=True), owner=app.owner)
        tags = ("litdesk:ta:excluded", "litdesk:reason:duplicate")
        assert _tags(plan) == {with_doi: (tags, ()), without: (tags, ())}
