"""Several hosts (issue 29), the last gaps of the shared PDFs: a folder removed with
``litdesk library remove`` takes its PDFs out of the shared object store unless another
folder (of this host or another) or another name holds the same content, and every other
host drops its copies at its next listing; a listing never waits for copies (they arrive in
the background and are shown as arriving meanwhile).

Three hosts (separate data directories) on one store — SQLite or PostgreSQL — and one
object store: a ``file://`` folder, or an S3-compatible server (moto's server mode on
loopback)."""

from __future__ import annotations

import hashlib
import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr
from tests._object_server import s3_server
from tests._store_template import ensure_sqlite_at_head
from tests.services.library.conftest import write_pdf

from litdesk import Settings
from litdesk.adapters.objects import ObjectInfo, ObjectStore
from litdesk.services.app import App, open_app_sync
from litdesk.services.library import (
    LibraryPageRequest,
    PageRequest,
    PdfNotInLibrary,
    UploadRequest,
)
from litdesk.services.library._uploads import Upload

TEXT = "Water level was measured with time-lapse cameras mounted on two bridges. " * 12


def _at_head(database: Path) -> str:
    """The URL of a SQLite store at ``database`` at the newest migration (a copy of the
    process's migrated template, not a migration from zero)."""
    url = f"sqlite:///{database}"
    ensure_sqlite_at_head(url)
    return url


@pytest.fixture(params=["sqlite-file", "postgres-file", "postgres-s3"])
def hosts(
    request: pytest.FixtureRequest, tmp_settings: Settings, tmp_path: Path
) -> Iterator[dict[str, Settings]]:
    """The settings of hosts ``a``, ``b`` and ``c``: one store, one object store."""
    db_kind, store_kind = request.param.split("-")
    db = (
        _at_head(tmp_path / "one.sqlite3")
        if db_kind == "sqlite"
        else str(request.getfixturevalue("pg_schema"))
    )

    def made(objects: dict[str, object]) -> dict[str, Settings]:
        return {
            name: tmp_settings.model_copy(
                update={
                    "data_dir": tmp_path / f"data-{name}",
                    "database_url": db,
                    "object_store_sync_seconds": 0,
                    **objects,
                }
            )
            for name in ("a", "b", "c")
        }

    if store_kind == "file":
        yield made({"object_store": f"file://{tmp_path / 'objects'}"})
        return
    with s3_server() as s3:
        given = s3.settings(prefix=tmp_path.name)  # moto's buckets outlive its server
        for key in ("object_store_access_key", "object_store_secret_key"):
            given[key] = SecretStr(str(given[key]))
        given["object_store_sync_seconds"] = 0
        yield made(given)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stored(app: App) -> list[str]:
    """The shared PDFs in the object store as ``sha[:8]/name``."""
    keys = [o.key for o in app.pdfs.shelf.objects.list("library/pdfs/")]
    return sorted(f"{k.split('/')[2][:8]}/{k.split('/')[3]}" for k in keys)


def _listed(app: App) -> list[tuple[str, str]]:
    """The library's PDFs on this host as (name, origin), after its copies arrived."""
    app.library.status(owner=app.owner)
    assert app.pdfs.wait_for_copies(timeout=120)
    return sorted((r["file"], r["origin"]) for r in app.library.status(owner=app.owner).files)


def _copies(app: App) -> list[str]:
    return sorted(p.name for p in (app.pdfs.root / "pdfs").rglob("*.pdf"))


