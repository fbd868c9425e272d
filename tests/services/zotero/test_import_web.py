"""ZoteroArea.import_web: a library of zotero.org read through the Web API v3 — a real
loopback server speaking its wire format (paging, versions, 304, 429 + Backoff, the file
redirect), serving the real Zotero 6 library ``zotero-6-papis`` (and built ones) as the
API gives them; the records are those of the offline import of the same library."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from tests._store_template import copy_sqlite_template, sqlite_path
from tests._zotero_lib import LibraryBuilder
from tests._zotero_server import ToLoopback
from tests._zotero_web import WebServer, WebState

from litdesk import Settings
from litdesk._errors import RefusedError
from litdesk.adapters.zotero._webread import ZoteroKeyRefused, ZoteroNoLibrary, ZoteroReadFailed
from litdesk.services.app import open_app_sync
from litdesk.services.zotero import (
    UnknownCollection,
    ZoteroArea,
    ZoteroImportRequest,
    ZoteroWebImportRequest,
)

pytestmark = pytest.mark.fixtures
KEY = "K" * 24


class _Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _area(app, loop: ToLoopback, sleeps: _Sleeps | None = None) -> ZoteroArea:
    return ZoteroArea(
        store=app.store,
        pdfs=app.pdfs,
        screening=app.screening,
        http_transport=loop,
        sleep=sleeps or _Sleeps(),
    )


def _web(area: ZoteroArea, app, **kw: object):
    request = ZoteroWebImportRequest(library="users/123", api_key=KEY, **kw)  # type: ignore[arg-type]
    return asyncio.run(area.import_web(request, owner=app.owner))


def _second_settings(tmp_path: Path, sqlite_template: Path) -> Settings:
    settings = Settings(data_dir=tmp_path / "data-local")
    copy_sqlite_template(sqlite_template, sqlite_path(settings.resolved_database_url()))
    return settings


def _records(app, study: str) -> dict[str, tuple]:
    return {
        r.paper.doi or r.paper.title: (
            r.paper.title, r.paper.doi, r.paper.authors, r.paper.year, r.paper.journal,
            r.paper.keywords, r.paper.publication_types, r.paper.abstract, r.paper.pmid,
        )
        for r in app.workspace().papers(study=study)
    }  # fmt: skip


def _items_asked(state: WebState, since: int) -> list[set[str]]:
    """The item keys each listing asked for by ``itemKey=`` since request ``since``."""
    return [
        set(g.query["itemKey"].split(","))
        for g in state.received[since:]
        if g.path == "/users/123/items" and "itemKey" in g.query
    ]


def test_papis_library_through_the_web_api_makes_the_offline_records(
    fixtures_dir: Path, tmp_path: Path, tmp_settings, sqlite_template: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    caplog.set_level(logging.DEBUG)
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    with open_app_sync(_second_settings(tmp_path, sqlite_template)) as local_app:
        offline = local_app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(data), study="Papis"), owner=local_app.owner
        )
        expected = _records(local_app, "Papis")
    state = WebState.from_library(data)
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        loop = ToLoopback(server.port)
        view = _web(_area(app, loop), app, study="Papis", pdfs=True)
        assert (view.added, view.updated, view.unchanged) == (offline.added, 0, 0) == (5, 0, 0)
        assert view.library == "user" and view.data_dir == "zotero.org users/123"
        assert view.library_version == state.version and view.since is None
        assert (view.pdfs_attached, view.pdfs_new) == (offline.pdfs_attached, 4) == (4, 4)
        assert view.problems == ()
        assert _records(app, "Papis") == expected and len(expected) == 5
        files = app.pdfs.corpus().files
        assert len(files) == 4
        # the wire: API version 3 on every API request, the key only to api.zotero.org
        api = [g for g in state.received if not g.path.startswith("/storage/")]
        stored = [g for g in state.received if g.path.startswith("/storage/")]
        assert api and all(g.headers.get("Zotero-API-Version") == "3" for g in api)
        assert all(g.headers.get("Zotero-API-Key") == KEY for g in api)
        assert len(stored) == 4 and all("Zotero-API-Key" not in g.headers for g in stored)
        listing = next(g for g in api if g.path == "/users/123/items")
        assert listing.query | {"start": "0"} == {
            "format": "json", "include": "data", "limit": "100", "sort": "dateAdded",
            "direction": "asc", "start": "0",
        }  # fmt: skip
        assert set(loop.hosts) == {"https://api.zotero.org:443", "https://files.zotero.net:443"}

        # again: only what changed since the version read (a 304 here), PDFs not fetched again
        before = len(state.received)
        again = _web(_area(app, loop), app, study="Papis", pdfs=True)
        assert (again.added, again.updated, again.unchanged) == (0, 0, 0)
        assert again.since == state.version and again.studies[0].total == 5
        asked = state.received[before:]
        items = next(g for g in asked if g.path == "/users/123/items")
        assert items.query["since"] == str(state.version)
        assert items.headers["If-Modified-Since-Version"] == str(state.version)
        assert not any(g.path.startswith("/storage/") for g in asked)
    text = caplog.text + repr(view.to_dict()) + repr(again.to_dict())
    assert KEY not in text
    assert KEY not in repr(ZoteroWebImportRequest(library="users/1", api_key=KEY))


def _built(fixtures_dir: Path, root: Path, n: int = 230) -> tuple[LibraryBuilder, dict[str, str]]:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", root / "Zotero")
    review = b.collection("Review")
    sub = b.collection("Screened", review)
    other = b.collection("Other")
    keys = {"review": review, "sub": sub, "other": other}
    for i in range(n):
        colls = [review] if i % 3 == 0 else [sub] if i % 3 == 1 else [other] if i % 5 else []
        keys[f"i{i}"] = b.item(
            fields={"title": f"Trial {i}", "DOI": f"10.1000/t.{i}", "date": "2021-03",
                    "extra": f"PMID: {1000 + i}", "publicationTitle": "BMJ"},
            creators=[("author", "Smith", "Jane"), ("author", "Lee", f"K{i}")],
            tags=["rct", f"t{i % 4}"],
            collections=colls,
        )  # fmt: skip
    keys["note"] = b.note("<p>Important <b>finding</b></p>", keys["i0"])
    if n > 3:
        b.trash(keys["i3"])
    return b, keys


def test_pages_collections_and_changes_since(fixtures_dir: Path, tmp_path: Path, tmp_settings,
                                             sqlite_template: Path) -> None:  # fmt: skip
    b, k = _built(fixtures_dir, tmp_path)
    b.close()
    with open_app_sync(_second_settings(tmp_path, sqlite_template)) as local_app:
        offline = local_app.zotero.import_library(
            ZoteroImportRequest(
                data_dir=str(b.data_dir), collections=("Review",), sub_studies=True
            ),
            owner=local_app.owner,
        )
        expected = {s.name: _records(local_app, s.name) for s in offline.studies}
    state = WebState.from_library(b.data_dir)
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        loop = ToLoopback(server.port)
        area = _area(app, loop)
        view = _web(area, app, collections=("Review",), sub_studies=True)
        assert (
            [(s.name, s.papers) for s in view.studies]
            == [(s.name, s.papers) for s in offline.studies]
            == [("Review", 76), ("Review / Screened", 77)]
        )
        assert {s.name: _records(app, s.name) for s in view.studies} == expected
        assert view.notes_added == offline.notes_added == 1
        pages = [
            g.query["start"] for g in state.received if g.path.endswith(f"{k['sub']}/items/top")
        ]
        assert pages == ["0"]
        children = [g for g in state.received if g.query.get("itemType") == "note || attachment"]
        assert children

        # the whole library: 227 objects (226 items + a note) in three pages
        state.received.clear()
        whole = _web(area, app, study="All")
        starts = [g.query["start"] for g in state.received if g.path == "/users/123/items"]
        assert starts == ["0", "100", "200"]
        assert whole.items_read == 229 and whole.added == 229 - 153 and whole.unchanged == 153

        # Zotero changes: one edited, one new, one deleted, a child note edited alone
        state.change(k["i1"], title="Trial 1, corrected")
        state.add({"key": "NEWITEM1", "version": 0, "data": {
            "key": "NEWITEM1", "itemType": "journalArticle", "title": "Brand new",
            "DOI": "10.1000/new", "creators": [], "tags": [], "collections": [k["review"]],
            "dateAdded": "2026-12-06T10:00:00Z", "dateModified": "2026-12-06T10:00:00Z",
        }})  # fmt: skip
        state.delete(k["i6"])
        state.trash(k["i9"])
        state.change(k["note"], note="<p>Important finding, revised</p>")
        state.received.clear()
        again = _web(area, app, study="All")
        asked = [g for g in state.received if g.path == "/users/123/items"]
        assert asked[0].query["since"] == str(whole.library_version)
        assert (again.added, again.updated, again.unchanged) == (1, 1, 1)  # i0: the note's item
        assert sorted(r.key for r in again.removed) == sorted([k["i6"], k["i9"]])
        assert asked[0].query["includeTrashed"] == "1"
        assert (again.notes_changed, again.notes_added) == (1, 0)
        notes, _ = app.workspace().notes()
        assert [n.annotation.comment for n in notes] == ["Important finding, revised"]
        (study,) = again.studies
        assert (study.papers, study.total) == (3, 230)
        titles = [r.paper.title for r in app.workspace().papers(study="All")]
        assert len(titles) == len(set(titles)) == 230 and "Trial 1, corrected" in titles
        with pytest.raises(UnknownCollection):
            _web(area, app, collections=("Nope",))


def test_backoff_and_retry_after_are_waited_out(fixtures_dir: Path, tmp_path: Path,
                                                 tmp_settings) -> None:  # fmt: skip
    b, _k = _built(fixtures_dir, tmp_path, n=3)
    b.close()
    state = WebState.from_library(b.data_dir, throttle_next=2, backoff="5")
    sleeps = _Sleeps()
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        view = _web(_area(app, ToLoopback(server.port), sleeps), app, study="S")
    assert view.added == 3
    assert sleeps.waits[:3] == [2.0, 5.0, 2.0] and set(sleeps.waits[3:]) == {5.0}


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"api_key": "OTHER"}, ZoteroKeyRefused, "the Zotero API key was refused"),
        ({"library": "users/999"}, ZoteroNoLibrary, "Zotero has no library (404)"),
        ({"claim_total": 10**6}, RefusedError, "more than 500 pages"),
        ({"oversize": True}, ZoteroReadFailed, "larger than"),
        ({"redirect": True}, ZoteroReadFailed, "redirect (302); not followed"),
    ],
)
def test_refusals(fixtures_dir: Path, tmp_path: Path, tmp_settings, change: dict, error: type,
                  words: str, caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    caplog.set_level(logging.DEBUG)
    b, _k = _built(fixtures_dir, tmp_path, n=2)
    b.close()
    state = WebState.from_library(b.data_dir, **change)
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        with pytest.raises(error) as err:
            _web(_area(app, ToLoopback(server.port)), app, study="S")
        assert words in err.value.message
        assert app.workspace().papers() == []  # nothing of a refused read is imported
    assert KEY not in err.value.message + repr(err.value.to_dict()) + caplog.text


@pytest.mark.parametrize("elsewhere", ["elsewhere.example", "files.zotero.net:8443"])
def test_file_redirect_elsewhere_is_not_followed(fixtures_dir: Path, tmp_path: Path,
                                                 tmp_settings, elsewhere: str) -> None:  # fmt: skip
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    state = WebState.from_library(data, file_host=elsewhere)
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        loop = ToLoopback(server.port)
        view = _web(_area(app, loop), app, study="Papis", pdfs=True)
        assert view.added == 5 and view.pdfs_attached == 0 and len(view.problems) == 4
        assert all(f"elsewhere ({elsewhere})" in p.problem and "not followed" in p.problem
                   for p in view.problems)  # fmt: skip
        assert set(loop.hosts) == {"https://api.zotero.org:443"}
        assert not any(g.path.startswith("/storage/") for g in state.received)


def test_offline_then_web_is_the_same_library(fixtures_dir: Path, tmp_settings) -> None:
    """Items imported offline before are the same items read through the API (same
    library, keys, versions and dates): unchanged, never a second paper."""
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    state = WebState.from_library(data)
    for obj in state.items.values():  # as synced: the versions of the data directory (0)
        obj["version"] = obj["data"]["version"] = 0
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(data), study="Papis", pdfs=False), owner=app.owner
        )
        view = _web(_area(app, ToLoopback(server.port)), app, study="Papis")
        assert (view.added, view.updated, view.unchanged) == (0, 0, 5)
        assert len(app.workspace().papers()) == 5


def test_hostile_files_are_refused_per_item(fixtures_dir: Path, tmp_settings,
                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """A file over the byte limit, and one that is no PDF: each its item's problem, the
    item imported without it; nothing of them in the PDF library."""
    import litdesk.adapters.zotero._webread as webread

    data = fixtures_dir / "zotero" / "zotero-6-papis"
    state = WebState.from_library(data)
    big, fake, gone = sorted(state.files)[:3]
    state.files[fake] = b"<html>not a pdf</html>"
    del state.files[gone]  # in WebDAV, not in zotero.org's storage
    monkeypatch.setattr(webread, "MAX_FILE_BYTES", len(state.files[fake]) + 1)
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        view = _web(_area(app, ToLoopback(server.port)), app, study="Papis", pdfs=True)
        assert view.added == 5 and view.pdfs_attached == 0
        said = {p.problem.split(":", 1)[0]: p.problem for p in view.problems}
        assert "larger than 23 bytes" in said[big]
        assert "not a PDF" in said[fake]
        assert "holds no file" in said[gone]
        assert list(app.pdfs.corpus().files) == []


def test_another_accounts_study_is_refused_before_zotero_is_asked(
    fixtures_dir: Path, tmp_path: Path, tmp_settings
) -> None:
    """A Study named by its id must be one the account may change; another account's is
    not found — before any request reaches Zotero. A new name makes the account's own."""
    from litdesk._errors import NotFoundError

    b, _k = _built(fixtures_dir, tmp_path, n=2)
    b.close()
    state = WebState.from_library(b.data_dir)
    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        anas = app.workspace().create_study("Ana's review").id
        area = _area(app, ToLoopback(server.port))
        bobs = ZoteroWebImportRequest(library="users/123", api_key=KEY, study=anas)
        with pytest.raises(NotFoundError):
            asyncio.run(area.import_web(bobs, owner="bob"))
        assert state.received == []
        assert app.workspace().papers(study=anas) == []
        mine = ZoteroWebImportRequest(library="users/123", api_key=KEY, study="Bob's review")
        assert asyncio.run(area.import_web(mine, owner="bob")).added == 2


