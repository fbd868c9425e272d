"""The per-paper second pass (pure): the within-paper ranking of a question's excerpts.

Once a ranking has settled which papers answer a question, each of its leading papers'
chunks is ranked again against the question with term weights taken *within that paper*
(:func:`local_coverage`): a word every chunk of the paper has ("heart failure" in a heart
failure paper) tells its chunks apart no better than a stop word, a word few of them have
("facilities") does. :func:`within_paper_order` fuses the chunks' cosine order and the
paper's own lexical ranking with that coverage; :func:`reorder_within_papers` puts the
paper's chunks into the places the paper held in the ranking, in that new order, so the
allocation between papers is unchanged and only which of a paper's chunks stand for it.
:func:`second_pass` runs the whole step over a ranking of a scope's chunks, reading the
papers' vectors and lexical rankings through the callables it is given.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from functools import lru_cache
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ._bridge import own_language
from ._retrieval import ScopeChunk, rrf, salient_words
from ._support import _TOKEN, _fold, _stem, question_terms

__all__ = [
    "LexicalOf",
    "PaperCache",
    "VectorsOf",
    "local_coverage",
    "reorder_within_papers",
    "foreign_words",
    "second_pass",
    "within_paper_order",
]

T = TypeVar("T", bound=Hashable)

#: (the paper's content hash, its chunks' positions) -> their vectors, one row each
VectorsOf = Callable[[str, list[int]], npt.NDArray[np.float32]]
#: (content hashes, question words) -> those papers' chunk ids matching them, best first
LexicalOf = Callable[[list[str], list[str]], list[int]]
#: content hash -> its chunks' positions in the scope's chunks
PaperCache = dict[str, list[int]]


def local_coverage(qterms: Sequence[str], texts: Sequence[str]) -> list[float]:
    """Per text (one paper's chunks), the share (0..1) of ``qterms`` (stems, as
    :func:`question_terms` makes them) it contains as :func:`terms` would find them, each
    term weighted by its rarity among ``texts`` themselves (``log((n + 1) / (df + 0.5))``,
    as :class:`DocFrequencies`); all 0 when no term weighs. Only the question's stems are
    looked for, so a paper's chunks are not tokenised whole."""
    wanted = list(dict.fromkeys(qterms))
    folded = [_fold(t) for t in texts]
    have = [{q for q in wanted if _contains(f, q)} for f in folded]
    n = len(texts)
    df = Counter(q for h in have for q in h)
    weight = {q: max(0.0, math.log((n + 1) / (df.get(q, 0) + 0.5))) for q in wanted}
    total = sum(weight.values())
    if total <= 0:
        return [0.0] * n
    return [sum(weight[q] for q in h) / total for h in have]


@lru_cache(maxsize=4096)
def _prefix(stem: str) -> re.Pattern[str]:
    """``stem`` and the rest of the token it starts (the literal first: a fast search)."""
    return re.compile(re.escape(stem) + r"[^\W_]*")


def _contains(folded: str, stem: str) -> bool:
    """Whether a token of ``folded`` (as :func:`terms` splits it) has the stem ``stem``."""
    for m in _prefix(stem).finditer(folded):
        start = m.start()
        if start and folded[start - 1].isalnum():  # inside a longer token
            continue
        if _stem(m.group(0)) == stem:
            return True
    return False


def within_paper_order(
    cosines: Sequence[float],
    lexical: Sequence[int],
    coverage: Sequence[float],
    *,
    weight: float,
) -> list[int]:
    """Indices of one paper's chunks, best first: the reciprocal-rank fusion of their
    cosine order and ``lexical`` (indices, best first), as a share of its best, plus
    ``weight`` × their :func:`local_coverage`; ties keep the cosine order."""
    if weight < 0:
        raise ValueError("weight must be >= 0")
    n = len(cosines)
    if len(coverage) != n:
        raise ValueError("cosines and coverage must be as long")
    if n == 0:
        return []
    by_cos = sorted(range(n), key=lambda i: (-cosines[i], i))
    fused = dict(rrf([by_cos, [i for i in lexical if 0 <= i < n]]))
    top = max(fused.values())
    score = [fused.get(i, 0.0) / top + weight * coverage[i] for i in range(n)]
    rank = {i: r for r, i in enumerate(by_cos)}
    return sorted(range(n), key=lambda i: (-score[i], rank[i]))


