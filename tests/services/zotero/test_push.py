"""ZoteroArea.plan_push / push: a Study's reading statuses (as tags) and notes back to the
Zotero items they came from — through a real loopback server speaking the Web API v3 wire
format (versions, 412, 50 per write, Backoff / Retry-After, no redirects, the key only in
its header), the local API, or an RIS file."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from tests._zotero_lib import LibraryBuilder
from tests._zotero_server import ToLoopback, ZoteroServer, ZoteroState

from litdesk._errors import RefusedError
from litdesk.adapters.zotero._web import ZoteroConflict, ZoteroWebClient, ZoteroWriteFailed
from litdesk.services.app import open_app_sync
from litdesk.services.zotero import (
    ZoteroArea,
    ZoteroImportRequest,
    ZoteroInputError,
    ZoteroPushRequest,
)

pytestmark = pytest.mark.fixtures
KEY = "K" * 24


def _imported(fixtures_dir: Path, tmp_path: Path, app, n: int = 2) -> dict[str, str]:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    keys = {}
    for i in range(n):
        keys[f"i{i}"] = b.item(
            fields={"title": f"Item {i}", "DOI": f"10.1000/item.{i}"}, tags=["zotero-tag"]
        )
    b.close()
    app.zotero.import_library(
        ZoteroImportRequest(data_dir=str(b.data_dir), study="Review", pdfs=False),
        owner=app.owner,
    )
    return keys


class _Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_plan_then_push_through_the_web_api(fixtures_dir: Path, tmp_path: Path, tmp_settings,
                                            caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    caplog.set_level(logging.DEBUG)
    with open_app_sync(tmp_settings) as app:
        keys = _imported(fixtures_dir, tmp_path, app)
        ws = app.workspace()
        first = ws.paper("10.1000/item.0").paper
        ws.set_status(first.id, "read")
        ws.add_note(first.id, comment="Included: RCT\nlow risk of bias", study="Review")
        req = ZoteroPushRequest(study="Review", library="users/123", api_key=KEY)
        plan = app.zotero.plan_push(req, owner=app.owner)
        by_key = {i.key: i for i in plan.items}
        assert by_key[keys["i0"]].tags == ("litdesk:read",)
        assert [t for _, t in by_key[keys["i0"]].notes] == ["Included: RCT\nlow risk of bias"]
        assert by_key[keys["i1"]].tags == () and by_key[keys["i1"]].notes == ()
        assert KEY not in repr(req) and KEY not in str(plan.to_dict())

        state = ZoteroState()
        for k in keys.values():
            state.add_item(k, 1, ["zotero-tag"])
        sleeps = _Sleeps()
        with ZoteroServer(state) as server:
            loop = ToLoopback(server.port)
            area = ZoteroArea(
                store=app.store,
                pdfs=app.pdfs,
                screening=app.screening,
                http_transport=loop,
                sleep=sleeps,
            )
            with pytest.raises(RefusedError) as unconfirmed:
                asyncio.run(area.push(req, owner=app.owner, confirm=False))
            assert unconfirmed.value.code == "zotero_unconfirmed" and not state.received
            state.backoff = "1"
            state.throttle_next = 1
            view = asyncio.run(area.push(req, owner=app.owner, confirm=True))
        assert (view.items_written, view.notes_written) == (1, 1)
        assert set(loop.hosts) == {"https://api.zotero.org:443"}
        assert sleeps.waits[0] == 3.0  # Retry-After of the 429, then the Backoff
        assert 1.0 in sleeps.waits
        item = state.items[keys["i0"]]
        assert item["tags"] == [{"tag": "zotero-tag"}, {"tag": "litdesk:read"}]
        (note,) = [o for o in state.items.values() if o.get("itemType") == "note"]
        assert note["parentItem"] == keys["i0"]
        assert note["note"] == "<p>Included: RCT</p><p>low risk of bias</p>"
        tag_write = next(r for r in state.received if r.body and "tags" in r.body[0]
                         and "itemType" not in r.body[0])  # fmt: skip
        assert tag_write.body[0]["version"] == 1  # guarded by the version imported
        assert all(r.headers.get("Zotero-API-Key") == KEY for r in state.received)
        assert KEY not in caplog.text

        # nothing is written twice: the pushed note and tag are known now
        again = app.zotero.plan_push(req, owner=app.owner)
        assert all(not i.tags and not i.notes for i in again.items)

        # a status changed since: its tag replaces the old one, guarded by the version
        # the last write returned (If-Unmodified-Since-Version per object)
        ws.set_status(first.id, "reading")
        changed = app.zotero.plan_push(req, owner=app.owner)
        item0 = next(i for i in changed.items if i.key == keys["i0"])
        assert (item0.tags, item0.removed_tags, item0.notes) == (
            ("litdesk:reading",),
            ("litdesk:read",),
            (),
        )
        version_now = state.items[keys["i0"]]["version"]
        assert item0.version == version_now
        with ZoteroServer(state) as server:
            area = ZoteroArea(store=app.store, pdfs=app.pdfs, screening=app.screening,
                              http_transport=ToLoopback(server.port), sleep=sleeps)  # fmt: skip
            view = asyncio.run(area.push(req, owner=app.owner, confirm=True))
        assert view.items_written == 1
        assert state.items[keys["i0"]]["tags"] == [
            {"tag": "zotero-tag"},
            {"tag": "litdesk:reading"},
        ]
        assert state.received[-1].body[0]["version"] == version_now
        assert app.zotero.plan_push(req, owner=app.owner).empty


def test_a_newer_change_in_zotero_is_a_conflict_naming_the_item(
    fixtures_dir: Path, tmp_path: Path, tmp_settings
) -> None:
    with open_app_sync(tmp_settings) as app:
        keys = _imported(fixtures_dir, tmp_path, app)
        ws = app.workspace()
        ws.set_status(ws.paper("10.1000/item.1").paper.id, "reading")
        ws.set_status(ws.paper("10.1000/item.0").paper.id, "read")
        state = ZoteroState()
        state.add_item(keys["i0"], 1, [])
        state.add_item(keys["i1"], 7, [])  # edited in Zotero after the import
        req = ZoteroPushRequest(study="Review", library="users/123", api_key=KEY)
        with ZoteroServer(state) as server:
            area = ZoteroArea(
                store=app.store,
                pdfs=app.pdfs,
                screening=app.screening,
                http_transport=ToLoopback(server.port),
            )
            with pytest.raises(ZoteroConflict) as err:
                asyncio.run(area.push(req, owner=app.owner, confirm=True))
        assert keys["i1"] in err.value.message and err.value.details["items"] == [keys["i1"]]
        assert KEY not in err.value.message
        assert state.items[keys["i1"]]["tags"] == []
        # the other item of the batch was written, and its new version recorded
        assert state.items[keys["i0"]]["tags"] == [{"tag": "zotero-tag"}, {"tag": "litdesk:read"}]
        left = {i.key: i for i in app.zotero.plan_push(req, owner=app.owner).items}
        assert left[keys["i0"]].tags == () and left[keys["i1"]].tags == ("litdesk:reading",)


def test_writes_go_in_batches_of_fifty(fixtures_dir: Path, tmp_path: Path, tmp_settings) -> None:
    with open_app_sync(tmp_settings) as app:
        keys = _imported(fixtures_dir, tmp_path, app, n=60)
        ws = app.workspace()
        for row in ws.papers(study="Review"):
            ws.set_status(row.paper.id, "to-read")
        state = ZoteroState(library="api/users/0", api_key=None)
        for k in keys.values():
            state.add_item(k, 1, ["zotero-tag"])
        req = ZoteroPushRequest(study="Review", local=True)
        with ZoteroServer(state) as server:
            loop = ToLoopback(server.port)
            area = ZoteroArea(
                store=app.store, pdfs=app.pdfs, screening=app.screening, http_transport=loop
            )
            view = asyncio.run(area.push(req, owner=app.owner, confirm=True))
        assert view.items_written == 60
        assert [len(r.body) for r in state.received] == [50, 10]
        assert set(loop.hosts) == {"http://localhost:23119"}
        assert all("Zotero-API-Key" not in r.headers for r in state.received)


def test_client_rules(tmp_path: Path) -> None:
    with pytest.raises(RefusedError):
        ZoteroWebClient(library="users/1", api_key=KEY, base="https://evil.example")
    with pytest.raises(RefusedError):
        ZoteroWebClient(library="users/1", api_key=KEY, base="http://api.zotero.org")
    state = ZoteroState(redirect=True)
    with ZoteroServer(state) as server:
        client = ZoteroWebClient(
            library="users/123", api_key=KEY, transport=ToLoopback(server.port)
        )
        with pytest.raises(ZoteroWriteFailed) as err:
            asyncio.run(client.write([{"itemType": "note", "parentItem": "X", "note": "n"}]))
        assert err.value.code == "zotero_redirect" and KEY not in err.value.message
        assert len(state.received) == 1  # the redirect was not followed
        with pytest.raises(RefusedError):
            asyncio.run(client.write([{"key": str(i)} for i in range(51)]))
        assert KEY not in repr(client)


def test_push_as_ris_file(fixtures_dir: Path, tmp_path: Path, tmp_settings) -> None:
    with open_app_sync(tmp_settings) as app:
        _imported(fixtures_dir, tmp_path, app)
        ws = app.workspace()
        first = ws.paper("10.1000/item.0").paper
        ws.set_status(first.id, "read")
        ws.add_note(first.id, comment="a <b> & c", study="Review")
        ws.add_evidence(
            first.id,
            finding="Fewer strokes",
            passage="stroke fell by a fifth",
            source="external",
            location="p. 4",
            study="Review",
        )
        out = tmp_path / "back.ris"
        view = asyncio.run(
            app.zotero.push(
                ZoteroPushRequest(study="Review", ris_path=str(out)), owner=app.owner, confirm=True
            )
        )
        assert view.file == str(out)
        text = out.read_text(encoding="utf-8")
        assert text.count("TY  - ") == 2 and text.count("ER  - ") == 2
        assert "KW  - litdesk:read" in text and "KW  - zotero-tag" in text
        assert "N1  - <p>a &lt;b&gt; &amp; c</p>" in text
        assert (
            "N1  - <p>litdesk evidence</p><p>Finding: Fewer strokes</p>"
            "<p>“stroke fell by a fifth” (external, p. 4)</p><p>Verification: needs verification</p>"
        ) in text
        assert "DO  - 10.1000/item.0" in text


def test_push_request_rules() -> None:
    with pytest.raises(ZoteroInputError):
        ZoteroPushRequest(study="S")
    with pytest.raises(ZoteroInputError):
        ZoteroPushRequest(study="S", library="users/1")  # the Web API needs a key
    with pytest.raises(ZoteroInputError):
        ZoteroPushRequest(study="S", library="people/1", api_key=KEY)
    with pytest.raises(ZoteroInputError):
        ZoteroPushRequest(study="S", ris_path="x.ris", library="users/1", api_key=KEY)
    assert ZoteroPushRequest(study="S", local=True).library == "users/0"
