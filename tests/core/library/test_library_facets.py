from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import (
    FACET_MIN_WORDS,
    MAX_FACETS,
    Candidate,
    allocate,
    choose_excerpts,
    facet_picks,
    salient_words,
    split_facets,
)


def test_two_questions_joined_by_and_which_are_two_facets() -> None:
    q = (
        "Which open-weight LLM were PaSa's agents fine-tuned from, and which "
        "summarizers were benchmarked on Multi-LexSum?"
    )
    assert split_facets(q) == [
        "Which open-weight LLM were PaSa's agents fine-tuned from",
        "which summarizers were benchmarked on Multi-LexSum?",
    ]


def test_semicolon_comma_and_preposition_before_the_wh_word() -> None:
    q = "Where were the networks taken from; against which gene database was VESPA compared?"
    assert split_facets(q) == [
        "Where were the networks taken from",
        "against which gene database was VESPA compared?",
    ]
    q2 = "What dataset trained SPECTER, for how many papers was metadata released?"
    assert split_facets(q2) == [
        "What dataset trained SPECTER",
        "for how many papers was metadata released?",
    ]


def test_one_question_stays_whole() -> None:
    for q in (
        "How do the PaSa agent and the CiteSee reader use references to find more work?",
        "Which software pulls titles, authors and references out of PDFs?",  # a list
        "  How long does CiteSee take to process a paper?  ",
    ):
        assert split_facets(q) == [q.strip()]
    assert split_facets("   ") == []


def test_a_facet_too_short_joins_the_one_before() -> None:
    q = "How many Likert ratings were gathered in the lab study, and from how many participants?"
    # "from how many participants?" has one content word: not a facet of its own
    assert split_facets(q) == [q]
    q2 = "Which one, and which wheat cultivars tolerated the heat best?"
    assert split_facets(q2) == [q2]  # the first piece is too short: joined to the second


def test_at_most_max_facets() -> None:
    q = "; ".join(f"which model number {i} was trained on corpus {i}" for i in range(6))
    facets = split_facets(q)
    assert len(facets) == MAX_FACETS
    assert facets[-1].endswith("corpus 5")


_WORDS = st.sampled_from(
    ["which", "and", "how", "many", "papers", "model", "trained", ",", ";", "for", "wheat",
     "heat", "the", "what", "is", "CiteSee", "data", "in", "from", "?"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(_WORDS, max_size=30).map(" ".join), st.text(max_size=200)))
def test_split_facets_properties(q: str) -> None:
    facets = split_facets(q)
    if not q.strip():
        assert facets == []
        return
    assert 1 <= len(facets) <= MAX_FACETS
    if len(facets) == 1:
        assert facets == [q.strip()]
        return
    pos = 0
    for f in facets:  # substrings of the question, in order, each with its own content
        assert f
        at = q.find(f, pos)
        assert at >= 0
        pos = at + len(f)
        assert len(salient_words(f)) >= FACET_MIN_WORDS


def _c(key: str, paper: str, page: int, score: float = 0.0) -> Candidate:
    return Candidate(key, paper, score, page)


def test_facet_picks_best_distinct_pages_per_facet() -> None:
    first = [_c("a1", "A", 1), _c("a1b", "A", 1), _c("a2", "A", 2), _c("a3", "A", 3)]
    second = [_c("a1", "A", 1), _c("b5", "B", 5), _c("b6", "B", 6)]
    assert facet_picks([first, second], per_facet=2) == ["a1", "b5", "a2", "b6"]  # in turns
    assert facet_picks([first, second], per_facet=1) == ["a1", "b5"]
    assert facet_picks([first, second], per_facet=0) == []
    with pytest.raises(ValueError):
        facet_picks([first], per_facet=-1)


def test_allocate_takes_required_first_then_by_score() -> None:
    cands = [_c(f"a{i}", "A", i, 1.0 - i / 100) for i in range(10)] + [_c("b9", "B", 9, 0.1)]
    plain = allocate(cands, top_k=4)
    assert [c.key for c in plain] == ["a0", "a1", "a2", "a3"]
    picked = allocate(cands, top_k=4, required=["b9", "missing"])
    assert [c.key for c in picked] == ["a0", "a1", "a2", "b9"]  # ordered by score
    over = allocate(cands, top_k=2, required=["b9", "a7", "a8"])
    assert {c.key for c in over} == {"b9", "a7"}


def test_a_facets_pick_outside_the_whole_questions_pool_is_still_chosen() -> None:
    """The whole question's pool held only paper A's chunks; the second facet's best
    passage (on B) was found by that facet's own ranking only. It keeps its place among
    the picks, after every pooled candidate in the order by score."""
    whole = [_c(f"a{i}", "A", i, 1.0 - i / 100) for i in range(10)]
    facet_a = whole[:]
    facet_b = [_c("b5", "B", 5, 0.9), _c("b6", "B", 6, 0.8), _c("a0", "A", 0, 0.1)]
    chosen = choose_excerpts(whole, [facet_a, facet_b], top_k=4, per_facet=2)
    assert [c.key for c in chosen] == ["a0", "a1", "b5", "b6"]
    assert chosen[2].score == chosen[3].score == whole[-1].score  # after the pool
    # without facets: the whole question's ranking alone, as allocate gives it
    plain = choose_excerpts(whole, [], top_k=4, per_facet=2)
    assert [c.key for c in plain] == [c.key for c in allocate(whole, top_k=4)]


@given(
    st.lists(st.integers(0, 30), min_size=0, max_size=30, unique=True),
    st.lists(st.lists(st.integers(0, 40), max_size=15, unique=True), max_size=3),
    st.integers(1, 8),
    st.integers(0, 3),
)
@settings(max_examples=200)
def test_choose_excerpts_takes_every_pick_it_has_room_for(
    pool: list[int], facets: list[list[int]], top_k: int, per_facet: int
) -> None:
    whole = [_c(f"k{i}", f"P{i % 4}", i, 1.0 - n / 100) for n, i in enumerate(pool)]
    turns = [[_c(f"k{i}", f"P{i % 4}", i, 1.0 - n / 100) for n, i in enumerate(f)] for f in facets]
    picks = facet_picks(turns, per_facet=per_facet)
    chosen = [c.key for c in choose_excerpts(whole, turns, top_k=top_k, per_facet=per_facet)]
    choosable = {c.key for c in whole} | set(picks)
    assert len(chosen) == len(set(chosen)) == min(top_k, len(choosable))
    assert set(chosen) <= choosable
    assert set(picks[:top_k]) <= set(chosen)
