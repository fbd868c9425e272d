"""How well an excerpt supports a question (pure): the signal behind abstention.

The support of an excerpt is the share of the question's content terms it contains,
each term weighted by its rarity in the library (inverse document frequency over the
scope's chunks, so a rare term the library lacks — a drug, a model name — weighs most),
plus the cosine of question and excerpt vectors. Terms are accent-folded, lower-case,
cut to a 5-letter stem (``diffraction`` ~ ``diffracted``); hyphenated words count by
their parts. Below :data:`ABSTAIN_BELOW` for the best excerpt, the library does not seem
to answer the question. The threshold is calibrated on the judged questions with
``bench/retrieval_quality.py`` (see bench/RESULTS.md).

A second, stricter threshold applies when the question's *distinctive* terms (rare in the
scope: a drug, a trial, an instrument the question is about) are all missing from the
chosen excerpts (:func:`uncovered_terms`): the excerpts then match the question's common
words and topic, not what it asks about.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ABSTAIN_BELOW",
    "ABSTAIN_BY_EMBEDDER",
    "DF_SAMPLE",
    "NEAR_MISS_CHARS",
    "ABSTAIN_UNCOVERED_BY_EMBEDDER",
    "DISTINCTIVE_SHARE",
    "DocFrequencies",
    "abstention_text",
    "abstain_threshold",
    "distinctive_terms",
    "judge",
    "question_terms",
    "support",
    "terms",
    "text_terms",
    "uncovered_terms",
    "uncovered_threshold",
    "Verdict",
    "verdict",
]

#: Best-excerpt support under which an answer abstains (calibrated, see module doc).
ABSTAIN_BELOW: Final = 0.75
#: The threshold per embedder (cosines of different models live on different scales), each
#: calibrated on the judged and off-library questions of bench/retrieval_quality.py; an
#: embedder not listed uses ``ABSTAIN_BELOW``.
ABSTAIN_BY_EMBEDDER: Final[dict[str, float]] = {
    "wordllama-l2-256": 0.75,
    "use-m3-512": 0.50,
    "wordllama-l2-256+use-m3-512": 0.70,
}


def abstain_threshold(embedder: str) -> float:
    """The calibrated abstention threshold for the embedder named ``embedder``."""
    return ABSTAIN_BY_EMBEDDER.get(embedder, ABSTAIN_BELOW)


#: Best-excerpt support under which an answer abstains when none of the question's
#: distinctive terms is in the chosen excerpts, per embedder (calibrated like
#: ``ABSTAIN_BY_EMBEDDER``); an embedder not listed uses its threshold plus ``0.15``.
ABSTAIN_UNCOVERED_BY_EMBEDDER: Final[dict[str, float]] = {
    "wordllama-l2-256": 0.90,
    "use-m3-512": 0.85,
    "wordllama-l2-256+use-m3-512": 0.90,
}
#: A question term found in at most this share of the scope's (sampled) chunks, or in at
#: most ``_DISTINCTIVE_MIN`` of them, or in none, is distinctive.
DISTINCTIVE_SHARE: Final = 0.01
_DISTINCTIVE_MIN: Final = 2


def uncovered_threshold(embedder: str) -> float:
    """The stricter threshold for questions whose distinctive terms the excerpts lack."""
    return ABSTAIN_UNCOVERED_BY_EMBEDDER.get(embedder, abstain_threshold(embedder) + 0.15)


#: At most this many chunks (evenly spaced) are read to estimate document frequencies.
DF_SAMPLE: Final = 1_000
_STEM: Final = 5
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def _fold(text: str) -> str:
    folded = text.casefold()
    if folded.isascii():
        return folded
    return _COMBINING.sub("", unicodedata.normalize("NFKD", folded))


def _stem(token: str) -> str:
    if len(token) > _STEM and token.isalpha():
        return token[:_STEM]
    return token


def terms(text: str) -> set[str]:
    """The folded, stemmed terms of ``text`` (every token, short ones included)."""
    return {_stem(t) for t in set(_TOKEN.findall(_fold(text)))}


def text_terms(text: str) -> list[str]:
    """The folded, stemmed tokens of ``text`` in order (repeats kept), as :func:`terms`."""
    return [_stem(t) for t in _TOKEN.findall(_fold(text))]


def question_terms(words: Iterable[str]) -> list[str]:
    """Stemmed terms of the question's salient words, parts of hyphenated ones apart;
    parts of one or two letters dropped unless they hold a digit."""
    out: list[str] = []
    for word in words:
        for part in _TOKEN.findall(_fold(word)):
            if len(part) < 3 and not any(ch.isdigit() for ch in part):
                continue
            stem = _stem(part)
            if stem not in out:
                out.append(stem)
    return out


@dataclass(frozen=True, slots=True)
class DocFrequencies:
    """Document frequencies of terms over (a sample of) a scope's chunks."""

    n: int
    df: dict[str, int]

    @classmethod
    def build(cls, texts: Sequence[str], *, sample: int = DF_SAMPLE) -> DocFrequencies:
        """From ``texts``; more than ``sample`` are thinned to every k-th one."""
        step = max(1, math.ceil(len(texts) / sample)) if sample > 0 else 1
        picked = texts[::step]
        counts: Counter[str] = Counter()
        for text in picked:
            counts.update(terms(text))
        return cls(len(picked), dict(counts))

    def idf(self, term: str) -> float:
        """``log((n + 1) / (df + 0.5))``: an absent term weighs most, a ubiquitous one ~0."""
        return max(0.0, math.log((self.n + 1) / (self.df.get(term, 0) + 0.5)))


