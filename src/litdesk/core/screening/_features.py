"""Text features of a screening record: TF-IDF of title + abstract (words and word pairs) and,
optionally beside them (``terms_weight`` > 0), of its keywords and MeSH terms (each term
whole). The default leaves the terms out: on the development sets a block weighted 0.5
lowered WSS@95 (bench/RESULTS.md, 2026-12-05). A dense embedding of title + abstract can be
appended as a third block (``embedding``: its rows are computed outside the core — an
adapter embeds the text — and passed in as a matrix, centred on the set's mean and of unit
length); the default leaves it out: wordllama's vectors so appended, or fused by reciprocal
rank, lowered WSS@95 on the development seeds (bench/RESULTS.md, branch scr28), and so did
USE-m3 sentence embeddings read alone, beside TF-IDF in one SVM or by a separate SVM
(:class:`~._model.ModelConfig` ``embedding_use``; branch scr28d).

The vocabulary is fitted once on every record of the set (labels are never read), so a
decision never recomputes features: the model is retrained on rows of one fixed matrix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._errors import ScreeningInputError

__all__ = ["FeatureConfig", "Features", "ScreeningRecord", "build_features", "embedding_block"]

#: starts only where a whitespace run starts (the same splits; linear on long runs of spaces)
_TERM_SPLIT = re.compile(r"(?:(?<!\s)\s+)?[;|]\s*")


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
    #: name of a dense text embedding of title + abstract appended as a third block (its
    #: rows computed outside the core and passed to :func:`build_features`); None: no block
    embedding: str | None = None
    #: weight of the embedding block (its rows are centred on the set's mean, then unit length)
    embedding_weight: float = 1.0
    #: centre the embedding's rows on the set's mean before making them unit length
    embedding_centred: bool = True

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
            "embedding": self.embedding,
            "embedding_block": (
                "title + abstract, "
                + ("centred on the set's mean, " if self.embedding_centred else "")
                + "unit length"
                if self.embedding
                else None
            ),
            "embedding_weight": self.embedding_weight if self.embedding else 0.0,
        }


@dataclass(frozen=True, slots=True)
class Features:
    """The feature matrix of a set (one row per record, in the set's order)."""

    matrix: Any  # scipy.sparse CSR matrix, rows L2-normalised per block
    config: FeatureConfig
    vocabulary_size: int
    has_terms: bool = field(default=False)
    #: columns of the dense embedding block (the matrix's last columns; 0: no block)
    embedding_columns: int = field(default=0)
    #: the text blocks alone (TF-IDF of title + abstract, and of the terms when read), CSR;
    #: None when there is no embedding block (then it is ``matrix`` itself)
    text_matrix: Any = field(default=None, repr=False)
    #: the embedding block alone (dense float32 rows, centred/unit/weighted as configured)
    embedding_matrix: Any = field(default=None, repr=False)
    #: canonical copies of ``matrix`` / ``text`` (see :meth:`canonical`), made on first use
    _canonical: dict[int, tuple[Any, Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def canonical(self, matrix: Any) -> Any:
        """``matrix`` (this set's ``matrix`` or ``text``) with every row's column indices in
        order (scipy's canonical format; the values are the same), made once and kept.

        Training rows are taken from it: scikit-learn puts every row selection it is given
        into this format before fitting (a sort of the selection, each retrain: about a sixth
        of a simulation's time), so a selection of canonical rows, marked as such, gives the
        classifier the very same input without that sort. Costs a second copy of the matrix
        (8 bytes per stored value). Scores are still computed on ``matrix`` itself (its own
        order of summation, so the same scores)."""
        kept = self._canonical.get(id(matrix))
        if kept is not None and kept[0] is matrix:  # (the matrix is kept: its id is not reused)
            return kept[1]
        copy = matrix.copy()
        copy.sum_duplicates()  # sorts the indices; no entry is duplicated in a vectorizer's
        self._canonical[id(matrix)] = (matrix, copy)
        return copy

    @property
    def text(self) -> Any:
        """The text blocks without the embedding (CSR)."""
        return self.matrix if self.text_matrix is None else self.text_matrix

    @property
    def rows(self) -> int:
        return int(self.matrix.shape[0])


def _terms_analyzer(terms: str) -> list[str]:
    return [t.lower() for t in terms.split("\x1f") if t]


def embedding_block(embedding: Any, rows: int, weight: float, *, centred: bool = True) -> Any:
    """The dense block of ``embedding`` (one row per record): centred on the set's mean
    (a shared direction of every row says nothing of one record; ``centred``), rows of unit
    length (all-zero rows stay zero), times ``weight``; float32."""
    import numpy as np

    matrix = np.asarray(embedding, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != rows or not np.isfinite(matrix).all():
        raise ScreeningInputError(
            f"the embedding must be a finite matrix of {rows} rows "
            f"(got shape {tuple(matrix.shape)})",
            code="bad_embedding",
        )
    if centred and rows > 1:
        matrix = matrix - matrix.mean(axis=0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 1e-12)
    return (unit * weight).astype(np.float32)


def build_features(
    records: Sequence[ScreeningRecord],
    config: FeatureConfig | None = None,
    *,
    embedding: Any = None,
) -> Features:
    """Fit the vocabulary on ``records`` and return their feature matrix; ``embedding`` (one
    row per record) is required when ``config.embedding`` names one, and ignored otherwise."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    config = config or FeatureConfig()
    if config.embedding and embedding is None:
        raise ScreeningInputError(
            f"the model reads the embedding {config.embedding!r}: pass its rows",
            code="no_embedding",
        )
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
    text = sparse.hstack(blocks, format="csr")
    if not config.embedding:
        return Features(matrix=text, config=config, vocabulary_size=size, has_terms=has_terms)
    block = embedding_block(
        embedding, len(records), config.embedding_weight, centred=config.embedding_centred
    )
    return Features(
        matrix=sparse.hstack([text, sparse.csr_matrix(block)], format="csr"),
        config=config,
        vocabulary_size=size,
        has_terms=has_terms,
        embedding_columns=int(block.shape[1]),
        text_matrix=text,
        embedding_matrix=block,
    )


def _float32() -> Any:
    import numpy as np

    return np.float32