def test_a_removed_folder_leaves_the_store_unless_other_folders_hold_its_content(
    hosts: dict[str, Settings], tmp_path: Path
) -> None:
    one, two, on_b = tmp_path / "a-one", tmp_path / "a-two", tmp_path / "b-own"
    p = write_pdf(one / "a.pdf", ["Paper P about river cameras. " * 20]).read_bytes()
    q = write_pdf(one / "b.pdf", ["Paper Q about soil samples. " * 20]).read_bytes()
    r = write_pdf(one / "r.pdf", ["Paper R only in folder one. " * 20]).read_bytes()
    (two / "c.pdf").parent.mkdir()
    (two / "c.pdf").write_bytes(q)  # Q again, in A's other folder, under another name
    (on_b / "d.pdf").parent.mkdir()
    (on_b / "d.pdf").write_bytes(p)  # P again, in B's own folder
    sp, sq, sr = _sha(p)[:8], _sha(q)[:8], _sha(r)[:8]

    with (
        open_app_sync(hosts["a"]) as a,
        open_app_sync(hosts["b"]) as b,
        open_app_sync(hosts["c"]) as c,
    ):
        assert a.library.add_source(one, owner=a.owner).shared == 3
        assert a.library.add_source(two, owner=a.owner).shared == 1
        assert b.library.add_source(on_b, owner=b.owner).shared == 1
        # another account's upload of P's content on A: the inbox's own object
        up = UploadRequest((Upload("uploaded-p.pdf", io.BytesIO(p)),))
        assert len(a.library.upload(up, owner="ana").stored) == 1
        assert _stored(a) == sorted([f"{sp}/a.pdf", f"{sp}/d.pdf", f"{sq}/b.pdf",
                                     f"{sq}/c.pdf", f"{sr}/r.pdf"])  # fmt: skip
        everything = ["a.pdf", "b.pdf", "c.pdf", "d.pdf", "r.pdf", "uploaded-p.pdf"]
        assert [n for n, _o in _listed(c)] == everything
        assert _copies(c) == ["a.pdf", "b.pdf", "c.pdf", "d.pdf", "r.pdf"]

        change = a.library.remove_source(one, owner=a.owner)
        # a.pdf's and b.pdf's names are no folder's any more; their content stays (d.pdf on
        # B, c.pdf in A's other folder); R is nobody's: gone from the store
        assert change.to_dict() == {"path": str(one), "removed": True, "unshared": 3}
        assert _stored(a) == sorted([f"{sp}/d.pdf", f"{sq}/c.pdf"])
        assert [n for n, _o in _listed(c)] == ["c.pdf", "d.pdf", "uploaded-p.pdf"]
        assert _copies(c) == ["c.pdf", "d.pdf"]  # C dropped its copies
        assert not (c.pdfs.root / "pdfs" / _sha(r)).exists()
        # A no longer holds P in a folder of its own: B's copy of it comes to A
        assert _listed(a) == [("c.pdf", "added"), ("d.pdf", "shared"),
                              ("uploaded-p.pdf", "inbox")]  # fmt: skip
        assert _listed(b) == [("c.pdf", "shared"), ("d.pdf", "added"),
                              ("uploaded-p.pdf", "inbox")]  # fmt: skip
        with pytest.raises(PdfNotInLibrary):  # R asked for by its hash: in no library
            c.library.page(PageRequest(_sha(r)), owner=c.owner)

        # the last folder holding Q goes: Q leaves the store and every host
        assert a.library.remove_source(two, owner=a.owner).to_dict()["unshared"] == 1
        assert _stored(a) == [f"{sp}/d.pdf"]
        assert [n for n, _o in _listed(c)] == ["d.pdf", "uploaded-p.pdf"]
        assert not (c.pdfs.root / "pdfs" / _sha(q)).exists()
        # B's folder goes too: only the upload is left, on every host
        assert b.library.remove_source(on_b, owner=b.owner).to_dict()["unshared"] == 1
        assert _stored(a) == []
        for host in (a, b, c):
            assert _listed(host) == [("uploaded-p.pdf", "inbox")]
            assert _copies(host) == []


class _Gated:
    """An object store whose reads of PDFs wait until the test opens the gate (a store
    far away, or a large library: copies that take longer than any page may wait)."""

    def __init__(self, inner: ObjectStore, held: str = "library/pdfs/") -> None:
        self.inner, self.held = inner, held
        self.gate = threading.Event()
        self.waiting = 0

    def describe(self) -> str:
        return self.inner.describe()

    def put(self, key: str, data: bytes) -> None:
        self.inner.put(key, data)

    def get(self, key: str) -> bytes:
        if key.startswith(self.held):
            self.waiting += 1
            assert self.gate.wait(120), "the test never opened the gate"
        return self.inner.get(key)

    def list(self, prefix: str = "") -> list[ObjectInfo]:
        return self.inner.list(prefix)

    def delete(self, key: str) -> None:
        self.inner.delete(key)

    def close(self) -> None:
        self.inner.close()


