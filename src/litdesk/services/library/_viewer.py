"""The PDF viewer of the web face: a library PDF's pages as images (rendered once per page
and zoom, kept in a byte-bounded cache) and a cited passage's character boxes on its page.

Only PDFs of the library are served: a PDF is named by its content hash, resolved against
the library's current files (never a path from the request).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.pdfpages import PageBitmap, highlight, render_page

from ._indexer import hash_files
from ._library import Library
from ._requests import DEFAULT_ZOOM, MAX_PASSAGE_CHARS, ZOOMS
from ._sources import LibraryFile

__all__ = [
    "DEFAULT_ZOOM",
    "MAX_PASSAGE_CHARS",
    "ZOOMS",
    "PageImageBytes",
    "PdfNotInLibrary",
    "PdfViewer",
    "ViewerPage",
]

DEFAULT_CACHE_BYTES: Final = 64_000_000
#: an unknown hash re-reads the library's files at most this often (seconds). The file map
#: is a cache of the data directory (shared by every worker): a PDF another worker just added
#: is found here at most this late; a changed or vanished file is re-checked on every use.
RESCAN_EVERY: Final = 1.0


class PdfNotInLibrary(NotFoundError):
    """No PDF of the library has this content hash."""

    default_code = "pdf_not_found"


@dataclass(frozen=True, slots=True)
class PageImageBytes:
    """A page image as served: JPEG bytes."""

    data: bytes
    media_type: str = "image/jpeg"


@dataclass(frozen=True, slots=True)
class ViewerPage:
    """What the viewer shows: one page of one PDF, its size, the passage's boxes."""

    sha256: str
    file: str
    page: int
    pages: int
    zoom: int
    width_px: int
    height_px: int
    rects: tuple[tuple[float, float, float, float], ...]
    passage: str | None
    found: bool
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "file": self.file,
            "page": self.page,
            "pages": self.pages,
            "zoom": self.zoom,
            "zooms": list(ZOOMS),
            "width_px": self.width_px,
            "height_px": self.height_px,
            "previous": self.page - 1 if self.page > 1 else None,
            "next": self.page + 1 if self.page < self.pages else None,
            "image": f"/library/pdf/{self.sha256}/page/{self.page}.jpg?zoom={self.zoom}",
            "rects": [list(r) for r in self.rects],
            "passage": self.passage,
            "found": self.found,
            "notes": list(self.notes),
        }


class PdfViewer:
    """Page images and highlights for the library's PDFs (thread-safe)."""

    def __init__(self, library: Library, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.library = library
        self.cache_bytes = cache_bytes
        self._lock = threading.Lock()
        self._files: dict[str, LibraryFile] = {}
        self._stats: dict[str, tuple[int, int]] = {}
        self._scanned = 0.0
        self._pages: OrderedDict[tuple[str, int, int], PageBitmap] = OrderedDict()
        self._used = 0
        #: page renders done (cache misses), for tests and the benchmark
        self.renders = 0

    # --- which file -----------------------------------------------------------------
    def _rescan(self) -> None:
        files = self.library.corpus().files
        hashes = hash_files(self.library.catalogue, files)
        found: dict[str, LibraryFile] = {}
        stats: dict[str, tuple[int, int]] = {}
        for f in files:
            sha = hashes.get(f.path)
            if sha is None or sha in found:
                continue  # unreadable, or the same content under an earlier name
            try:
                st = f.path.stat()
            except OSError:
                continue
            found[sha] = f
            stats[sha] = (st.st_size, st.st_mtime_ns)
        self._files, self._stats, self._scanned = found, stats, time.monotonic()

    def _unchanged(self, sha: str) -> bool:
        f = self._files.get(sha)
        if f is None:
            return False
        try:
            st = f.path.stat()
        except OSError:
            return False
        return self._stats.get(sha) == (st.st_size, st.st_mtime_ns)

    def resolve(self, sha: str) -> LibraryFile:
        """The library file with content hash ``sha`` (refused when there is none; with a
        shared object store, one another host stored is copied here first)."""
        with self._lock:
            if not self._unchanged(sha) and (
                sha in self._files or time.monotonic() - self._scanned >= RESCAN_EVERY
            ):
                self._rescan()
                self._drop(sha)
            f = self._files.get(sha)
        if f is None and self.library.fetch_shared(sha):  # another host's folder PDF
            with self._lock:
                self._rescan()
                f = self._files.get(sha)
        if f is None:
            raise PdfNotInLibrary("no PDF of the library has this content hash", sha=sha)
        return f

    # --- pages ----------------------------------------------------------------------
    def _drop(self, sha: str) -> None:
        for key in [k for k in self._pages if k[0] == sha]:
            self._used -= len(self._pages.pop(key).data)

    def _bitmap(self, sha: str, path: Path, page: int, zoom: int) -> PageBitmap:
        if zoom not in ZOOMS:
            raise InputError(
                f"zoom must be one of {', '.join(map(str, ZOOMS))}", code="zoom", field="zoom"
            )
        key = (sha, page, zoom)
        with self._lock:
            hit = self._pages.get(key)
            if hit is not None:
                self._pages.move_to_end(key)
                return hit
        bitmap = render_page(path, page, dpi=round(96 * zoom / 100))
        with self._lock:
            self.renders += 1
            if key not in self._pages and len(bitmap.data) <= self.cache_bytes:
                self._pages[key] = bitmap
                self._used += len(bitmap.data)
                while self._used > self.cache_bytes:
                    _, old = self._pages.popitem(last=False)
                    self._used -= len(old.data)
        return bitmap

    def page_image(self, sha: str, page: int, zoom: int = DEFAULT_ZOOM) -> PageImageBytes:
        """The JPEG of ``page`` at ``zoom`` percent (from the cache when rendered before)."""
        f = self.resolve(sha)
        return PageImageBytes(self._bitmap(sha, f.path, page, zoom).data)

    def view(
        self, sha: str, page: int = 1, *, passage: str | None = None, zoom: int = DEFAULT_ZOOM
    ) -> ViewerPage:
        """The page's view data; with ``passage`` its character boxes (page fractions)."""
        if passage is not None and len(passage) > MAX_PASSAGE_CHARS:
            raise InputError(
                f"the passage is over {MAX_PASSAGE_CHARS} characters", code="passage_too_long"
            )
        f = self.resolve(sha)
        bitmap = self._bitmap(sha, f.path, page, zoom)
        rects: tuple[tuple[float, float, float, float], ...] = ()
        found = False
        notes: tuple[str, ...] = ()
        text = " ".join(passage.split()) if passage else None
        if text:
            hl = highlight(f.path, page, text, bitmap.width_pt, bitmap.height_pt)
            rects, found, notes = hl.rects, hl.found, hl.notes
        return ViewerPage(
            sha, f.name, page, bitmap.pages, zoom, bitmap.width_px, bitmap.height_px,
            rects, text, found, notes,
        )  # fmt: skip