def support(
    qterms: Sequence[str],
    text: str,
    cosine: float,
    dfs: DocFrequencies,
    *,
    other_language: bool = False,
    bridged: Mapping[str, AbstractSet[str]] | None = None,
) -> float:
    """Rarity-weighted share of ``qterms`` found in ``text``, plus ``cosine`` (clipped to
    0..1). A question without terms is judged by the cosine alone.

    For a passage in another language than the question (``other_language``) the words
    cannot match, so the cosine stands in for the missing share: the better of
    ``share + cosine`` and ``2 * cosine`` (a number or a name may still match). With
    ``bridged`` (a term -> the stems of the words the cross-lingual bridge found for it in
    the passage's paper) a term counts as found when one of its translations is there."""
    cos = min(1.0, max(0.0, cosine))
    weights = [(t, dfs.idf(t)) for t in qterms]
    total = sum(w for _, w in weights)
    if total <= 0:
        return cos
    have = terms(text)
    if other_language and bridged:  # a term is there when one of its translations is
        share = sum(w for t, w in weights if t in have or bridged.get(t, set()) & have) / total
    else:
        share = sum(w for t, w in weights if t in have) / total
    return max(share + cos, 2 * cos) if other_language else share + cos


def distinctive_terms(qterms: Sequence[str], dfs: DocFrequencies) -> list[str]:
    """The terms of ``qterms`` rare in the scope (see :data:`DISTINCTIVE_SHARE`), in order."""
    limit = max(_DISTINCTIVE_MIN, DISTINCTIVE_SHARE * dfs.n)
    return [t for t in qterms if dfs.df.get(t, 0) <= limit]


def uncovered_terms(qterms: Sequence[str], texts: Iterable[str], dfs: DocFrequencies) -> list[str]:
    """The question's distinctive terms when not one of them is in any of ``texts`` (the
    chosen excerpts); ``[]`` when one is, or when the question has none."""
    rare = distinctive_terms(qterms, dfs)
    if not rare:
        return []
    wanted = set(rare)
    for text in texts:
        if wanted & terms(text):
            return []
    return rare


def judge(
    scores: Sequence[float],
    *,
    below: float = ABSTAIN_BELOW,
    uncovered: bool = False,
    uncovered_below: float | None = None,
) -> tuple[float, bool]:
    """The best of the excerpts' ``scores`` and whether to abstain: best under ``below``,
    or, when the excerpts lack the question's distinctive terms (``uncovered``), under
    ``uncovered_below`` (default ``below + 0.15``)."""
    if not scores:
        return 0.0, True
    best = max(scores)
    if uncovered:
        below = max(below, below + 0.15 if uncovered_below is None else uncovered_below)
    return best, best < below


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the library seems to answer a question (see :func:`verdict`)."""

    #: support of the best excerpt shown
    support: float
    abstained: bool
    #: the threshold that applied (the stricter one when ``strict``)
    threshold: float
    #: the question's distinctive terms were all missing from the excerpts it found
    strict: bool
    #: the question's words among those terms that no excerpt shown contains either
    missing: list[str]


def verdict(
    words: Sequence[str],
    qterms: Sequence[Sequence[str]],
    shown: Sequence[str],
    found: Sequence[str],
    scores: Sequence[float],
    dfs: DocFrequencies,
    *,
    below: float,
    uncovered_below: float,
) -> Verdict:
    """The abstention verdict over the excerpts ``shown`` (texts; ``scores`` their support).

    ``qterms`` are the terms of the question and of its variant (:func:`question_terms`),
    ``words`` the question's salient words. The stricter threshold applies when, for the
    question and its variant alike, no text of ``found`` has one of their distinctive
    terms (:func:`uncovered_terms`). ``found`` are the excerpts the library-wide ranking
    chose: a later pass that looks inside papers for the question's rarest words (the
    within-paper second pass) surfaces a passing mention of them, so excerpts chosen that
    way would make the test pass by construction. ``missing`` names what the answer can
    truthfully say no excerpt shown contains."""
    rare = [uncovered_terms(t, found, dfs) for t in qterms]
    strict = bool(rare) and all(rare)
    missing: list[str] = []
    if strict:
        have: set[str] = set().union(*(terms(t) for t in shown))
        stems = set(rare[0]) - have
        missing = [w for w in words if stems & set(question_terms([w]))]
    threshold = max(below, uncovered_below) if strict else below
    best, abstain = judge(scores, below=threshold)
    return Verdict(best, abstain, threshold, strict, missing)


NEAR_MISS_CHARS: Final = 240


def abstention_text(
    near: Sequence[tuple[str, int, str]],
    best: float,
    *,
    below: float = ABSTAIN_BELOW,
    missing: Sequence[str] = (),
) -> str:
    """The answer when the library does not seem to answer: ``near`` are the closest
    excerpts as (file, page, text), listed as near misses, not as an answer; ``missing``
    the question's distinctive words no excerpt contains (then ``below`` is the stricter
    threshold that applied)."""
    head = (
        "The library does not seem to answer this question: no excerpt is close enough "
        f"(best support {best:.2f}, needed {below:.2f})."
    )
    if missing:
        head = (
            "The library does not seem to answer this question: no excerpt contains "
            f"{', '.join(missing[:5])} (best support {best:.2f}, needed {below:.2f} "
            "without them)."
        )
    if not near:
        return head
    lines = [head, "", "Nearest excerpts (near misses, not an answer):"]
    for file, page, text in near:
        flat = " ".join(text.split())
        if len(flat) > NEAR_MISS_CHARS:
            flat = flat[:NEAR_MISS_CHARS].rsplit(" ", 1)[0] + " …"
        lines.append(f"- {file}, p. {page}: {flat}")
    return "\n".join(lines)
