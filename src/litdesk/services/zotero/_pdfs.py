"""A Zotero attachment's PDF into the PDF library, attached to its paper.

The files stay where Zotero keeps them: each usable PDF gets a link (a symbolic link; a
copy where links cannot be made) in ``<data dir>/library/zotero/<library>/``, one folder
the import adds to the library's sources once, named ``<attachment key> <file name>`` so
two Zotero files of one name never shadow each other. The file's SHA-256 goes into the
library's hash cache and the paper's record is adopted for it (lookup ``zotero:<library>:
<item key>``), so the library page shows the PDF with its paper and its Studies; each
placed PDF is then attached to its paper in the paper's Studies without a PDF for it
(``how`` ``zotero``), as ``library attach`` does — the Study's PDFs and full text, its
screening cards and PRISMA's reports sought count it."""

from __future__ import annotations

import filecmp
import os
import shutil
from pathlib import Path
from typing import Final

from litdesk.adapters.pdf import file_sha256
from litdesk.adapters.zotero import FULL_TEXT_CACHE
from litdesk.core.records import Paper
from litdesk.services.library import Library, LibraryFile

__all__ = ["PdfPlacer"]

MAX_NAME: Final = 150


def _link(source: Path | None, target: Path) -> None:
    """``target`` a link to ``source`` (``None``: no such file any more, removed)."""
    if target.is_symlink() or target.exists():
        if source is not None and target.is_symlink() and Path(os.readlink(target)) == source:
            return
        target.unlink()
    if source is None:
        return
    try:
        target.symlink_to(source)
    except OSError:
        shutil.copyfile(source, target)


def _detail(attachment_key: str) -> str:
    return f"Zotero attachment {attachment_key}"


def _slug(library: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in library)


class PdfPlacer:
    """Places one import's PDFs (see the module docstring)."""

    def __init__(self, pdfs: Library, library: str) -> None:
        self.pdfs = pdfs
        self.folder = pdfs.root / "zotero" / _slug(library)
        self.library = library
        self._hashes: list[tuple[str, int, int, str]] = []
        self._known = False
        #: linked files not stored for the other hosts (a shared object store), why
        self.problems: list[str] = []
        #: each placed name's item (key, title)
        self.items: dict[str, tuple[str, str]] = {}
        #: files linked by this import that were not linked from the same source before
        self.new = 0
        #: every placed PDF with its paper: ``(sha256, name, paper id, detail)``
        self.placed: list[tuple[str, str, str, str]] = []
        self._cached: dict[str, tuple[int, int, str]] | None = None

    def _sha(self, target: Path) -> str:
        """The file's SHA-256: from the library's hash cache when its size and time are
        those hashed (a file linked before), else read."""
        if self._cached is None:
            self._cached = self.pdfs.catalogue.cached_hashes()
        st = target.stat()
        size, mtime, sha = self._cached.get(str(target), (-1, -1, ""))
        return sha if (size, mtime) == (st.st_size, st.st_mtime_ns) and sha else file_sha256(target)

    def place(
        self,
        source: Path,
        attachment_key: str,
        item_key: str,
        paper: Paper,
        *,
        fresh: bool,
        full_text: Path | None = None,
    ) -> str:
        """Link ``source`` into the folder and adopt ``paper`` for it; returns the name the
        library knows it by. Not ``fresh`` (the item is unchanged since the last import) and
        already linked to ``source``: nothing to do. ``full_text``: Zotero's extracted text
        of the file, linked beside it (``<name>.zotero-ft-cache``): the library indexes a
        PDF without a text layer from it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{attachment_key} {source.name}"
        if len(name) > MAX_NAME:
            name = f"{attachment_key} {source.stem[: MAX_NAME - 20]}.pdf"
        target = self.folder / name
        self.items[name] = (item_key, paper.title)
        _link(full_text, target.with_name(name + FULL_TEXT_CACHE))
        there = False  # attached before: linked to ``source`` (or a copy of its bytes)
        if target.is_symlink() or target.exists():
            linked = target.is_symlink() and Path(os.readlink(target)) == source
            there = linked or (
                not target.is_symlink() and filecmp.cmp(target, source, shallow=False)
            )
            if linked and not fresh:
                self._known = True
                self.placed.append((self._sha(target), name, paper.id, _detail(attachment_key)))
                return name
            if not linked:
                target.unlink()
        self.new += 0 if there else 1
        if not target.exists():
            try:
                target.symlink_to(source)
            except OSError:
                shutil.copyfile(source, target)
        sha = file_sha256(target)
        st = target.stat()
        self._hashes.append((str(target), st.st_size, st.st_mtime_ns, sha))
        self.pdfs.catalogue.adopt(sha, paper.to_dict(), f"zotero:{self.library}:{item_key}")
        self.placed.append((sha, name, paper.id, _detail(attachment_key)))
        return name

    def finish(self) -> None:
        """Remember the hashes and make the folder a library source (once)."""
        if not self._hashes and not self._known:
            return
        self.pdfs.catalogue.remember_hashes(self._hashes)
        self.pdfs.add(self.folder)
        # with a shared object store the linked files reach the other hosts (by hash)
        placed = [LibraryFile(Path(p).name, Path(p), "added") for p, *_ in self._hashes]
        self.problems = self.pdfs.share(placed)[1]
