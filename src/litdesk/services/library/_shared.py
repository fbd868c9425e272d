"""PDFs of one host's folders, for every host: the files of folders added with ``library
add``, the Zotero import's linked attachments and the ``library_dirs`` setting live on the
disk of the host they were named on. With a shared object store each such PDF is also
stored under its content hash — ``library/pdfs/<sha256>/<name>``, with the texts the
indexer reads beside it (Zotero's extracted full text) — and the other hosts keep a copy
in ``<data dir>/library/pdfs/<sha256>/<name>``, one more source of their library
(``shared``): listed at most every ``object_store_sync_seconds`` when the library is looked
at (:meth:`SharedPdfs.look`: nothing copied there; the library copies in the background
and shows the rest as arriving), copied all at once before an index reads them, and
fetched at once when a page asks for a content hash the host does not hold yet (the
viewer, the page images, the PDF's record page).

Which host's folders hold a stored PDF is marked beside it: an empty object
``library/pdf-holders/<sha256>/<host id>/<name>`` per host and name. A host whose folder
is removed deletes its marks and every stored name no other mark holds
(:meth:`SharedPdfs.withdraw`); the other hosts delete their copies of what the store no
longer holds at their next listing.

A host never copies what its own folders hold (the same content hash); a downloaded file
whose content does not match its hash is left out (logged), never served.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from litdesk._errors import InputError, LitdeskError
from litdesk.adapters.objects import ObjectMissing, ObjectStoreError, ObjectTooLarge, check_key

from ._indexer import SIDE_TEXTS
from ._shelf import Shelf, write_atomic

log = logging.getLogger(__name__)

__all__ = ["COPY_BUDGET", "SHARED_ORIGIN", "Copier", "SharedPdf", "SharedPdfs", "hash_rows"]

#: the origin of the shared copies among the library's sources
SHARED_ORIGIN: Final = "shared"
#: seconds :meth:`SharedPdfs.sync` spends copying (the library's pages never copy: see
#: ``Library.look_shared``; a PDF asked for by its hash is copied at once)
COPY_BUDGET: Final = 10.0
_SHA = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class SharedPdf:
    """One PDF of a host's folder to store for the others: where it is, its content hash
    and the name the library knows it by."""

    path: Path
    sha256: str
    name: str


class SharedPdfs:
    """The ``library/pdfs/`` part of the shelf (see the module)."""

    def __init__(
        self,
        shelf: Shelf,
        mirror: Path,
        *,
        budget: float = COPY_BUDGET,
        monotonic: Callable[[], float] = time.monotonic,
        host: Callable[[], str] | None = None,
    ) -> None:
        """``host()``: this host's name among the holders (by default the mirror's data
        directory's own id, made at first use: every process of the host shares it)."""
        self.shelf = shelf
        #: seconds one listing spends copying (see :data:`COPY_BUDGET`)
        self.budget = budget
        self._monotonic = monotonic
        #: this host's copies of the other hosts' PDFs (a source of the library)
        self.mirror = mirror
        self.prefix = shelf.key(mirror) + "/"
        #: content hashes this host's own folders were found to hold (not copied; asked
        #: again only for hashes not in here, so a host's own PDFs cost no walk per listing)
        self._mine: set[str] = set()
        #: what the last listing found missing here: ``{sha: [(name, size), …]}``
        self._pending: dict[str, list[tuple[str, int]]] = {}
        self._lock = threading.Lock()
        #: ``library/pdf-holders/<sha>/<host>/<name>``: which host's folders hold a PDF
        self.holders_prefix = shelf.key(mirror.parent / "pdf-holders") + "/"
        self._host = host
        self._host_path = mirror.parent / "host-id"

    def _stored(self, sha: str | None = None) -> dict[str, list[tuple[str, int]]]:
        """The store's files by content hash: ``{sha: [(name, size), …]}`` (one listing)."""
        out: dict[str, list[tuple[str, int]]] = {}
        for o in self.shelf.objects.list(self.prefix + (f"{sha}/" if sha else "")):
            got, _, name = o.key[len(self.prefix) :].partition("/")
            if _SHA.fullmatch(got) and _safe_name(name):
                out.setdefault(got, []).append((name, o.size))
        return out

    def publish(self, pdfs: Iterable[SharedPdf]) -> list[str]:
        """Store each of ``pdfs`` the store lacks under its content hash and name (one
        listing, then one request per new file and per text beside it); what could not be
        stored, for the caller's warnings (the PDF stays this host's meanwhile; the next
        index tries again)."""
        wanted = [p for p in pdfs if _SHA.fullmatch(p.sha256)]
        if not self.shelf.shared or not wanted:
            return []
        problems: list[str] = []
        me = self.host()
        try:
            held = self._stored()
            marked = {(s, n) for s, h, n in self._holders() if h == me}
        except ObjectStoreError as exc:
            return [f"the PDFs were not stored for the other servers: {exc.message}"]
        for pdf in wanted:  # each name: a scope names PDFs by name on every host
            names = held.setdefault(pdf.sha256, [])
            try:
                if (pdf.sha256, pdf.name) not in marked:  # this host holds it (first)
                    self._hold(pdf.sha256, pdf.name)
                    marked.add((pdf.sha256, pdf.name))
                if any(n == pdf.name for n, _size in names):
                    continue
                names.append((pdf.name, 0))
                self._put(pdf)
            except (ObjectStoreError, ObjectTooLarge, InputError, OSError) as exc:
                why = exc.message if isinstance(exc, InputError | ObjectStoreError) else str(exc)
                problems.append(f"{pdf.name} was not stored for the other servers: {why}")
        return problems

    def _put(self, pdf: SharedPdf) -> None:
        folder = f"{self.prefix}{pdf.sha256}/"
        check_key(folder + pdf.name)
        for suffix in SIDE_TEXTS:  # the text the indexer reads beside it, stored first
            side = pdf.path.with_name(pdf.path.name + suffix)
            if side.is_file():
                self.shelf.objects.put(folder + pdf.name + suffix, side.read_bytes())
        self.shelf.objects.put(folder + pdf.name, pdf.path.read_bytes())

    def host(self) -> str:
        """This host's name among the holders (see the constructor)."""
        if self._host is None:
            got = _host_id(self._host_path)
            self._host = lambda: got
        return self._host()

    # --- who holds what: one empty object per (content hash, host, name) ---------------------
    def _holders(self) -> set[tuple[str, str, str]]:
        """Every ``(sha, host, name)`` a host's folders hold (one listing)."""
        out: set[tuple[str, str, str]] = set()
        for o in self.shelf.objects.list(self.holders_prefix):
            sha, _, rest = o.key[len(self.holders_prefix) :].partition("/")
            host, _, name = rest.partition("/")
            if _SHA.fullmatch(sha) and host and _safe_name(name):
                out.add((sha, host, name))
        return out

    def _hold(self, sha: str, name: str) -> None:
        key = check_key(f"{self.holders_prefix}{sha}/{self.host()}/{name}")
        self.shelf.objects.put(key, b"")

    def withdraw(self, keep: set[tuple[str, str]], gone: set[tuple[str, str]]) -> list[str]:
        """This host's folders no longer hold ``gone`` (``(sha, name)`` pairs) and still hold
        ``keep``: its marks on the others are deleted, and so is each stored file (with the
        texts beside it) no host holds any more — another host's folder, or another name
        of this host's, with the same content keeps it. The ``sha/name`` pairs deleted from
        the store (the other hosts drop their copies at their next listing)."""
        if not self.shared:
            return []
        me = self.host()
        holders = self._holders()
        mine = {(s, n) for s, h, n in holders if h == me}
        drop = (mine | gone) - keep
        for s, n in sorted(drop & mine):
            self.shelf.objects.delete(f"{self.holders_prefix}{s}/{me}/{n}")
        removed: list[str] = []
        for s in sorted({s for s, _n in drop}):
            kept = {n for s2, h, n in holders if s2 == s and h != me}
            kept |= {n for s2, n in keep if s2 == s}
            for o in self.shelf.objects.list(f"{self.prefix}{s}/"):
                name = o.key[len(self.prefix) + len(s) + 1 :]
                if _pdf_of(name) not in kept:
                    self.shelf.objects.delete(o.key)
                    if name.lower().endswith(".pdf"):
                        removed.append(f"{s}/{name}")
        self.forget_mine()  # what this host's folders hold has changed
        return removed

    @property
    def shared(self) -> bool:
        return self.shelf.shared

    def forget_mine(self) -> None:
        """Ask ``own()`` again at the next listing (this host's sources have changed)."""
        with self._lock:
            self._mine.clear()

    # --- copies of the others' PDFs ------------------------------------------------------------
    def look(self, own: Callable[[], set[str]], *, force: bool = False) -> dict[str, list[str]]:
        """What the store holds that this host has no copy of yet, by content hash (listed
        at most every ``sync_seconds`` unless ``force``; between listings: what is still
        missing of the last one); copies of what the store no longer holds are deleted
        (another host's folder was removed). Nothing is copied here (:meth:`copy`).
        ``own()``: the content hashes this host's own sources hold (asked only when
        something is missing)."""
        if not self.shelf.shared:
            return {}
        if self.shelf.due(self.mirror, force=force):
            stored = self._stored()
            self._drop_stale(stored)
            missing = {
                s: names
                for s, names in stored.items()
                if not _held(self.mirror / s, names)
            }  # fmt: skip
            with self._lock:
                mine = set(self._mine)
            if missing.keys() - mine:
                found = own() & missing.keys()
                with self._lock:
                    self._mine |= found
                mine |= found
            with self._lock:
                self._pending = {s: names for s, names in missing.items() if s not in mine}
        with self._lock:
            self._pending = {
                s: names
                for s, names in self._pending.items()
                if not _held(self.mirror / s, names)
            }  # fmt: skip
            return {s: [n for n, _size in names] for s, names in self._pending.items()}

    def copy(
        self,
        sha: str | None = None,
        *,
        should_stop: Callable[[], bool] = lambda: False,
        budget: float | None = None,
        own: Callable[[], set[str]] | None = None,
    ) -> list[tuple[Path, str]]:
        """Copy what :meth:`look` found missing (``sha``: that PDF only, listed at once;
        ``budget``: for at most that many seconds; ``should_stop``: asked between files;
        ``own()``: as for :meth:`look`, asked when ``sha`` is missing here).
        The PDFs copied: ``[(path, sha256), …]`` (a copy whose content is not its hash is
        left out, logged)."""
        if not self.shelf.shared:
            return []
        if sha is not None:
            if not _SHA.fullmatch(sha) or sha in self._mine:
                return []
            stored = self._stored(sha)
            if not stored:
                self._drop_stale(stored, only=sha)
            todo = {s: n for s, n in stored.items() if not _held(self.mirror / s, n)}
            if todo and own is not None and sha in own():  # this host's own: not copied
                with self._lock:
                    self._mine.add(sha)
                return []
        else:
            with self._lock:
                todo = dict(self._pending)
        made: list[tuple[Path, str]] = []
        start = self._monotonic()
        for s, names in sorted(todo.items()):
            if should_stop():
                break
            if budget is not None and self._monotonic() - start > budget:
                break  # the rest at the next listing
            made += self._copy_one(s, names)
            with self._lock:
                self._pending.pop(s, None)
        return made

    def holds(self, sha: str) -> bool:
        """Whether this host has a whole copy of the stored PDF ``sha`` (by this thread or
        by the copier thread: a PDF is written last, renamed into place, its hash checked)."""
        folder = self.mirror / sha
        if not _SHA.fullmatch(sha) or not folder.is_dir():
            return False
        return any(
            p.suffix.lower() == ".pdf" and not p.name.startswith(".") and p.is_file()
            for p in folder.iterdir()
        )

    def _copy_one(self, s: str, names: list[tuple[str, int]]) -> list[tuple[Path, str]]:
        made: list[tuple[Path, str]] = []
        for name, _size in sorted(names, key=lambda n: n[0].lower().endswith(".pdf")):
            path = self.mirror / s / name  # texts beside first: the PDF is then whole
            if path.is_file() and path.stat().st_size == _size:
                continue
            try:
                data = self.shelf.objects.get(f"{self.prefix}{s}/{name}")
            except (ObjectMissing, ObjectTooLarge):
                continue  # deleted meanwhile, or over the limit: not copied
            pdf = name.lower().endswith(".pdf")
            if pdf and hashlib.sha256(data).hexdigest() != s:
                log.warning("the object store's copy of %s does not match its hash", s[:12])
                continue
            write_atomic(path, data)
            if pdf:
                made.append((path, s))
        return made

    def _drop_stale(
        self, stored: dict[str, list[tuple[str, int]]], only: str | None = None
    ) -> None:
        """Delete this host's copies of files the store no longer holds (all of them, or
        those of the content hash ``only``)."""
        if not self.mirror.is_dir():
            return
        folders = [self.mirror / only] if only else list(self.mirror.iterdir())
        for folder in folders:
            if not folder.is_dir() or not _SHA.fullmatch(folder.name):
                continue
            names = {n for n, _size in stored.get(folder.name, [])}
            for path in folder.iterdir():
                if path.is_file() and not path.name.startswith(".") and path.name not in names:
                    path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty

    def sync(
        self,
        own: Callable[[], set[str]],
        *,
        force: bool = False,
        sha: str | None = None,
    ) -> list[tuple[Path, str]]:
        """:meth:`look` then :meth:`copy` within the budget (``sha``: that PDF only, at
        once); the copies made: ``[(path, sha256), …]``."""
        if sha is not None:
            if not _SHA.fullmatch(sha):
                return []
            return self.copy(sha, own=own)
        self.look(own, force=force)
        return self.copy(budget=self.budget)


