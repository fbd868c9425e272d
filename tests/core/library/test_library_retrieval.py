from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import (
    Candidate,
    VectorIndex,
    allocate,
    per_paper_minimum,
    rrf,
    salient_words,
    top_k_exact,
)


def test_salient_words_drop_stop_words_keep_acronyms() -> None:
    words = salient_words("Which cameras were used to measure the CO2 in the EU study?")
    assert words == ["cameras", "measure", "co2", "eu"]
    assert salient_words("Quais câmeras foram usadas?") == ["câmeras", "foram", "usadas"]
    # words that frame the question ("what kind of", "in which way") say nothing it is about:
    # rare in a library, they would count as its distinctive words that no excerpt has
    words = salient_words("On which kind of interface, and in what way, do the tools run?")
    assert words == ["interface", "tools", "run"]


def test_rrf_fuses_and_is_deterministic() -> None:
    fused = rrf([["a", "b", "c"], ["b", "c", "a"], ["b"]])
    assert [k for k, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61 + 1 / 61)


def test_per_paper_minimum_rule() -> None:
    assert per_paper_minimum(3, 8) == 2
    assert per_paper_minimum(5, 8) == 1
    assert per_paper_minimum(8, 8) == 1
    assert per_paper_minimum(9, 8) == 0


def _cands() -> list[Candidate]:
    # paper A dominates the ranking; B and C appear late
    out = [Candidate(("A", i), "A", 1.0 - i / 100) for i in range(10)]
    out += [
        Candidate(("B", 0), "B", 0.5),
        Candidate(("B", 1), "B", 0.4),
        Candidate(("C", 0), "C", 0.3),
    ]
    return out


def test_allocation_gives_each_chosen_paper_two_first() -> None:
    got = allocate(_cands(), top_k=8, papers=["A", "B", "C"])
    assert len(got) == 8
    per = {p: sum(1 for c in got if c.paper == p) for p in "ABC"}
    assert per == {"A": 5, "B": 2, "C": 1}  # C has only one candidate
    assert [c.score for c in got] == sorted((c.score for c in got), reverse=True)


def test_allocation_whole_library_goes_by_score() -> None:
    got = allocate(_cands(), top_k=8, papers=None)
    assert {c.paper for c in got} == {"A"}


def test_allocation_none_when_papers_outnumber_excerpts() -> None:
    got = allocate(_cands(), top_k=2, papers=["A", "B", "C"])
    assert [c.paper for c in got] == ["A", "A"]
    with pytest.raises(ValueError):
        allocate(_cands(), top_k=21)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("ABCDE"), st.floats(0, 1)), max_size=40),
    st.integers(1, 20),
)
def test_allocation_properties(items: list[tuple[str, float]], top_k: int) -> None:
    items = sorted(items, key=lambda t: -t[1])
    cands = [Candidate(i, p, s) for i, (p, s) in enumerate(items)]
    papers = sorted({p for p, _ in items})
    got = allocate(cands, top_k=top_k, papers=papers)
    assert len(got) == min(top_k, len(cands))
    assert len({c.key for c in got}) == len(got)
    m = per_paper_minimum(len(papers), top_k)
    for p in papers:
        have = sum(1 for c in cands if c.paper == p)
        assert sum(1 for c in got if c.paper == p) >= min(m, have)


def test_vector_index_exact_and_ivf_agree_on_easy_data() -> None:
    rng = np.random.default_rng(1)
    centers = rng.normal(size=(50, 32)).astype(np.float32)
    data = centers[rng.integers(0, 50, 6000)] + 0.05 * rng.normal(size=(6000, 32)).astype(
        np.float32
    )
    exact = VectorIndex.build(data)
    ivf = VectorIndex.build(data, exact_below=1000, nlist=64, nprobe=8)
    assert exact.exact and not ivf.exact and len(ivf) == 6000
    recall = []
    for q in data[:50]:
        a, sa = exact.search(q, 10)
        b, sb = ivf.search(q, 10)
        recall.append(len(set(a.tolist()) & set(b.tolist())) / 10)
        assert sa[0] == pytest.approx(1.0, abs=1e-3)
    assert np.mean(recall) >= 0.9


def test_top_k_exact_orders_scores() -> None:
    m = np.eye(4, dtype=np.float32)
    idx, scores = top_k_exact(m, np.array([0.1, 0.9, 0.5, 0], np.float32), 2)
    assert idx.tolist() == [1, 2]
    assert scores.tolist() == pytest.approx([0.9, 0.5])
    empty = VectorIndex.build(np.zeros((0, 4), np.float32))
    assert empty.search(np.ones(4, np.float32), 3)[0].size == 0


def test_a_page_is_cited_once_before_any_page_twice() -> None:
    cands = [
        Candidate(0, "A", 0.9, page=3),
        Candidate(1, "A", 0.8, page=3),
        Candidate(2, "A", 0.7, page=3),
        Candidate(3, "A", 0.6, page=5),
        Candidate(4, "B", 0.5, page=1),
    ]
    got = [c.key for c in allocate(cands, top_k=3)]
    assert got == [0, 3, 4]
    # when only repeats are left they still fill the excerpts
    assert [c.key for c in allocate(cands, top_k=5)] == [0, 1, 2, 3, 4]


def test_per_paper_cap_leaves_room_for_the_second_paper() -> None:
    cands = [Candidate(i, "A", 1.0 - i / 100, page=i) for i in range(10)]
    cands.append(Candidate(99, "B", 0.1, page=1))
    got = allocate(cands, top_k=4, per_paper_cap=2)
    assert [c.paper for c in got].count("A") == 3  # the cap yields only while B has some
    assert got[-1].key == 99
    alone = [Candidate(i, "A", 1.0 - i / 100, page=i) for i in range(10)]
    assert len(allocate(alone, top_k=4, per_paper_cap=2)) == 4  # nobody else: no gap