def test_a_listing_never_waits_for_copies_they_arrive_in_the_background(
    hosts: dict[str, Settings], tmp_path: Path
) -> None:
    folder = tmp_path / "a-papers"
    pdfs = [write_pdf(folder / f"p{n}.pdf", [f"Paper {n}. {TEXT}"]) for n in range(4)]
    with open_app_sync(hosts["a"]) as a:
        assert a.library.add_source(folder, owner=a.owner).shared == 4
    with open_app_sync(hosts["b"]) as b:
        gated = _Gated(b.pdfs.shelf.objects)
        b.pdfs.shelf.objects = gated
        try:
            start = time.monotonic()
            view = b.library.view(LibraryPageRequest(), owner=b.owner)
            status = b.library.status(owner=b.owner)
            took = time.monotonic() - start
            # two listings while every copy is stuck: both answer at once, honestly
            assert took < 5, took
            deadline = time.monotonic() + 30
            while not gated.waiting and time.monotonic() < deadline:
                time.sleep(0.05)
            assert gated.waiting == 1  # the copier is at its first file, the pages are not
            assert view.total == 0 and view.files == []
            names = sorted(p.name for p in pdfs)
            assert [r["file"] for r in view.arriving] == names
            assert view.to_dict()["arriving"] == [
                {"file": p.name, "sha256": _sha(p.read_bytes())} for p in pdfs
            ]
            assert sorted(r["file"] for r in status.arriving) == names
        finally:
            gated.gate.set()
        assert b.pdfs.wait_for_copies(timeout=120)
        view = b.library.view(LibraryPageRequest(), owner=b.owner)
        assert (view.total, view.arriving) == (4, [])
        assert sorted(f["file"] for f in view.files) == sorted(p.name for p in pdfs)
        assert {f["origin"] for f in view.files} == {"shared"}


def test_other_hosts_uploads_arrive_in_the_background_a_listing_never_waits(
    hosts: dict[str, Settings], tmp_path: Path
) -> None:
    pdfs = [write_pdf(tmp_path / "up" / f"u{n}.pdf", [f"Upload {n}. {TEXT}"]) for n in range(3)]
    with open_app_sync(hosts["a"]) as a:
        up = UploadRequest(tuple(Upload(p.name, io.BytesIO(p.read_bytes())) for p in pdfs))
        assert len(a.library.upload(up, owner="ana").stored) == 3
    with open_app_sync(hosts["b"]) as b:
        gated = _Gated(b.pdfs.shelf.objects, held="library/inbox/")
        b.pdfs.shelf.objects = gated
        inbox = b.pdfs.inbox
        try:
            start = time.monotonic()
            view = b.library.view(LibraryPageRequest(), owner=b.owner)
            status = b.library.status(owner=b.owner)
            took = time.monotonic() - start
            # two listings while every download is stuck: both answer at once, honestly
            assert took < 5, took
            deadline = time.monotonic() + 30
            while not gated.waiting and time.monotonic() < deadline:
                time.sleep(0.05)
            assert gated.waiting == 1  # the copier is at its first upload, the pages are not
            names = sorted(p.name for p in pdfs)
            assert view.total == 0 and view.files == []
            assert view.to_dict()["arriving"] == [{"file": n, "sha256": None} for n in names]
            assert sorted(r["file"] for r in status.arriving) == names
            # an upload here of a name on its way is refused, as one already here would be
            again = UploadRequest((Upload(names[0], io.BytesIO(pdfs[0].read_bytes())),))
            refused = b.library.upload(again, owner="ben").refused
            assert [r["code"] for r in refused] == ["name_exists"], refused
        finally:
            gated.gate.set()
        assert b.pdfs.wait_for_copies(timeout=120)
        view = b.library.view(LibraryPageRequest(), owner=b.owner)
        assert (view.total, view.arriving) == (3, [])
        assert sorted((f["file"], f["origin"]) for f in view.files) == [(n, "inbox") for n in names]
        assert all((inbox / p.name).read_bytes() == p.read_bytes() for p in pdfs)
