"""The shelf: the files users need, kept in the object store and worked on in local folders.

Every file the library and its reports write — uploaded PDFs in the inbox, index vectors,
chat sessions, built reports — has a local path under the data directory (or the
``inbox_dir`` setting) and a key in the object store: the path relative to the data
directory (the inbox's files: ``library/inbox/<name>``). With the default object store (the
data directory itself) the two are one file and the shelf does nothing more. With a shared
store (``s3://…`` or another folder) the store is the record and the local folders are each
host's working copy: a write goes to both, a read of a missing file fetches it, a folder's
listing (the inbox, a report's build) brings in what another host stored, and a small JSON
document (a chat's state and rounds) is read from the store itself, so every host sees the
latest one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from litdesk.adapters.objects import LocalObjects, ObjectMissing, ObjectStore, ObjectStoreError

log = logging.getLogger(__name__)

__all__ = ["Shelf", "write_atomic"]

#: (store, folder) pairs whose local files this process has pushed (:meth:`Shelf.catch_up`)
_CAUGHT_UP: set[tuple[str, str]] = set()
_CAUGHT_UP_LOCK = threading.Lock()


class Shelf:
    """Local paths ↔ object keys for one data directory (see the module's doc)."""

    def __init__(
        self,
        objects: ObjectStore,
        home: Path,
        *,
        inbox: Path | None = None,
        sync_seconds: float = 2.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.objects, self.home = objects, home
        self._roots: list[tuple[Path, str]] = []
        if inbox is not None:
            self._roots.append((inbox, "library/inbox"))
        self._roots.append((home, ""))
        #: whether the store is somewhere else than the data directory (else: no copies)
        self.shared = not (isinstance(objects, LocalObjects) and _same(objects.root, home))
        self.sync_seconds = sync_seconds
        self._monotonic = monotonic
        self._synced: dict[Path, float] = {}
        #: what the last :meth:`look` at a folder found missing here: ``{name: size}``
        self._missing: dict[Path, dict[str, int]] = {}
        self._lock = threading.Lock()

    def key(self, path: Path) -> str:
        """The object key of the local ``path``."""
        for root, prefix in self._roots:
            if _inside(path, root):
                rel = path.relative_to(root).as_posix()
                if rel == ".":
                    return prefix
                return f"{prefix}/{rel}" if prefix else rel
        raise ValueError(f"{path} is not under the data directory")

    # --- whole files ----------------------------------------------------------------------
    def publish(self, path: Path) -> None:
        """Store the local file ``path`` (just written) for every host."""
        if self.shared:
            self.objects.put(self.key(path), path.read_bytes())

    def fetch(self, path: Path) -> bool:
        """Make sure ``path`` is here, from the store when another host wrote it; whether
        it is."""
        if path.is_file():
            return True
        if not self.shared:
            return False
        try:
            data = self.objects.get(self.key(path))
        except ObjectMissing:
            return False
        write_atomic(path, data)
        return True

    def due(self, folder: Path, *, force: bool = False) -> bool:
        """Whether ``folder`` is to be listed in the store now: not in the last
        ``sync_seconds`` (or ``force``); a yes counts as the listing."""
        now = self._monotonic()
        with self._lock:
            last = self._synced.get(folder)
            if not force and last is not None and now - last < self.sync_seconds:
                return False
            self._synced[folder] = now
        return True

    def forget(self, folder: Path) -> None:
        """List ``folder`` again at the next :meth:`due` (it changed here)."""
        with self._lock:
            self._synced.pop(folder, None)

    def sync(self, folder: Path, *, force: bool = False) -> None:
        """Bring the files of ``folder`` (not its sub-folders) up to the store's: download
        those missing here or of another size, store those only here (written before the
        store was shared). Listed at most once per ``sync_seconds`` per folder unless
        ``force`` (:meth:`look`); what is missing is downloaded now (:meth:`bring`)."""
        self.look(folder, force=force)
        self.bring(folder)

    def look(self, folder: Path, *, force: bool = False) -> dict[str, int]:
        """The files of ``folder`` (not its sub-folders) the store holds and this host has
        not (or at another size), ``{name: size}``: listed at most once per
        ``sync_seconds`` unless ``force`` (between listings, what is still missing of the
        last one); nothing is downloaded here (:meth:`bring`). The files only here are
        stored (written before the store was shared)."""
        if not self.shared:
            return {}
        if self.due(folder, force=force):
            prefix = self.key(folder) + "/"
            remote = {
                o.key[len(prefix) :]: o.size
                for o in self.objects.list(prefix)
                if "/" not in o.key[len(prefix) :]
            }
            local = {
                p.name: p.stat().st_size
                for p in (folder.iterdir() if folder.is_dir() else ())
                if p.is_file() and not p.name.startswith(".")
            }
            for name in local.keys() - remote.keys():
                self.objects.put(prefix + name, (folder / name).read_bytes())
            missing = {n: size for n, size in remote.items() if local.get(n) != size}
            with self._lock:
                self._missing[folder] = missing
        with self._lock:
            still = {
                n: size
                for n, size in self._missing.get(folder, {}).items()
                if not _at_size(folder / n, size)
            }  # fmt: skip
            self._missing[folder] = still
            return dict(still)

    def bring(self, folder: Path, *, should_stop: Callable[[], bool] = lambda: False) -> int:
        """Download what :meth:`look` found missing in ``folder`` (``should_stop``: asked
        between files); how many files were written."""
        with self._lock:
            todo = sorted(self._missing.get(folder, {}))
        prefix = self.key(folder) + "/"
        done = 0
        for name in todo:
            if should_stop():
                break
            with contextlib.suppress(ObjectMissing):  # deleted meanwhile
                write_atomic(folder / name, self.objects.get(prefix + name))
                done += 1
            with self._lock:
                self._missing.get(folder, {}).pop(name, None)
        return done

    # --- small documents read from the store --------------------------------------------
    def read_text(self, path: Path) -> str | None:
        """The text of ``path`` as the store has it (the local file: the default store);
        ``None`` when there is none."""
        if not self.shared:
            return path.read_text(encoding="utf-8") if path.is_file() else None
        try:
            return self.objects.get(self.key(path)).decode("utf-8")
        except ObjectMissing:
            return None

    def write_text(self, path: Path, text: str) -> None:
        """Write ``path``: in the store when shared (no copy here: it is always read from
        the store), else here (atomically)."""
        data = text.encode("utf-8")
        if self.shared:
            self.objects.put(self.key(path), data)
        else:
            write_atomic(path, data)

    def catch_up(self, folder: Path) -> None:
        """:meth:`push` ``folder`` once per process (at the server's start, else at the
        folder's first use): what this host kept there before the store was shared reaches
        the store before this process reads the folder from it, and later uses cost no
        listing. A store that does not answer is tried again at the next use."""
        if not self.shared:
            return
        mark = (self.objects.describe(), str(folder))
        with _CAUGHT_UP_LOCK:
            if mark in _CAUGHT_UP:
                return
        if self.push(folder) is not None:
            with _CAUGHT_UP_LOCK:
                _CAUGHT_UP.add(mark)

    def push(self, folder: Path) -> int | None:
        """Store the files under ``folder`` (sub-folders too) that the store lacks: what this
        host wrote before the store was shared; how many (``None``: the store did not
        answer; logged, and this host keeps its files meanwhile). Hidden files are left
        out."""
        if not self.shared or not folder.is_dir():
            return 0
        mine = [
            p for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(x.startswith(".") for x in p.relative_to(folder).parts)
        ]  # fmt: skip
        if not mine:
            return 0
        prefix = self.key(folder) + "/"
        done = 0
        try:
            remote = {o.key for o in self.objects.list(prefix)}
            for path in mine:
                key = prefix + path.relative_to(folder).as_posix()
                if key not in remote:
                    self.objects.put(key, path.read_bytes())
                    done += 1
        except ObjectStoreError as exc:
            log.warning("files of %s not stored yet (%s): tried again at the next use",
                        prefix, exc.message)  # fmt: skip
            return None
        return done

    def delete(self, path: Path) -> None:
        """Remove ``path`` here and from the store."""
        path.unlink(missing_ok=True)
        if self.shared:
            self.objects.delete(self.key(path))

    def tree(self, folder: Path) -> list[str]:
        """The relative paths of the files under ``folder`` (the store's, when shared: one
        listing), sorted; hidden files left out."""
        if not self.shared:
            if not folder.is_dir():
                return []
            found = (p.relative_to(folder) for p in folder.rglob("*") if p.is_file())
            return sorted(
                p.as_posix() for p in found if not any(x.startswith(".") for x in p.parts)
            )
        prefix = self.key(folder) + "/"
        return sorted(o.key[len(prefix) :] for o in self.objects.list(prefix))

    def names(self, folder: Path, pattern: str = "*") -> list[str]:
        """The names of the files in ``folder`` (the store's, when shared)."""
        if not self.shared:
            return sorted(p.name for p in folder.glob(pattern) if p.is_file())
        prefix = self.key(folder) + "/"
        out = [o.key[len(prefix) :] for o in self.objects.list(prefix)]
        return sorted(n for n in out if "/" not in n and Path(n).match(pattern))


def _same(a: Path, b: Path) -> bool:
    return a.expanduser().resolve() == b.expanduser().resolve()


def _at_size(path: Path, size: int) -> bool:
    try:
        return path.stat().st_size == size
    except OSError:
        return False


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (a temporary file beside it, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
