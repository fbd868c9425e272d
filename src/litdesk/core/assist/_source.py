"""Bounded sources (pure): whole paragraphs only, at most ``max_chars`` characters in
total, paragraphs longer than ``max_block`` skipped; what was left out is disclosed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from litdesk.core.evidence import passage_in
from litdesk.core.words import plural

from ._errors import SourceRefused

__all__ = [
    "MAX_BLOCK_CHARS",
    "MAX_SOURCE_CHARS",
    "BoundedSource",
    "SourceBlock",
    "bound_source",
    "quote_in",
]

MAX_SOURCE_CHARS: Final = 48_000
MAX_BLOCK_CHARS: Final = 20_000


@dataclass(frozen=True, slots=True)
class SourceBlock:
    """One paragraph sent to a model: its id (``abstract``, ``p12``), section and text."""

    id: str
    section: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "section": self.section, "text": self.text}


@dataclass(frozen=True, slots=True)
class BoundedSource:
    """The blocks kept, their characters, and the disclosure of what was left out."""

    blocks: tuple[SourceBlock, ...]
    characters: int
    skipped: tuple[str, ...]  # ids of paragraphs over the per-paragraph bound
    omitted: tuple[str, ...]  # ids left out once the total bound was reached

    @property
    def truncated(self) -> bool:
        return bool(self.skipped or self.omitted)

    def block(self, block_id: str) -> SourceBlock | None:
        return next((b for b in self.blocks if b.id == block_id), None)

    def disclosure(self) -> list[str]:
        out: list[str] = []
        if self.skipped:
            out.append(
                f"{plural(len(self.skipped), 'paragraph')} over {MAX_BLOCK_CHARS:,} characters "
                f"skipped ({', '.join(self.skipped[:10])}{'…' if len(self.skipped) > 10 else ''})"
            )
        if self.omitted:
            out.append(
                f"{plural(len(self.omitted), 'paragraph')} beyond the {MAX_SOURCE_CHARS:,}-"
                f"character bound left out ({self.omitted[0]} onwards)"
            )
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "blocks": [b.to_dict() for b in self.blocks],
            "characters": self.characters,
            "truncated": self.truncated,
            "skipped": list(self.skipped),
            "omitted": list(self.omitted),
            "disclosure": self.disclosure(),
        }


def bound_source(
    blocks: Iterable[SourceBlock],
    *,
    max_chars: int = MAX_SOURCE_CHARS,
    max_block: int = MAX_BLOCK_CHARS,
) -> BoundedSource:
    """Keep whole paragraphs in order until the next would pass ``max_chars``; skip any
    paragraph over ``max_block``; refuse when nothing usable is left."""
    kept: list[SourceBlock] = []
    skipped: list[str] = []
    omitted: list[str] = []
    total = 0
    full = False
    for b in blocks:
        if not b.text.strip():
            continue
        if full:
            omitted.append(b.id)
            continue
        if len(b.text) > max_block:
            skipped.append(b.id)
            continue
        if total + len(b.text) > max_chars:
            full = True
            omitted.append(b.id)
            continue
        kept.append(b)
        total += len(b.text)
    if not kept:
        raise SourceRefused(
            "no usable text within the bounds (whole paragraphs of at most "
            f"{max_block:,} characters, {max_chars:,} in total)",
            code="no_source",
        )
    return BoundedSource(tuple(kept), total, tuple(skipped), tuple(omitted))


def quote_in(quote: str, text: str) -> bool:
    """True when ``quote`` (non-blank) occurs in ``text`` after whitespace normalisation
    (as :func:`~litdesk.core.evidence.passage_in`: the same Unicode form, NFC)."""
    return passage_in(quote, text)
