"""What the first pages of a PDF offer (input) and what is read from them (output)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

__all__ = ["SOURCE", "Found", "PdfHead", "PdfMeta", "TextLine"]

#: Where every value of :class:`PdfMeta` comes from (shown beside it to the user).
SOURCE: Final = "read from the PDF"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TextLine:
    """One text line of a page: its text, font size and box (PDF points, origin bottom-left)."""

    page: int  # 1-based
    text: str
    size: float  # font size in points (the median over the line's glyphs)
    left: float
    bottom: float
    right: float
    top: float
    bold: bool = False


@dataclass(frozen=True, slots=True)
class PdfHead:
    """The first pages of one PDF as the metadata reader needs them."""

    lines: tuple[TextLine, ...]  # in the page's text order, pages in order
    page_sizes: tuple[tuple[float, float], ...]  # (width, height) of each page read
    info: Mapping[str, str] = field(default_factory=dict)  # the PDF's document info
    page_count: int = 0
    texts: tuple[str, ...] = ()  # the pages' plain text (identifiers by pattern)


@dataclass(frozen=True, slots=True)
class Found(Generic[T]):
    """One value read from the PDF, how sure the reader is (0–1) and how it was found."""

    value: T
    confidence: float
    how: str
    source: str = SOURCE

    def to_dict(self) -> dict[str, Any]:
        value: Any = list(self.value) if isinstance(self.value, tuple) else self.value
        return {
            "value": value,
            "confidence": round(self.confidence, 2),
            "how": self.how,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class PdfMeta:
    """A paper's description read from its PDF's first pages, field by field.

    A field is ``None`` when nothing trustworthy was found; ``missing`` names those
    fields, so a caller never mistakes an absent value for an empty one.
    """

    title: Found[str] | None = None
    authors: Found[tuple[str, ...]] | None = None
    year: Found[int] | None = None
    venue: Found[str] | None = None
    doi: Found[str] | None = None
    arxiv: Found[str] | None = None

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(name for name in _FIELDS if getattr(self, name) is None)

    @property
    def first_author(self) -> str | None:
        return self.authors.value[0] if self.authors and self.authors.value else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in _FIELDS:
            found = getattr(self, name)
            out[name] = found.to_dict() if found is not None else None
        out["missing"] = list(self.missing)
        out["source"] = SOURCE
        return out


_FIELDS: Final = ("title", "authors", "year", "venue", "doi", "arxiv")
