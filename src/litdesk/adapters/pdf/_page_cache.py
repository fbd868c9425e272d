"""A small per-process cache of PDF page texts by the SHA-256 of the PDF's bytes.

Recording evidence from a PDF page reads the PDF's bytes (to check they are the bytes the
library named) and, before this cache, parsed every page's text again for each check.
The bytes are still read and hashed every time; only the text of bytes already parsed is
reused, so the text always belongs to exactly the file just read. Bounded both ways: at
most :data:`MAX_PDFS` PDFs and :data:`MAX_CHARS` characters of text in all (a str holds
at most 4 bytes a character), least recently used first out; a PDF whose text alone is
over the character bound is not kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Final

__all__ = ["MAX_CHARS", "MAX_PDFS", "PAGE_TEXTS", "PageTextCache"]

MAX_PDFS: Final = 4
MAX_CHARS: Final = 8_000_000


class PageTextCache:
    """Page texts of recently read PDFs, keyed by the hex SHA-256 of their bytes (LRU)."""

    def __init__(self, max_pdfs: int = MAX_PDFS, max_chars: int = MAX_CHARS) -> None:
        self.max_pdfs = max_pdfs
        self.max_chars = max_chars
        self._items: OrderedDict[str, tuple[tuple[str, ...], int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, sha256: str) -> list[str] | None:
        """A fresh list of the pages' texts of the PDF with that digest, when kept."""
        with self._lock:
            found = self._items.get(sha256)
            if found is None:
                return None
            self._items.move_to_end(sha256)
            return list(found[0])

    def put(self, sha256: str, pages: Sequence[str]) -> None:
        """Keep ``pages`` as the text of the PDF with that digest (evicting the least
        recently used past either bound); not kept when over the bound alone."""
        kept = tuple(pages)
        size = sum(len(p) for p in kept)
        if size > self.max_chars or self.max_pdfs < 1:
            return
        with self._lock:
            old = self._items.pop(sha256, None)
            if old is not None:
                self._chars -= old[1]
            self._items[sha256] = (kept, size)
            self._chars += size
            while len(self._items) > self.max_pdfs or self._chars > self.max_chars:
                _, (_, freed) = self._items.popitem(last=False)
                self._chars -= freed

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._chars = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    @property
    def chars(self) -> int:
        """Characters of text kept now."""
        with self._lock:
            return self._chars


#: the process's cache (the reader's evidence checks)
PAGE_TEXTS: Final = PageTextCache()
