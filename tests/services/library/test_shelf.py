"""The library's shelf over an object store (issue 29): two data directories on one store
and one object store (a ``file://`` folder here; S3 in tests/adapters/objects and the
two-host web test) see the same inbox, vectors, chats and reports; the default store (the
data directory) copies nothing."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import SecretStr
from tests._store_template import ensure_sqlite_at_head
from tests.services.library.conftest import write_pdf

from litdesk import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.objects import LocalObjects, ObjectStoreError
from litdesk.services.app import app_library
from litdesk.services.library import Library
from litdesk.services.library._shelf import Shelf

TEXT = "Water level was measured with time-lapse cameras mounted on two bridges. " * 12


def _at_head(database: Path) -> str:
    """The URL of a SQLite store at ``database`` at the newest migration (a copy of the
    process's migrated template, not a migration from zero)."""
    url = f"sqlite:///{database}"
    ensure_sqlite_at_head(url)
    return url


def _host(settings: Settings, name: str, shared: Path | None, db: str) -> Settings:
    update: dict[str, object] = {"data_dir": settings.resolved_data_dir().parent / name,
                                 "database_url": db, "object_store_sync_seconds": 0}  # fmt: skip
    if shared is not None:
        update["object_store"] = f"file://{shared}"
    return settings.model_copy(update=update)


def test_two_data_dirs_share_inbox_vectors_and_answers(
    tmp_settings: Settings, tmp_path: Path, wordllama: WordLlamaEmbedder
) -> None:
    shared = tmp_path / "objects"
    db = _at_head(tmp_path / "one.sqlite3")
    a = app_library(_host(tmp_settings, "a", shared, db), embedder=wordllama)
    # a PDF in A's inbox from before the store was shared: stored on A's first look
    write_pdf(a.inbox / "cameras.pdf", [TEXT])
    assert a.shelf.shared and a.corpus().names() == ["cameras.pdf"]
    assert (shared / "library" / "inbox" / "cameras.pdf").is_file()
    assert a.index().indexed == ["cameras.pdf"]
    vectors = sorted(p.name for p in (shared / "library" / "vectors").iterdir())
    assert len(vectors) == 1 and vectors[0].endswith(".npy"), vectors

    b = app_library(_host(tmp_settings, "b", shared, db), embedder=wordllama)
    assert not (b.data_dir / "library" / "inbox").exists()
    # A's upload is listed at once (as arriving until the copier thread has brought it:
    # a listing never waits for a copy), then fetched from the store
    first = b.corpus()
    assert sorted(first.names() + [name for name, _ in first.arriving]) == ["cameras.pdf"]
    assert b.wait_for_copies(timeout=120)
    assert b.corpus().names() == ["cameras.pdf"]
    found = b.retrieve("How was the water level measured?")  # hashes it: indexed already
    assert found.hits and found.hits[0].file == "cameras.pdf", found.warnings
    assert "time-lapse cameras" in found.hits[0].text
    assert [p.name for p in (b.data_dir / "library" / "vectors").iterdir()] == vectors
    assert b.index().indexed == []  # A's index serves B: nothing made again
    a.close()
    b.close()


def test_default_store_is_the_data_dir_and_copies_nothing(
    tmp_settings: Settings, make_pdf: Callable[[Path, list[str]], Path]
) -> None:
    home = tmp_settings.resolved_data_dir()
    shelf = Shelf(LocalObjects(home, max_bytes=10_000_000), home, inbox=home / "library" / "inbox")
    assert not shelf.shared
    pdf = make_pdf(home / "library" / "inbox" / "x.pdf", ["text"])
    shelf.publish(pdf)
    shelf.sync(pdf.parent)
    shelf.write_text(home / "library" / "chat-sessions" / "s" / "state.json", "{}")
    files = sorted(p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file())
    assert "library/inbox/x.pdf" in files and "library/chat-sessions/s/state.json" in files
    assert not [f for f in files if f.startswith("library/inbox/.") or ".part" in f]
    assert Library(tmp_settings, store=None, models=None).shelf.shared is False  # type: ignore[arg-type]


def test_shelf_documents_sync_interval_and_push(tmp_path: Path) -> None:
    now = [100.0]
    store = LocalObjects(tmp_path / "store", max_bytes=1_000_000)
    one = Shelf(store, tmp_path / "one", sync_seconds=5, monotonic=lambda: now[0])
    two = Shelf(store, tmp_path / "two", inbox=tmp_path / "elsewhere", sync_seconds=5)
    state = tmp_path / "one" / "library" / "chat-sessions" / "abc" / "state.json"
    one.write_text(state, '{"rounds": [1]}')
    assert not state.exists()  # a shared document lives in the store only
    other = tmp_path / "two" / "library" / "chat-sessions" / "abc" / "state.json"
    assert two.read_text(other) == '{"rounds": [1]}'
    assert two.names(other.parent, "*.json") == ["state.json"]
    two.delete(other)
    assert one.read_text(state) is None and one.names(state.parent) == []

    inbox_one = tmp_path / "one" / "library" / "inbox"
    one.sync(inbox_one)  # nothing yet; the next listing waits 5 s
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "p.pdf").write_bytes(b"%PDF-1")  # two's inbox is its own folder
    two.sync(tmp_path / "elsewhere")
    assert two.key(tmp_path / "elsewhere" / "p.pdf") == "library/inbox/p.pdf"
    one.sync(inbox_one)
    assert not (inbox_one / "p.pdf").exists()  # within the interval: not listed again
    now[0] += 5
    one.sync(inbox_one)
    assert (inbox_one / "p.pdf").read_bytes() == b"%PDF-1"
    (tmp_path / "elsewhere" / "p.pdf").write_bytes(b"%PDF-changed")
    two.sync(tmp_path / "elsewhere", force=True)  # the store keeps its own (store wins)
    assert (tmp_path / "elsewhere" / "p.pdf").read_bytes() == b"%PDF-1"

    old = tmp_path / "one" / "reports" / "web" / "b1"
    old.mkdir(parents=True)
    (old / "r_synthesis_report_1.html").write_text("<html>")
    (old / ".hidden").write_text("x")
    assert one.push(tmp_path / "one" / "reports" / "web") == 1
    assert one.push(tmp_path / "one" / "reports" / "web") == 0
    assert [o.key for o in store.list("reports/")] == ["reports/web/b1/r_synthesis_report_1.html"]