def reorder_within_papers(
    ranking: Sequence[tuple[T, float]],
    paper_of: Callable[[T], str],
    orders: Mapping[str, Sequence[T]],
) -> list[tuple[T, float]]:
    """``ranking`` (item, score; best first) with each paper of ``orders`` holding the
    same places and scores, filled with its items in its new order (the first as many as
    it had places); every other item stays where it was."""
    slots: dict[str, list[int]] = {}
    for i, (item, _) in enumerate(ranking):
        paper = paper_of(item)
        if paper in orders:
            slots.setdefault(paper, []).append(i)
    out = list(ranking)
    for paper, places in slots.items():
        fill = list(dict.fromkeys(orders[paper]))
        if len(fill) < len(places):  # an order shorter than the paper's share: keep the rest
            chosen = set(fill)
            kept = [ranking[i][0] for i in places if ranking[i][0] not in chosen]
            fill += kept
        for i, item in zip(places, fill, strict=False):
            out[i] = (item, ranking[i][1])
    return out


def foreign_words(words: Sequence[str], extra: Sequence[str], texts: Sequence[str]) -> list[str]:
    """The question's words as one paper in another language writes them: the question's
    ``words`` (salient) that the paper's own-language text (:func:`own_language`: its
    English abstract left out) holds as they are (numbers, names such as "Málaga"), then
    the ``extra`` words the cross-lingual bridge found for them. The question's other words
    are left out: in such a paper they match only its English abstract or titles, and
    within the paper they would weigh as rare."""
    held = {t for text in own_language(texts) for t in _TOKEN.findall(_fold(text))}
    same = [w for w in words if _fold(w) in held]
    return same + [w for w in extra if w not in same and w not in words]


def second_pass(
    ranking: Sequence[tuple[int, float]],
    text: str,
    vector: npt.NDArray[np.float32],
    chunks: Sequence[ScopeChunk],
    *,
    vectors_of: VectorsOf,
    lexical_of: LexicalOf,
    papers: int,
    weight: float,
    skip: Collection[str] = (),
    bridge: Callable[[list[str]], list[str]] | None = None,
    foreign_share: float = 0.5,
    cache: PaperCache | None = None,
) -> list[tuple[int, float]]:
    """``ranking`` (chunk positions in ``chunks``, score; best first) with the chunks of
    its first ``papers`` papers re-ranked within each paper against ``text`` (cosine to
    ``vector``, the paper's own lexical ranking, term coverage weighted within the paper);
    ``papers`` 0 returns it as it is.

    Papers in ``skip`` (content hashes: papers in another language than the question,
    whose words cannot match) keep their order and do not count among the first
    ``papers``, unless ``bridge`` (the retrieval's cross-lingual word bridge: words -> the
    words given and those papers' words for them) is given and the paper's
    :func:`foreign_words` are at least ``foreign_share`` (0: never) as many as the
    question's words: then it is ranked again on those words, the coverage weighing
    ``weight`` times that share (it sees only part of the question). ``cache`` keeps
    each paper's chunk positions between calls over the same ``chunks``."""
    if papers <= 0 or not ranking:
        return list(ranking)
    words = salient_words(text)
    cache = {} if cache is None else cache

    def positions(sha: str) -> list[int]:
        if sha not in cache:
            cache[sha] = [i for i, c in enumerate(chunks) if c.sha256 == sha]
        return cache[sha]

    extra: list[str] | None = None
    abroad: dict[str, tuple[list[str], float]] = {}  # foreign paper -> its words, their share

    def foreign_ok(sha: str) -> bool:
        nonlocal extra
        if bridge is None or foreign_share <= 0 or not words:
            return False
        if extra is None:
            extra = bridge(list(words))[len(words) :]
        if not extra:
            return False
        if sha not in abroad:
            mine = foreign_words(words, extra, [chunks[p].text for p in positions(sha)])
            abroad[sha] = (mine, min(1.0, len(mine) / len(words)))
        return abroad[sha][1] >= foreign_share

    leading: list[str] = []
    for pos, _ in ranking:
        sha = chunks[pos].sha256
        if sha in leading:
            continue
        if sha not in skip or foreign_ok(sha):
            leading.append(sha)
            if len(leading) == papers:
                break
    qterms = question_terms(words)
    home = [s for s in leading if s not in skip]
    matched = lexical_of(home, words) if home else []  # one query for the leading papers
    orders: dict[str, list[int]] = {}
    for sha in leading:
        mine = positions(sha)
        local = {chunks[p].id: j for j, p in enumerate(mine)}
        cosines = (vectors_of(sha, mine) @ vector).tolist()
        texts = [chunks[p].text for p in mine]
        if sha in skip:
            own, share = abroad[sha]
            lexical = [local[i] for i in lexical_of([sha], own) if i in local]
            coverage = local_coverage(question_terms(own), texts)
        else:
            share = 1.0
            lexical = [local[i] for i in matched if i in local]
            coverage = local_coverage(qterms, texts)
        order = within_paper_order(cosines, lexical, coverage, weight=weight * share)
        orders[sha] = [mine[j] for j in order]
    return reorder_within_papers(ranking, lambda p: chunks[p].sha256, orders)
