"""The library's files: its sources on this host, the uploads' inbox, and with a shared
object store the other hosts' PDFs (copied here in the background, listed as arriving
meanwhile) — the part of :class:`~litdesk.services.library.Library` that knows where the
PDFs are, on this host and the others. The index, retrieval and answers build on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from litdesk._errors import LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.store import Store

from ._catalogue import Catalogue
from ._indexer import hash_files
from ._shared import SHARED_ORIGIN, Copier, SharedPdf, SharedPdfs, hash_rows
from ._shelf import Shelf
from ._sources import Corpus, LibraryFile, Source, add_source, discover, load_added, remove_source

__all__ = ["LibraryFiles"]


class LibraryFiles:
    """Where the library's PDFs are (see the module); :class:`Library` sets the state."""

    settings: Settings
    data_dir: Path
    root: Path
    shelf: Shelf
    shared_pdfs: SharedPdfs
    copier: Copier
    _store: Store
    _cat: Catalogue | None
    _sources_seen: tuple[tuple[Path, ...], ...] | None

    @property
    def catalogue(self) -> Catalogue:
        if self._cat is None:
            self._cat = Catalogue(self.root, self._store, shelf=self.shelf)
        return self._cat

    def known_hashes(self, files: list[LibraryFile]) -> dict[Path, str]:
        """SHA-256 of ``files`` from the hash cache only (unchanged size and mtime); files
        never hashed are left out (nothing is read)."""
        cache = self.catalogue.cached_hashes()
        out: dict[Path, str] = {}
        for f in files:
            hit = cache.get(str(f.path))
            if hit is None:
                continue
            try:
                st = f.path.stat()
            except OSError:
                continue
            if hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
                out[f.path] = hit[2]
        return out

    # --- sources --------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        """Where uploaded PDFs go: the ``inbox_dir`` setting, else ``library/inbox`` in
        the data dir."""
        return self.settings.inbox_dir or self.root / "inbox"

    def sources(self) -> list[Source]:
        """The sources in their order (earlier wins on a duplicate file name): folders and
        files added with ``library add``, the inbox (flat), the settings' folders."""
        out = [Source(p, True, "added") for p in load_added(self.data_dir)]
        if self.settings.inbox_dir is not None or self.shelf.shared or self.inbox.is_dir():
            out.append(Source(self.inbox, False, "inbox"))
        out += [Source(Path(p), True, "settings") for p in self.settings.library_dirs]
        if self.shelf.shared:  # the other hosts' folder PDFs, last (see _shared)
            out.append(Source(self.shared_pdfs.mirror, True, SHARED_ORIGIN))
        return out

    def corpus(self) -> Corpus:
        """The library's files (with a shared object store: the other hosts' uploads and
        folder PDFs this host has no copy of yet are listed as ``arriving`` and copied in
        the background, see :meth:`look_shared`; a listing never waits for a copy)."""
        if self.shelf.shared:  # this host's copies (an empty one is no missing folder)
            self.inbox.mkdir(parents=True, exist_ok=True)
            self.shared_pdfs.mirror.mkdir(parents=True, exist_ok=True)
        uploads = self.look_uploads()
        pending = self.look_shared()
        corpus = discover(self.sources())
        if pending or uploads:
            taken = set(corpus.names())
            found: list[tuple[str, str | None]] = [
                (name, sha) for sha, names in pending.items() for name in names
            ]
            found += [(name, None) for name in uploads]
            corpus.arriving = sorted(
                {(n, sha) for n, sha in found if n.lower().endswith(".pdf") and n not in taken},
                key=lambda row: (row[0], row[1] or ""),
            )
        return corpus

    def look_uploads(self) -> list[str]:
        """The other hosts' uploads (the inbox's files in the object store) this host has
        no copy of yet, by name (the store listed at most every ``object_store_sync_seconds``);
        the copier thread brings them here in the background, like :meth:`look_shared`."""
        if not self.shelf.shared:
            return []
        missing = self.shelf.look(self.inbox)
        if missing:
            _ = self.catalogue  # made here, not raced for by the copier and this thread
            self.copier.start()
        return sorted(missing)

    def _bring_uploads(self, should_stop: Callable[[], bool]) -> int:
        """The copier's part for the uploads (see :meth:`look_uploads`)."""
        return self.shelf.bring(self.inbox, should_stop=should_stop)

    def _own(self) -> set[str]:
        """The content hashes this host's own sources hold (from the hash cache)."""
        mine = [s for s in self.sources() if s.origin != SHARED_ORIGIN]
        return set(self.known_hashes(discover(mine).files).values())

    def look_shared(self) -> dict[str, list[str]]:
        """The other hosts' folder PDFs this host has no copy of yet (the store listed at
        most every ``object_store_sync_seconds``), ``{sha: [name, …]}``; a copier thread
        brings them here in the background (a page never waits for it)."""
        if not self.shelf.shared:
            return {}
        signature = (tuple(load_added(self.data_dir)), tuple(map(Path, self.settings.library_dirs)))
        if signature != self._sources_seen:  # a source removed (maybe by another process)
            self._sources_seen = signature
            self.shared_pdfs.forget_mine()
        pending = self.shared_pdfs.look(self._own)
        if pending:
            _ = self.catalogue  # made here, not raced for by the copier and this thread
            self.copier.start()
        return pending

    def wait_for_copies(self, timeout: float | None = None) -> bool:
        """Wait for the copier thread (tests, the index); whether it is done."""
        return self.copier.wait(timeout)

    def bring_shared(self) -> None:
        """Copy every PDF of the other hosts this host lacks, here and now (the index
        reads them: an index job or ``litdesk library index``, never a page)."""
        if not self.shelf.shared:
            return
        self.shared_pdfs.mirror.mkdir(parents=True, exist_ok=True)
        self.shared_pdfs.look(self._own, force=True)
        self.wait_for_copies()
        self._remember_copies(self.shared_pdfs.copy())
        self.shelf.sync(self.inbox, force=True)  # the other hosts' uploads too

    def _remember_copies(self, made: list[tuple[Path, str]]) -> None:
        if made:  # the hash was checked: never read again here
            self.catalogue.remember_hashes(hash_rows(made))

    def fetch_shared(self, sha: str) -> bool:
        """Copy the other hosts' folder PDF ``sha`` at once when this host lacks it (a page
        asks for it by its hash); whether this host holds it now — copied here, or by the
        copier thread while this call looked (it then found nothing left to copy)."""
        if not self.shelf.shared:
            return False
        made = self.shared_pdfs.sync(self._own, sha=sha)
        self._remember_copies(made)
        if made or self.shared_pdfs.holds(sha):
            return True
        # or one of the other hosts' uploads not copied yet (known by name only): now
        return bool(self.shelf.look(self.inbox)) and self.shelf.bring(self.inbox) > 0

    def share(self, files: list[LibraryFile]) -> tuple[int, list[str]]:
        """Store the PDFs of this host's folders among ``files`` (not the inbox's, not the
        copies) for the other hosts, by content hash (hashed now where never hashed); how
        many were offered and what could not be stored."""
        mine = [f for f in files if f.origin not in ("inbox", SHARED_ORIGIN)]
        if not self.shelf.shared or not mine:
            return 0, []
        hashes = hash_files(self.catalogue, mine)
        pdfs = [SharedPdf(f.path, hashes[f.path], f.name) for f in mine if f.path in hashes]
        return len(pdfs), self.shared_pdfs.publish(pdfs)

    def catch_up(self) -> None:
        """Store the index vectors and protocols this host kept before the object store was
        shared (once per process; see :meth:`Shelf.catch_up`)."""
        if self.shelf.shared:
            self.shelf.catch_up(self.catalogue.vectors_dir)
            self.shelf.catch_up(self.root / "protocols")

    def publish_upload(self, name: str) -> None:
        """Keep the PDF ``name`` just stored in the inbox for every host (the object
        store); if the store refuses it, the file leaves the inbox and the error is raised."""
        path = self.inbox / name
        try:
            self.shelf.publish(path)
        except LitdeskError:
            path.unlink(missing_ok=True)
            raise

    def add(self, path: Path) -> tuple[Path, bool]:
        """Add a folder or a PDF of this host to the sources (see :meth:`share`: with a
        shared object store its PDFs are stored for the other hosts by the caller)."""
        return add_source(self.data_dir, path)

    def remove(self, path: Path) -> tuple[Path, list[str]]:
        """Remove an added folder or PDF from the sources; with a shared object store its
        PDFs no folder of any host holds any more leave the store (every host drops its
        copy at its next listing; the same content in another folder, on this host or
        another, keeps it). The removed source and the ``sha/name`` files deleted from
        the store."""
        if not self.shelf.shared:
            return remove_source(self.data_dir, path), []
        before = self._own_pairs()
        removed = remove_source(self.data_dir, path)
        after = self._own_pairs()
        gone = self.shared_pdfs.withdraw(after, before - after)
        self._sources_seen = None
        self.shelf.forget(self.shared_pdfs.mirror)  # listed anew at the next look
        return removed, gone

    def _own_pairs(self) -> set[tuple[str, str]]:
        """``(sha, name)`` of the PDFs of this host's own folders (from the hash cache)."""
        mine = [s for s in self.sources() if s.origin not in ("inbox", SHARED_ORIGIN)]
        files = discover(mine).files
        hashes = self.known_hashes(files)
        return {(hashes[f.path], f.name) for f in files if f.path in hashes}