def test_an_upload_the_store_refuses_leaves_the_inbox(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    """A PDF over the object store's byte limit is refused (the others of the request are
    stored) and leaves nothing in the inbox; an object store that does not answer (nothing
    listens on its port) refuses the upload with its typed error, nothing kept."""
    from tests.faces.web._server import free_port

    from litdesk.services.app import open_app_sync
    from litdesk.services.library import Upload, UploadRequest

    small = write_pdf(tmp_path / "small.pdf", [TEXT]).read_bytes()
    big = b"%PDF-1.7\n" + b"0" * 1_100_000
    limited = tmp_settings.model_copy(
        update={
            "object_store": f"file://{tmp_path / 'objects'}",
            "object_store_max_bytes": 1_000_000,
        }
    )
    with open_app_sync(limited) as app:
        files = (Upload("big.pdf", io.BytesIO(big)), Upload("small.pdf", io.BytesIO(small)))
        report = app.library.upload(UploadRequest(files), owner="local")
        inbox = app.pdfs.inbox
    assert [r["code"] for r in report.refused] == ["object_too_large"], report.refused
    assert "big.pdf" in report.refused[0]["message"]
    assert [s.file for s in report.stored] == ["small.pdf"]
    assert sorted(p.name for p in inbox.iterdir() if not p.name.startswith(".")) == ["small.pdf"]
    assert [p.name for p in (tmp_path / "objects" / "library" / "inbox").iterdir()] == ["small.pdf"]

    down = tmp_settings.model_copy(
        update={
            "object_store": "s3://bucket/lab",
            "object_store_endpoint": f"http://127.0.0.1:{free_port()}",
            "object_store_access_key": SecretStr("k"),
            "object_store_secret_key": SecretStr("s"),
            "object_store_timeout": 2.0,
            "data_dir": tmp_path / "down",
        }
    )
    with open_app_sync(down) as app:
        with pytest.raises(ObjectStoreError) as got:
            app.library.upload(UploadRequest((Upload("up.pdf", io.BytesIO(small)),)), owner="local")
        assert "object store" in got.value.message and "127.0.0.1" not in got.value.message
        assert not (app.pdfs.inbox / "up.pdf").exists()
