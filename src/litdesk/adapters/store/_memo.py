"""Stored papers and Study records parsed and validated once per stored text.

A Study's page, its working set, its PRISMA report and its exports each read the same
stored papers and Study records (3,000 of each for a 3,000-record Study, a dozen times over
a page view, a decision and its undo). Parsing and validating them was most of that time.
The memo keeps, for each stored text read, what it parses and validates to: the same text
always gives the same answer, and a :class:`Paper` is immutable, so reading the memo is
reading the store. Every text is still validated the first time it is read, and a changed
row is a new text. Bounded: past ``BUDGET`` characters of stored text it starts afresh.

A Study record's document is shared between the rows that read the same text (a shallow
copy each; the ``paper`` inside is shared): read it, never change it in place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

from litdesk.core.records import Paper, read_paper

from ._engine import load_json

__all__ = [
    "BUDGET",
    "clear_memo",
    "memoised",
    "stored_paper",
    "stored_record",
    "stored_record_paper",
]

T = TypeVar("T")

#: characters of stored text the memo covers before it starts afresh (about 3× that in
#: memory with what they parse to; a 5,000-record Study's papers and records fit)
BUDGET: Final = 24_000_000


class _Memo:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.size = 0
        self.papers: dict[str, Paper] = {}  # a papers row's text -> its paper
        self.records: dict[str, dict[str, Any]] = {}  # a study record's text -> its document
        # the ``paper`` objects of those documents (kept alive by ``records``, so their ids
        # stay theirs) -> the paper each validates to
        self.owned: dict[int, object] = {}
        self.record_papers: dict[int, Paper] = {}
        self.other: dict[tuple[str, str], object] = {}  # (kind, stored text) -> its reading

    def room(self, text: str) -> None:
        """Count ``text`` in; past the budget, start afresh."""
        with self.lock:
            self.size += len(text)
            if self.size > BUDGET:
                self._forget()
                self.size = len(text)

    def forget(self) -> None:
        with self.lock:
            self._forget()

    def _forget(self) -> None:
        self.size = 0
        self.papers.clear()
        self.records.clear()
        self.owned.clear()
        self.record_papers.clear()
        self.other.clear()


_MEMO: Final = _Memo()


def clear_memo() -> None:
    """Forget every memoised text."""
    _MEMO.forget()


def memoised(kind: str, text: str, read: Callable[[str], T]) -> T:
    """``read(text)`` of a stored document of ``kind`` (an import trace), once per text:
    ``read`` must validate and always give the same (unchanging) answer for the same text;
    what it raises is raised again at every read."""
    key = (kind, text)
    hit = _MEMO.other.get(key)
    if hit is None:
        hit = read(text)
        _MEMO.room(text)
        _MEMO.other[key] = hit
    return cast(T, hit)


def stored_paper(text: object) -> Paper:
    """``read_paper`` of a papers row's stored text (raises like it)."""
    if not isinstance(text, str):
        return read_paper(load_json(text, what="paper"))
    paper = _MEMO.papers.get(text)
    if paper is None:
        paper = read_paper(load_json(text, what="paper"))
        _MEMO.room(text)
        _MEMO.papers[text] = paper
    return paper


def stored_record(text: object) -> Any:
    """A Study record's stored document, parsed (raises like ``load_json``)."""
    if not isinstance(text, str):
        return load_json(text, what="study record")
    data = _MEMO.records.get(text)
    if data is None:
        data = load_json(text, what="study record")
        if not isinstance(data, dict):
            return data
        _MEMO.room(text)
        if isinstance(paper := data.get("paper"), dict):
            _MEMO.owned[id(paper)] = paper
        _MEMO.records[text] = data
    return dict(data)  # the row's own copy (its ``paper`` is shared)


def stored_record_paper(data: object) -> Paper:
    """``read_paper`` of a Study record's ``paper`` (once per stored text when the record
    came from :func:`stored_record`)."""
    key = id(data)
    if _MEMO.owned.get(key) is not data:
        return read_paper(data)
    paper = _MEMO.record_papers.get(key)
    if paper is None:
        paper = read_paper(data)
        if _MEMO.owned.get(key) is data:  # not forgotten meanwhile
            _MEMO.record_papers[key] = paper
    return paper