def test_problem_items_are_asked_again_and_a_lasting_one_is_given_up(
    fixtures_dir: Path, tmp_settings
) -> None:
    """An item refused for a passing reason (its file not there a moment) is asked for
    again by the next import although it did not change (``itemKey=``, its attachments
    with it) and heals; one refused for its data (a file that is no PDF) is reported on
    each of three imports in a row, then once as not asked again, then left alone — until
    it changes in Zotero."""
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    state = WebState.from_library(data)
    flaky, fake = sorted(state.files)[:2]
    parent = {k: state.items[k]["data"]["parentItem"] for k in (flaky, fake)}
    kept = state.files.pop(flaky)  # a moment away from zotero.org's storage
    state.files[fake] = b"<html>not a pdf</html>"

    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        area = _area(app, ToLoopback(server.port))

        def again() -> tuple[object, list[set[str]]]:
            before = len(state.received)
            view = _web(area, app, study="Papis", pdfs=True)
            return view, _items_asked(state, before)

        first = _web(area, app, study="Papis", pdfs=True)
        assert first.pdfs_attached == 2 and first.asked_again == ()
        assert {p.key for p in first.problems} == {parent[flaky], parent[fake]}

        state.files[flaky] = kept  # back; nothing changed in Zotero (the listing is a 304)
        second, asked = again()
        assert second.asked_again == tuple(sorted(parent.values()))
        assert asked == [{parent[flaky], parent[fake], flaky, fake}]  # one request, ≤ 50 keys
        assert (second.added, second.updated) == (0, 0)
        assert {p.key for p in second.problems} == {parent[fake]}  # the flaky one healed
        assert "not a PDF" in second.problems[0].problem
        assert second.pdfs_new == 1
        assert any(f.name.startswith(flaky) for f in app.pdfs.corpus().files)

        third, asked = again()
        assert third.asked_again == (parent[fake],) and asked == [{parent[fake], fake}]
        assert [p.key for p in third.problems] == [parent[fake]]

        fourth, asked = again()  # three imports in a row refused it: not asked again
        assert fourth.asked_again == () and asked == []
        assert fourth.given_up == (parent[fake],)
        (said,) = fourth.problems
        assert said.key == parent[fake] and said.problem.startswith("not asked again")
        assert "3 imports in a row" in said.problem and "not a PDF" in said.problem

        fifth, asked = again()  # left alone
        assert (fifth.asked_again, fifth.given_up, fifth.problems, asked) == ((), (), (), [])

        state.change(fake, title="Full text")  # changed in Zotero: read, counted anew
        sixth, asked = again()
        assert [p.key for p in sixth.problems] == [parent[fake]] and sixth.asked_again == ()
        seventh, asked = again()
        assert seventh.asked_again == (parent[fake],)


