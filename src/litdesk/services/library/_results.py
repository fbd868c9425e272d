"""What the PDF library answers with: retrieved excerpts (:class:`Hit`, :class:`Retrieval`),
grounded answers (:class:`Answer`), adoption attempts (:class:`Adoption`), and the
title-printed rule adoption is accepted by."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

__all__ = ["Adoption", "Answer", "Hit", "Retrieval", "fold_text", "title_printed"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved excerpt with its file, page and fused score."""

    file: str
    path: Path
    sha256: str
    page: int
    text: str
    score: float
    rank: int
    title: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    #: the excerpt's support by the question (the relevance an answer needs; ``None``:
    #: not judged)
    support: float | None = None


@dataclass
class Retrieval:
    """The excerpts chosen for one question, and what the run disclosed."""

    question: str
    hits: list[Hit]
    scope: list[str]
    whole_library: bool
    variant: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: support of the best excerpt (see :mod:`litdesk.core.library._support`); ``None``
    #: when nothing was retrieved
    support: float | None = None
    #: no excerpt is close enough: the library does not seem to answer the question
    abstained: bool = False
    #: the question's distinctive words (rare in the scope) that no excerpt has, when the
    #: stricter threshold applied (see :func:`~litdesk.core.library.verdict`)
    uncovered: list[str] = field(default_factory=list)
    #: the support threshold that applied (``None``: nothing was judged)
    threshold: float | None = None


@dataclass
class Answer:
    """One grounded answer (the ``litdesk ask --json`` document)."""

    question: str
    answer: str
    grounded: bool
    citations: list[dict[str, Any]]
    warnings: list[str]
    model: str
    scope: list[str]
    variant: str | None = None
    #: the library does not seem to answer: ``near_misses`` are the closest excerpts
    abstained: bool = False
    near_misses: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "grounded": self.grounded,
            "abstained": self.abstained,
            "citations": self.citations,
            "near_misses": self.near_misses,
            "warnings": self.warnings,
            "question": self.question,
            "variant": self.variant,
            "model": self.model,
            "scope": self.scope,
        }


@dataclass(frozen=True, slots=True)
class Adoption:
    """What one adoption attempt did: adopted (with the lookup and title) or why not."""

    file: str
    adopted: bool
    lookup: str | None
    title: str | None
    warnings: list[str]
    #: the identifiers looked up ("doi 10.…", "arxiv 2501.10120")
    tried: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        """Why nothing was adopted (empty when adopted)."""
        if self.adopted:
            return ""
        if self.warnings:
            return "; ".join(w.removeprefix(f"{self.file}: ") for w in self.warnings)
        if not self.tried:
            return "no DOI or arXiv id is printed on its first two pages"
        return "no record was found for " + " or ".join(self.tried)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "adopted": self.adopted,
            "lookup": self.lookup,
            "title": self.title,
            "reason": self.reason,
            "warnings": self.warnings,
        }


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def fold_text(text: str) -> str:
    """Case-folded, punctuation and spacing replaced by single spaces."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


def title_printed(title: str, head_text: str) -> bool:
    """Whether ``title`` is printed in ``head_text`` (case, punctuation and spacing ignored)."""
    t, h = fold_text(title), fold_text(head_text)
    if len(t) < 8 or not h:
        return False
    if t in h:
        return True
    return fuzz.partial_ratio(t, h) >= 92
