"""Fields cut at the paper's bounds, said with a notice (pure).

A :class:`~litdesk.core.records.Paper` bounds its texts (a title at 4,000 characters, an
abstract at 200,000, a name or keyword at 2,000, at most 5,000 authors, keywords or
publication types) and cuts what is longer. At import the cut was silent: a 50 MB abstract
came in as its first 200,000 characters with no word of it. :func:`note_cut_fields` adds a
``truncated`` notice naming the fields and the record's first line; the raw record keeps the
whole text as evidence.

A field is taken as cut when it is exactly at its bound and the raw record is longer than
the bound (a shorter record cannot have held a longer field); the notice says "at the
bounds", as a field exactly at one (litdesk's own export of a cut field) reads the same.
"""

from __future__ import annotations

from typing import Final

from litdesk.core.records._paper import MAX_ABSTRACT, MAX_AUTHORS, MAX_TITLE

from ._trace import Notice, RecordTrace

__all__ = ["MAX_NAME", "note_cut_fields"]

#: One author, keyword or publication type (the paper's bound on each name).
MAX_NAME: Final = 2_000
#: The smallest bound: a record whose raw text is not longer cannot have been cut.
_SMALLEST: Final = MAX_NAME


def _cut(record: RecordTrace, size: int) -> list[str]:
    paper = record.paper
    out: list[str] = []
    if size > MAX_TITLE and len(paper.title) == MAX_TITLE:
        out.append(f"title ({MAX_TITLE:,} characters)")
    if size > MAX_ABSTRACT and paper.abstract is not None and len(paper.abstract) == MAX_ABSTRACT:
        out.append(f"abstract ({MAX_ABSTRACT:,} characters)")
    for name in ("authors", "keywords", "publication_types"):
        values: tuple[str, ...] = getattr(paper, name)
        label = name.replace("_", " ")
        if len(values) == MAX_AUTHORS:
            out.append(f"{label} ({MAX_AUTHORS:,} of them)")
        long = sum(1 for v in values if len(v) == MAX_NAME)
        if long:
            one = label[:-1] if long == 1 else label
            out.append(f"{long:,} {one} ({MAX_NAME:,} characters)")
    return out


def note_cut_fields(record: RecordTrace) -> RecordTrace:
    """``record`` with a ``truncated`` notice when a field of its paper was cut at its bound."""
    size = record.raw_size
    if size <= _SMALLEST:
        return record
    fields = _cut(record, size)
    if not fields:
        return record
    note = Notice(
        "truncated",
        f"at litdesk's bounds (a longer field is cut there): {', '.join(fields)}; "
        "the raw record keeps the whole text",
        line=record.first_line,
    )
    return record.replace(notices=(*record.notices, note))