def test_a_failed_pdf_is_tried_again_when_its_item_changed_or_not(
    fixtures_dir: Path, tmp_settings
) -> None:
    """``since=`` lists only what changed: an item edited in Zotero comes without its
    unchanged attachment. A PDF whose download failed is tried again on the next import all
    the same — its item edited in Zotero (its attachment asked for by ``itemKey=``) or not
    (the item asked again with it); one that keeps failing is given up after three imports,
    said once, and tried again once its item changes."""
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    state = WebState.from_library(data)
    edited, still, bad = sorted(state.files)[:3]
    parent = {k: state.items[k]["data"]["parentItem"] for k in (edited, still, bad)}
    away = {k: state.files.pop(k) for k in (edited, still)}  # a moment away from storage
    good = state.files[bad]
    state.files[bad] = b"<html>not a pdf</html>"

    with WebServer(state) as server, open_app_sync(tmp_settings) as app:
        area = _area(app, ToLoopback(server.port))

        def again() -> tuple[object, list[set[str]]]:
            before = len(state.received)
            view = _web(area, app, study="Papis", pdfs=True)
            return view, _items_asked(state, before)

        first = _web(area, app, study="Papis", pdfs=True)
        assert {p.key for p in first.problems} == set(parent.values())
        assert first.pdfs_attached == 1

        state.files.update(away)  # back in storage; one of the two items edited in Zotero
        state.change(parent[edited], title="An edited title")
        second, asked = again()
        listing = next(g for g in state.received if g.query.get("since"))
        assert listing.query["since"] == str(first.library_version)
        # the unchanged items and their attachments, and the edited item's attachment
        assert asked == [{parent[still], parent[bad], still, bad, edited}]
        assert second.asked_again == tuple(sorted((parent[still], parent[bad])))
        assert (second.added, second.updated) == (0, 1)
        assert [p.key for p in second.problems] == [parent[bad]]  # the two others healed
        assert second.pdfs_new == 2
        placed = {f.name.split(" ", 1)[0] for f in app.pdfs.corpus().files}
        assert {edited, still} <= placed and bad not in placed

        third, _ = again()
        assert [p.key for p in third.problems] == [parent[bad]]
        fourth, asked = again()  # three imports in a row: given up, said once
        assert fourth.given_up == (parent[bad],) and asked == []
        assert fourth.problems[0].problem.startswith("not asked again")
        fifth, asked = again()
        assert (fifth.asked_again, fifth.given_up, fifth.problems, asked) == ((), (), (), [])

        # the item edited in Zotero (its attachment not) and the file mended: tried again
        state.files[bad] = good
        state.change(parent[bad], title="Mended")
        sixth, asked = again()
        assert asked == [{bad}] and sixth.problems == () and sixth.pdfs_new == 1
        assert bad in {f.name.split(" ", 1)[0] for f in app.pdfs.corpus().files}
        seventh, asked = again()  # nothing left to ask for
        assert (seventh.asked_again, seventh.problems, asked) == ((), (), [])
