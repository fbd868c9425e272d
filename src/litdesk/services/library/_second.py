"""The per-paper second pass of :meth:`Library.retrieve` (the logic is in core:
:func:`~litdesk.core.library.within_paper_order`, :func:`reorder_within_papers`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np
import numpy.typing as npt

from litdesk.core.library import (
    local_coverage,
    question_terms,
    reorder_within_papers,
    salient_words,
    within_paper_order,
)

from ._catalogue import StoredChunk

__all__ = ["second_pass"]

#: (the paper's content hash, its chunks' positions) -> their vectors, one row each
VectorsOf = Callable[[str, list[int]], npt.NDArray[np.float32]]
#: (content hash, question words) -> the paper's chunk ids matching them, best first
LexicalOf = Callable[[str, list[str]], list[int]]


def second_pass(
    ranking: Sequence[tuple[int, float]],
    text: str,
    vector: npt.NDArray[np.float32],
    chunks: Sequence[StoredChunk],
    *,
    vectors_of: VectorsOf,
    lexical_of: LexicalOf,
    papers: int,
    weight: float,
    skip: Collection[str] = (),
) -> list[tuple[int, float]]:
    """``ranking`` (chunk positions in ``chunks``, score; best first) with the chunks of
    its first ``papers`` papers re-ranked within each paper against ``text`` (cosine to
    ``vector``, the paper's own lexical ranking, term coverage weighted within the paper);
    ``papers`` 0 returns it as it is. Papers in ``skip`` (content hashes: papers in another
    language than the question, whose words cannot match) keep their order and do not
    count among the first ``papers``."""
    if papers <= 0 or not ranking:
        return list(ranking)
    leading: list[str] = []
    for pos, _ in ranking:
        sha = chunks[pos].sha256
        if sha not in leading and sha not in skip:
            leading.append(sha)
            if len(leading) == papers:
                break
    words = salient_words(text)
    qterms = question_terms(words)
    orders: dict[str, list[int]] = {}
    for sha in leading:
        mine = [i for i, c in enumerate(chunks) if c.sha256 == sha]
        local = {chunks[p].id: j for j, p in enumerate(mine)}
        cosines = (vectors_of(sha, mine) @ vector).tolist()
        lexical = [local[i] for i in lexical_of(sha, words) if i in local]
        coverage = local_coverage(qterms, [chunks[p].text for p in mine])
        order = within_paper_order(cosines, lexical, coverage, weight=weight)
        orders[sha] = [mine[j] for j in order]
    return reorder_within_papers(ranking, lambda p: chunks[p].sha256, orders)
