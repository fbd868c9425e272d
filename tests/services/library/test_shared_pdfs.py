"""Several hosts (issue 29), the files still on one host's disk: two data directories on one
store and one object store (a ``file://`` folder) — a folder added on A is stored by content
hash and B lists it, shows its pages and reads its record page, a PDF added later on A is
fetched by B as soon as B is asked for it; the protocol of a question A answered is read on
B; the shelf's catch-up of files kept before the store was shared costs one listing per
folder per process, at first use, not one per app construction."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests._store_template import ensure_sqlite_at_head
from tests.services.library.conftest import write_pdf

from litdesk import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.objects import LocalObjects, ObjectInfo, ObjectStoreError
from litdesk.services.app import app_library, open_app_sync
from litdesk.services.library import (
    ChatService,
    PageRequest,
    PdfNotInLibrary,
    ProtocolRequest,
)
from litdesk.services.library._shared import SharedPdf, SharedPdfs
from litdesk.services.library._shelf import Shelf

TEXT = "Water level was measured with time-lapse cameras mounted on two bridges. " * 12
TITLE = "Measuring Rivers with Bridge Cameras"


def _at_head(database: Path) -> str:
    """The URL of a SQLite store at ``database`` at the newest migration (a copy of the
    process's migrated template, not a migration from zero)."""
    url = f"sqlite:///{database}"
    ensure_sqlite_at_head(url)
    return url


def _host(settings: Settings, name: str, shared: Path, db: str, sync: float = 0) -> Settings:
    return settings.model_copy(
        update={
            "data_dir": settings.resolved_data_dir().parent / name,
            "database_url": db,
            "object_store": f"file://{shared}",
            "object_store_sync_seconds": sync,
        }
    )


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_folder_added_on_one_host_is_served_on_the_other(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    shared, db = tmp_path / "objects", _at_head(tmp_path / "one.sqlite3")
    folder = tmp_path / "on-a" / "papers"  # a folder of A's disk only
    first = write_pdf(folder / "cameras.pdf", [f"{TITLE}\n\n{TEXT}", "The second page."])
    sha = _sha(first)
    with open_app_sync(_host(tmp_settings, "a", shared, db)) as app:
        change = app.library.add_source(folder, owner=app.owner)
        assert change.to_dict() == {"path": str(folder), "added": True, "shared": 1,
                                    "warnings": []}  # fmt: skip
        assert (shared / "library" / "pdfs" / sha / "cameras.pdf").read_bytes() == (
            first.read_bytes()
        )
        status = app.library.status(owner=app.owner)
        assert [(r["file"], r["origin"]) for r in status.files] == [("cameras.pdf", "added")]
        assert status.warnings == []  # no inbox or copies yet: no folder "not found"
        assert not list((app.pdfs.root / "pdfs").rglob("*.pdf"))  # A copies nothing of its own

    b_settings = _host(tmp_settings, "b", shared, db, sync=3600)
    with open_app_sync(b_settings) as app:
        first_look = app.library.status(owner=app.owner)  # B's first look lists the store
        # copied in the background, never on the listing: arriving (or, when the copier
        # was quicker than the listing, already listed)
        seen = [(r["file"], r["sha256"]) for r in [*first_look.files, *first_look.arriving]]
        assert seen == [("cameras.pdf", sha)]
        assert app.pdfs.wait_for_copies(timeout=60)
        rows = app.library.status(owner=app.owner).files
        assert [(r["file"], r["origin"], r["sha256"]) for r in rows] == [
            ("cameras.pdf", "shared", sha)
        ]
        page = app.library.page(PageRequest(sha, 2), owner=app.owner)
        assert (page.file, page.page, page.pages) == ("cameras.pdf", 2, 2)
        image = app.library.page_image(PageRequest(sha, 1), owner=app.owner)
        assert image.data[:2] == b"\xff\xd8"
        record = app.library.pdf_record(sha, owner=app.owner)  # its first page, read on B
        assert record.read is not None and record.read["title"]["value"] == TITLE, record.read

        # a PDF added on A now: B's listing is not due for an hour, B's viewer fetches it
        later = write_pdf(tmp_path / "on-a" / "later" / "later.pdf", ["A later paper. " * 20])
        with open_app_sync(_host(tmp_settings, "a", shared, db)) as on_a:
            assert on_a.library.add_source(later.parent, owner=on_a.owner).shared == 1
        assert [r["file"] for r in app.library.status(owner=app.owner).files] == ["cameras.pdf"]
        page = app.library.page(PageRequest(_sha(later)), owner=app.owner)
        assert page.file == "later.pdf"
        names = [r["file"] for r in app.library.status(owner=app.owner).files]
        assert sorted(names) == ["cameras.pdf", "later.pdf"]  # in the order of their hashes
        with pytest.raises(PdfNotInLibrary):  # in no host's library: refused, nothing made
            app.library.page(PageRequest("0" * 64), owner=app.owner)


def test_a_pdf_the_copier_brought_while_a_page_asked_for_it_is_served(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    """The viewer looks for a content hash, does not hold it, asks for it at once — and the
    copier thread, started by an earlier listing, has copied it meanwhile: nothing is left
    to copy, and the PDF is here (CI saw "no PDF of the library has this content hash" on
    host B for a PDF both had just copied)."""
    shared, db = tmp_path / "objects", _at_head(tmp_path / "one.sqlite3")
    folder = tmp_path / "on-a" / "papers"
    sha = _sha(write_pdf(folder / "cameras.pdf", [f"{TITLE}\n\n{TEXT}"]))
    with open_app_sync(_host(tmp_settings, "a", shared, db)) as app:
        assert app.library.add_source(folder, owner=app.owner).shared == 1
    with open_app_sync(_host(tmp_settings, "b", shared, db, sync=3600)) as app:
        assert app.pdfs.look_shared() == {sha: ["cameras.pdf"]} or app.pdfs.shared_pdfs.holds(sha)
        assert app.pdfs.wait_for_copies(timeout=60)  # the copier's copy, not this call's
        assert app.pdfs.fetch_shared(sha) is True
        assert app.pdfs.fetch_shared("0" * 64) is False  # held by no host
        assert app.library.page(PageRequest(sha), owner=app.owner).file == "cameras.pdf"


def test_a_copy_whose_content_is_not_its_hash_is_never_served(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    shared, db = tmp_path / "objects", _at_head(tmp_path / "one.sqlite3")
    honest = write_pdf(tmp_path / "x.pdf", [TEXT])
    forged = shared / "library" / "pdfs" / ("a" * 64) / "forged.pdf"
    forged.parent.mkdir(parents=True)
    forged.write_bytes(honest.read_bytes())  # stored under another content's hash
    with open_app_sync(_host(tmp_settings, "b", shared, db)) as app:
        status = app.library.status(owner=app.owner)
        assert (status.files, status.warnings) == ([], [])
        with pytest.raises(PdfNotInLibrary):
            app.library.page(PageRequest("a" * 64), owner=app.owner)
        assert not list((app.pdfs.root / "pdfs").rglob("*.pdf"))


def test_the_protocol_of_an_answer_on_one_host_is_read_on_the_other(
    tmp_settings: Settings, tmp_path: Path, wordllama: WordLlamaEmbedder
) -> None:
    shared, db = tmp_path / "objects", _at_head(tmp_path / "one.sqlite3")
    a = app_library(_host(tmp_settings, "a", shared, db), embedder=wordllama)
    old = a.root / "protocols" / "2026-01-02.md"  # a day kept here before the store was shared
    old.parent.mkdir(parents=True)
    old.write_text("## 2026-01-02T10:00:00+00:00 — An old question\n\nits answer\n\n")
    write_pdf(a.inbox / "cameras.pdf", [TEXT])
    a.ask("How was the water level measured?")
    a.ask("Where were the cameras?")
    a.close()
    keys = sorted(p.relative_to(shared).as_posix() for p in shared.rglob("*.md"))
    assert keys[0] == "library/protocols/2026-01-02.md" and len(keys) == 3, keys
    assert not list((a.root / "protocols").glob("20*-*/*.md"))  # nothing of today's kept on A

    with open_app_sync(_host(tmp_settings, "b", shared, db)) as app:
        today = app.library.protocol(ProtocolRequest(), owner=app.owner)
        assert today.answers == 2, today.text
        first = today.text.index("How was the water level measured?")
        assert first < today.text.index("Where were the cameras?")
        assert "time-lapse cameras" in today.text
        old_day = app.library.protocol(ProtocolRequest("2026-01-02"), owner=app.owner)
        assert old_day.answers == 1 and "An old question" in old_day.text
        none = app.library.protocol(ProtocolRequest("2025-12-31"), owner=app.owner)
        assert (none.answers, none.text) == (0, "")
    with pytest.raises(Exception, match="YYYY-MM-DD"):
        ProtocolRequest("yesterday")


class _Counting(LocalObjects):
    def __init__(self, root: Path) -> None:
        super().__init__(root, max_bytes=10_000_000)
        self.listed: list[str] = []

    def list(self, prefix: str = "") -> list[ObjectInfo]:
        self.listed.append(prefix)
        return super().list(prefix)


def test_catch_up_is_once_per_process_at_first_use(tmp_settings: Settings, tmp_path: Path) -> None:
    """Chat sessions and report builds kept here before the store was shared reach the store
    at their folder's first use (the server: at its start), once per process: building the
    services lists nothing, and a second app of the same process lists nothing again."""
    store = _Counting(tmp_path / "objects")
    settings = _host(tmp_settings, "a", tmp_path / "objects", _at_head(tmp_path / "x.db"))
    home = settings.resolved_data_dir()
    kept = home / "library" / "chat-sessions" / ("c" * 40) / "state.json"
    kept.parent.mkdir(parents=True)
    kept.write_text('{"papers": [], "whole_library": true, "rounds": []}')
    built = home / "reports" / "web" / "b1" / "r_synthesis_report_1.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>")
    token = "t" * 43

    def chats() -> ChatService:
        lib = app_library(settings)
        lib.shelf = Shelf(store, home, inbox=lib.inbox, sync_seconds=0)
        return ChatService(lib)

    one = chats()
    assert store.listed == []  # built: nothing listed
    one.session(token, owner="local")
    assert store.listed.count("library/chat-sessions/") == 1
    assert (
        tmp_path / "objects" / "library" / "chat-sessions" / ("c" * 40) / "state.json"
    ).is_file()
    one.session(token, owner="local")
    two = chats()  # another app in the same process
    two.session(token, owner="local")
    assert store.listed.count("library/chat-sessions/") == 1
    one.library.close()
    two.library.close()

    from fastapi.testclient import TestClient

    from litdesk.faces.web import create_app

    stored = tmp_path / "objects" / "reports" / "web" / "b1" / built.name
    with open_app_sync(settings):  # an app of a CLI command: nothing stored at its opening
        assert not stored.exists()
    serving = settings.model_copy(update={"jobs_worker_slots": 0})  # no job runners to stop
    with TestClient(create_app(serving)):  # the server's start stores the report builds
        assert stored.read_text() == "<html></html>"


def test_shared_pdfs_by_hash_and_name_own_ones_neither_copied_nor_walked_again(
    tmp_path: Path,
) -> None:
    store = LocalObjects(tmp_path / "objects", max_bytes=10_000_000)
    home = tmp_path / "one"
    one = SharedPdfs(Shelf(store, home, sync_seconds=0), home / "library" / "pdfs")
    pdf = write_pdf(tmp_path / "mine" / "a.pdf", [TEXT])
    sha = _sha(pdf)
    named = [SharedPdf(pdf, sha, "a.pdf"), SharedPdf(pdf, sha, "a copy.pdf")]
    assert one.publish([*named, SharedPdf(pdf, sha, "bad\nname.pdf")]) == [
        "bad\nname.pdf was not stored for the other servers: an object key must be a "
        "relative path without '..'"
    ]
    keys = [o.key for o in store.list("library/pdfs/")]
    assert keys == [f"library/pdfs/{sha}/a copy.pdf", f"library/pdfs/{sha}/a.pdf"]
    asked: list[int] = []

    def own() -> set[str]:
        asked.append(1)
        return {sha}

    assert one.sync(own) == [] and one.sync(own, force=True) == []
    assert asked == [1] and not (home / "library" / "pdfs").exists()  # its own: not copied

    two_home = tmp_path / "two"
    two = SharedPdfs(Shelf(store, two_home, sync_seconds=0), two_home / "library" / "pdfs")
    made = two.sync(set)
    assert sorted(p.name for p, got in made if got == sha) == ["a copy.pdf", "a.pdf"]
    assert two.sync(set, force=True) == []  # held at their sizes: nothing copied again
    assert one.publish(named) == [] and len(store.list("library/pdfs/")) == 2


def test_a_listing_copies_for_its_time_budget_a_hash_asked_for_at_once(tmp_path: Path) -> None:
    store = LocalObjects(tmp_path / "objects", max_bytes=10_000_000)
    one = SharedPdfs(Shelf(store, tmp_path / "one"), tmp_path / "one" / "library" / "pdfs")
    pdfs = [write_pdf(tmp_path / "mine" / f"p{n}.pdf", [f"Paper {n}. " * 30]) for n in range(3)]
    assert one.publish([SharedPdf(p, _sha(p), p.name) for p in pdfs]) == []
    ticks = iter(range(1_000))  # each reading of the clock: one second later
    home = tmp_path / "two"
    two = SharedPdfs(Shelf(store, home, sync_seconds=0), home / "library" / "pdfs",
                     budget=1.5, monotonic=lambda: float(next(ticks)))  # fmt: skip
    last = max(pdfs, key=_sha)  # the last one a listing would come to
    assert [p.name for p, _ in two.sync(set, sha=_sha(last))] == [last.name]  # at once
    first = two.sync(set)
    assert len(first) == 1 and first[0][0].name != last.name  # the budget: one, not both
    second = two.sync(set)
    assert len(second) == 1 and second[0][0].name not in (last.name, first[0][0].name)
    assert two.sync(set) == []  # all here


class _Refusing(LocalObjects):
    def put(self, key: str, data: bytes) -> None:
        raise ObjectStoreError("the object store (bucket lab) did not store a file")


def test_an_answer_the_store_does_not_keep_in_the_protocol_says_so(tmp_path: Path) -> None:
    from litdesk.services.library import Answer
    from litdesk.services.library._answering import write_protocol

    shelf = Shelf(_Refusing(tmp_path / "objects", max_bytes=1_000), tmp_path / "home")
    answer = Answer("Which gauges?", "Staff gauges [1].", True, [], [], "none", ["a.pdf"])
    write_protocol(shelf, tmp_path / "home" / "library", answer, whole=True)
    assert answer.warnings == [
        "this answer is not in the protocol: the object store (bucket lab) did not store a file"
    ]
    assert not (tmp_path / "home" / "library" / "protocols").exists()
