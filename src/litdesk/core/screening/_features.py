"""Text features of a screening record: TF-IDF of title + abstract (words and word pairs) and,
optionally beside them (``terms_weight`` > 0), of its keywords and MeSH terms (each term
whole). The default leaves the terms out: on the development sets a block weighted 0.5
lowered WSS@95 (bench/RESULTS.md, 2026-12-05).

The vocabulary is fitted once on every record of the set (labels are never read), so a
decision never recomputes features: the model is retrained on rows of one fixed matrix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FeatureConfig", "Features", "ScreeningRecord", "build_features"]

#: starts only where a whitespace run starts (the same splits; linear on long runs of spaces)
_TERM_SPLIT = re.compile(r"(?<!\s)\s*[;|]\s*")


@dataclass(frozen=True, slots=True)
class ScreeningRecord:
    """What the model reads of one record: its title, abstract and subject terms (author
    keywords, MeSH headings); any of them may be empty."""

    title: str = ""
    abstract: str = ""
    terms: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, title: str | None, abstract: str | None, terms: Sequence[str] | str | None = None
    ) -> ScreeningRecord:
        """A record from raw values: ``terms`` may be a sequence or one ``;``-separated cell."""
        if isinstance(terms, str):
            parts: Sequence[str] = _TERM_SPLIT.split(terms)
        else:
            parts = terms or ()
        clean = tuple(t.strip() for t in parts if t and t.strip())
        return cls((title or "").strip(), (abstract or "").strip(), clean)

    @property
    def text(self) -> str:
        """Title and abstract, the text the word features read."""
        return f"{self.title}\n{self.abstract}".strip()


@dataclass(frozen=True, slots=True)
class FeatureConfig:
    """How text becomes features (stable names: they go into the model description)."""

    word_ngrams: tuple[int, int] = (1, 2)
    min_df: int = 1
    max_df: float = 0.95
    sublinear_tf: bool = True
    stop_words: bool = False
    #: weight of the subject-term block beside the text block (0 leaves terms out)
    terms_weight: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": "tf-idf of title + abstract",
            "word_ngrams": list(self.word_ngrams),
            "min_df": self.min_df,
            "max_df": self.max_df,
            "sublinear_tf": self.sublinear_tf,
            "stop_words": "english" if self.stop_words else None,
            "terms": "tf-idf of keywords and MeSH terms (whole terms)",
            "terms_weight": self.terms_weight,
        }


@dataclass(frozen=True, slots=True)
class Features:
    """The feature matrix of a set (one row per record, in the set's order)."""

    matrix: Any  # scipy.sparse CSR matrix, rows L2-normalised per block
    config: FeatureConfig
    vocabulary_size: int
    has_terms: bool = field(default=False)

    @property
    def rows(self) -> int:
        return int(self.matrix.shape[0])


def _terms_analyzer(terms: str) -> list[str]:
    return [t.lower() for t in terms.split("\x1f") if t]


def build_features(
    records: Sequence[ScreeningRecord], config: FeatureConfig | None = None
) -> Features:
    """Fit the vocabulary on ``records`` and return their feature matrix."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    config = config or FeatureConfig()
    texts = [r.text for r in records]
    words = TfidfVectorizer(
        ngram_range=config.word_ngrams,
        min_df=config.min_df if len(records) >= 2 * config.min_df else 1,
        max_df=config.max_df,
        sublinear_tf=config.sublinear_tf,
        stop_words="english" if config.stop_words else None,
        strip_accents="unicode",
        dtype=_float32(),
    )
    blocks: list[Any] = []
    size = 0
    if any(texts):
        try:
            blocks.append(words.fit_transform(texts))
            size += len(words.vocabulary_)
        except ValueError:  # no word of two letters or more in the whole set
            blocks.clear()
    has_terms = config.terms_weight > 0 and any(r.terms for r in records)
    if has_terms:
        terms = TfidfVectorizer(analyzer=_terms_analyzer, sublinear_tf=True, dtype=_float32())
        block = terms.fit_transform(["\x1f".join(r.terms) for r in records])
        blocks.append(block * config.terms_weight)
        size += len(terms.vocabulary_)
    if not blocks:  # no text at all: one constant feature, the model can only rank by chance
        blocks.append(
            sparse.csr_matrix(([1.0] * len(records), ([*range(len(records))], [0] * len(records))))
        )
        size = 1
    matrix = sparse.hstack(blocks, format="csr")
    return Features(matrix=matrix, config=config, vocabulary_size=size, has_terms=has_terms)


def _float32() -> Any:
    import numpy as np

    return np.float32