class Copier:
    """The thread that copies what :meth:`SharedPdfs.look` found missing, and the other
    hosts' uploads, in the background (one per library; ``remember(made)`` is told each
    batch of PDFs copied)."""

    def __init__(
        self,
        pdfs: SharedPdfs,
        remember: Callable[[list[tuple[Path, str]]], None],
        *,
        uploads: Callable[[Callable[[], bool]], int] | None = None,
    ) -> None:
        """``uploads(should_stop)``: copies the other hosts' uploads this host lacks (the
        inbox, see ``Shelf.look``), how many; run after each batch of PDFs."""
        self._pdfs, self._remember, self._uploads = pdfs, remember, uploads
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()

    def start(self) -> None:
        """Start the thread unless it runs (or the library is closing)."""
        with self._lock:
            if self._closing.is_set() or (self._thread is not None and self._thread.is_alive()):
                return
            self._thread = threading.Thread(
                target=self._run, name="litdesk-shared-pdfs", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        try:
            while not self._closing.is_set():
                made = self._pdfs.copy(should_stop=self._closing.is_set)
                self._remember(made)
                brought = self._uploads(self._closing.is_set) if self._uploads else 0
                if not made and not brought:
                    break
        except (LitdeskError, OSError) as exc:  # tried again at the next listing
            log.warning("the other servers' PDFs were not all copied here: %s", exc)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread; whether it is done."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def close(self) -> None:
        """Stop the thread between two files (what it copied stays)."""
        self._closing.set()
        self.wait(timeout=60)
        self._closing.clear()


def hash_rows(made: list[tuple[Path, str]]) -> list[tuple[str, int, int, str]]:
    """The hash cache's rows of copies just made: ``(path, size, mtime_ns, sha256)``."""
    rows = []
    for path, got in made:
        st = path.stat()
        rows.append((str(path), st.st_size, st.st_mtime_ns, got))
    return rows


def _pdf_of(name: str) -> str:
    """The PDF a stored name is, or is a text beside."""
    for suffix in SIDE_TEXTS:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _host_id(path: Path) -> str:
    """The id kept in ``path`` (made at first use; every process of the host reads it)."""
    with contextlib.suppress(FileNotFoundError):
        got = path.read_text(encoding="utf-8").strip()
        if re.fullmatch(r"[0-9a-f]{32}", got):
            return got
    made = uuid.uuid4().hex
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{made}")
    try:
        tmp.write_text(made, encoding="utf-8")
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)  # whole or not at all; another process's first one wins
    finally:
        tmp.unlink(missing_ok=True)
    return path.read_text(encoding="utf-8").strip()


def _safe_name(name: str) -> bool:
    """A file name the mirror may hold: one path part, not hidden, a safe key."""
    if not name or "/" in name or name.startswith("."):
        return False
    try:
        check_key(name)
    except InputError:
        return False
    return True


def _held(folder: Path, names: list[tuple[str, int]]) -> bool:
    """Whether ``folder`` has each of ``names`` at its size."""
    for name, size in names:
        try:
            if (folder / name).stat().st_size != size:
                return False
        except OSError:
            return False
    return True
