from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import (
    DocFrequencies,
    local_coverage,
    question_terms,
    reorder_within_papers,
    salient_words,
    terms,
    within_paper_order,
)


def _q(question: str) -> list[str]:
    return question_terms(salient_words(question))


def test_a_word_every_chunk_has_weighs_nothing_within_the_paper() -> None:
    chunks = [
        "Heart failure programme participants described the exercise sessions.",
        "Heart failure programme participants praised the nurses.",
        "Heart failure programme participants asked for bigger facilities.",
    ]
    cov = local_coverage(
        _q("What did heart failure programme participants say on facilities?"), chunks
    )
    # the words all three share weigh little (log(4 / 3.5) each), the telling one much more
    assert cov[0] == pytest.approx(cov[1])
    assert cov[2] > 2.5 * cov[0] > 0
    # so the chunk with "facilities" leads, though all three share four of the five words
    assert max(range(3), key=cov.__getitem__) == 2


def test_coverage_finds_terms_as_the_support_stems_them() -> None:
    chunks = ["Málaga councils REFINED their web portals.", "Nothing else here."]
    cov = local_coverage(_q("How were the malaga portals refined?"), chunks)
    assert cov[0] == pytest.approx(1.0)
    assert cov[1] == 0.0
    assert local_coverage([], chunks) == [0.0, 0.0]
    assert local_coverage(_q("anything"), []) == []


_WORDS = st.sampled_from(
    ["crystal", "crystals", "structure", "refined", "málaga", "malaga", "x-ray", "2xa", "of", "a"]
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(_WORDS, max_size=12).map(" ".join), max_size=6),
    st.lists(_WORDS, min_size=1, max_size=5).map(" ".join),
)
def test_coverage_equals_the_term_set_definition(texts: list[str], question: str) -> None:
    """Looking only for the question's stems finds what tokenising every chunk would."""
    q = _q(question)
    local = DocFrequencies.build(texts, sample=0)
    weight = {t: local.idf(t) for t in dict.fromkeys(q)}
    total = sum(weight.values())
    expected = [
        sum(w for t, w in weight.items() if t in terms(x)) / total if total > 0 else 0.0
        for x in texts
    ]
    got = local_coverage(q, texts)
    assert len(got) == len(texts)
    assert all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(got, expected, strict=True))
    assert all(0.0 <= v <= 1.0 + 1e-12 for v in got)


def test_within_paper_order_lets_coverage_outweigh_the_fused_order() -> None:
    cosines = [0.9, 0.5, 0.1]
    lexical = [0, 1]
    coverage = [0.0, 0.2, 1.0]
    assert within_paper_order(cosines, lexical, coverage, weight=0.0) == [0, 1, 2]
    assert within_paper_order(cosines, lexical, coverage, weight=4.0) == [2, 1, 0]
    assert within_paper_order([], [], [], weight=1.0) == []
    with pytest.raises(ValueError):
        within_paper_order(cosines, lexical, coverage, weight=-1.0)
    with pytest.raises(ValueError):
        within_paper_order(cosines, lexical, [0.0], weight=1.0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1, 1), max_size=12).flatmap(
        lambda cos: st.tuples(
            st.just(cos),
            st.permutations(range(len(cos))).flatmap(
                lambda p: st.integers(0, len(p)).map(lambda k: list(p)[:k])
            ),
            st.lists(st.floats(0, 1), min_size=len(cos), max_size=len(cos)),
        )
    ),
    st.floats(0, 10),
)
def test_within_paper_order_is_a_permutation(
    case: tuple[list[float], list[int], list[float]], weight: float
) -> None:
    cosines, lexical, coverage = case
    order = within_paper_order(cosines, lexical, coverage, weight=weight)
    assert sorted(order) == list(range(len(cosines)))


def test_reorder_fills_the_papers_places_in_its_new_order() -> None:
    ranking = [("a1", 0.9), ("b1", 0.8), ("a2", 0.7), ("c1", 0.6), ("a3", 0.5)]
    paper = {"a1": "A", "a2": "A", "a3": "A", "a9": "A", "b1": "B", "c1": "C"}
    out = reorder_within_papers(ranking, paper.__getitem__, {"A": ["a9", "a3", "a1", "a2"]})
    assert out == [("a9", 0.9), ("b1", 0.8), ("a3", 0.7), ("c1", 0.6), ("a1", 0.5)]
    short = reorder_within_papers(ranking, paper.__getitem__, {"A": ["a3"]})
    assert [k for k, _ in short] == ["a3", "b1", "a1", "c1", "a2"]  # the rest keep their order
    assert reorder_within_papers(ranking, paper.__getitem__, {}) == ranking


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("ABC"), st.integers(0, 9)), max_size=15, unique=True),
    st.lists(st.integers(0, 12), max_size=12, unique=True),
)
def test_reorder_keeps_scores_places_and_other_papers(
    items: list[tuple[str, int]], new_a: list[int]
) -> None:
    ranking = [(item, float(-i)) for i, item in enumerate(items)]
    order = [("A", n) for n in new_a]
    out = reorder_within_papers(ranking, lambda k: k[0], {"A": order})
    assert [s for _, s in out] == [s for _, s in ranking]  # same scores in the same places
    assert [k[0] for k, _ in out] == [k[0] for k, _ in ranking]  # each place, the same paper
    for (old, _), (new, _) in zip(ranking, out, strict=True):
        if old[0] != "A":
            assert new == old
    keys = [k for k, _ in out]
    assert len(keys) == len(set(keys))  # no chunk twice
