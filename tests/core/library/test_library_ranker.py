"""The pure ranker (:func:`rank_excerpts`) and its parameters, fed by a fake library."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError, LitdeskError
from litdesk._settings import Settings, SettingsError
from litdesk.core.library import (
    PAPER_LEXICAL_LIMIT,
    DocFrequencies,
    RetrievalParams,
    RetrievalParamsError,
    RetrievalScope,
    VectorIndex,
    rank_excerpts,
    split_facets,
)

F32 = npt.NDArray[np.float32]
DIM = 128


@dataclass(frozen=True)
class Chunk:
    id: int
    sha256: str
    page: int
    text: str


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _embed(text: str) -> F32:
    """A bag of hashed words, unit length (deterministic across processes)."""
    v = np.zeros(DIM, dtype=np.float32)
    for w in _words(text):
        v[zlib.crc32(w.encode()) % DIM] += 1.0
    v[-1] += 0.05  # never the zero vector
    return (v / np.linalg.norm(v)).astype(np.float32)


class FakeFeed:
    """A library of in-memory chunks: whole-word lexical matches, hashed-word vectors."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.rows = np.vstack([_embed(c.text) for c in chunks])
        self.embedded: list[list[str]] = []
        self.lexical_limits: list[int] = []
        self.vector_calls = 0

    def embed(self, texts: list[str]) -> F32:
        self.embedded.append(list(texts))
        return np.vstack([_embed(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def lexical(self, words: list[str], papers: list[str], limit: int) -> list[int]:
        self.lexical_limits.append(limit)
        wanted = set(words)
        scored = [
            (len(wanted & set(_words(c.text))), c.id)
            for c in self.chunks
            if c.sha256 in papers and wanted & set(_words(c.text))
        ]
        return [i for _, i in sorted(scored, key=lambda t: (-t[0], t[1]))][:limit]

    def vectors(self, positions: list[int]) -> F32:
        self.vector_calls += 1
        return self.rows[positions]

    def bridge(
        self, rankings: list[list[int]], foreign: Collection[str]
    ) -> Callable[[list[str]], list[str]]:
        return lambda words: words


WHEAT = [
    f"Wheat heat stress trial {i}: heat stress slowed grain filling and cut the yield of "
    f"wheat in the greenhouse at {30 + i} degrees; wheat grain filling and yield fell."
    for i in range(6)
]
RIVER = [
    "Levels were read from time-lapse photographs of the bank.",
    "A staff gauge beside the camera gave the reference level.",
]
OTHER = [
    "Sediment cores were taken at twelve stations along the estuary.",
    "Cadmium was highest in the sediments near the harbour.",
]
TWO_FACETS = (
    "How did heat stress change wheat grain filling and yield in the greenhouse, "
    "and which reference did the photographs of the river use?"
)


def _library() -> list[Chunk]:
    out: list[Chunk] = []
    for sha, texts in (("w" * 64, WHEAT), ("r" * 64, RIVER), ("s" * 64, OTHER)):
        for page, text in enumerate(texts, start=1):
            out.append(Chunk(100 + len(out), sha, page, text))  # ids unlike positions
    return out


NAMES = {"w" * 64: "wheat.pdf", "r" * 64: "river.pdf", "s" * 64: "estuary.pdf"}


def _scope(
    feed: FakeFeed, *, whole: bool = True, below: float = 0.0, uncovered: float = 0.0
) -> RetrievalScope:
    space: VectorIndex | F32 = VectorIndex.build(feed.rows) if whole else feed.rows
    return RetrievalScope(
        chunks=feed.chunks,
        names=NAMES,
        papers=list(NAMES),
        whole=whole,
        space=space,
        languages={s: "en" for s in NAMES},
        dfs=DocFrequencies.build([c.text for c in feed.chunks]),
        abstain_below=below,
        uncovered_below=uncovered,
    )


def _files(feed: FakeFeed, ranked_positions: list[int]) -> list[str]:
    return [NAMES[feed.chunks[p].sha256] for p in ranked_positions]


def test_defaults_are_the_shipped_retrieval() -> None:
    p = RetrievalParams()
    assert (p.facet_slots, p.facet_whole, p.proximity_depth, p.proximity_weight) == (
        3,
        True,
        40,
        0.5,
    )
    assert (p.proximity_facets_only, p.second_papers, p.second_weight) == (True, 2, 4.0)
    assert (p.second_facets_only, p.rerank_depth, p.rerank_fusion) == (False, 0, 1.0)
    assert (p.exact_below, p.pool_min, p.second_foreign) == (50_000, 50, 0.5)
    assert p.bridged_support is True
    with pytest.raises(AttributeError):
        p.facet_slots = 0  # type: ignore[misc]


def test_every_parameter_is_a_described_setting_with_the_same_default(tmp_path: Path) -> None:
    defaults = Settings(data_dir=tmp_path).retrieval_params()
    assert defaults == RetrievalParams()
    for f in fields(RetrievalParams):
        info = Settings.model_fields["retrieval_" + f.name]
        assert info.description and len(info.description) > 20, f.name
        assert info.default == f.default, f.name


def test_settings_from_the_environment_reach_the_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITDESK_RETRIEVAL_FACET_SLOTS", "0")
    monkeypatch.setenv("LITDESK_RETRIEVAL_SECOND_WEIGHT", "1.5")
    monkeypatch.setenv("LITDESK_RETRIEVAL_PROXIMITY_FACETS_ONLY", "false")
    p = Settings(data_dir=tmp_path).retrieval_params()
    assert (p.facet_slots, p.second_weight, p.proximity_facets_only) == (0, 1.5, False)
    monkeypatch.setenv("LITDESK_RETRIEVAL_SECOND_PAPERS", "-1")
    with pytest.raises(SettingsError, match="LITDESK_RETRIEVAL_SECOND_PAPERS"):
        Settings(data_dir=tmp_path)


@pytest.mark.parametrize(
    "change",
    [
        {"facet_slots": -1},
        {"proximity_weight": -0.5},
        {"pool_min": 0},
        {"exact_below": 0},
        {"second_foreign": 1.5},
        {"second_foreign": -0.1},
    ],
)
def test_out_of_range_parameters_are_refused(change: dict[str, float]) -> None:
    with pytest.raises(RetrievalParamsError) as caught:
        replace(RetrievalParams(), **change)
    assert isinstance(caught.value, InputError) and isinstance(caught.value, LitdeskError)
    assert caught.value.details["parameter"] == next(iter(change))


def test_facet_slots_zero_ranks_the_question_whole() -> None:
    assert len(split_facets(TWO_FACETS)) == 2
    feed = FakeFeed(_library())
    whole = rank_excerpts(TWO_FACETS, _scope(feed), feed, RetrievalParams(facet_slots=0), top_k=3)
    assert feed.embedded == [[TWO_FACETS]]  # no facet is embedded, so none is ranked
    faceted = rank_excerpts(TWO_FACETS, _scope(feed), feed, RetrievalParams(), top_k=3)
    assert feed.embedded[1] == [TWO_FACETS, *split_facets(TWO_FACETS)]
    plain = [e.position for e in whole.excerpts]
    assert set(_files(feed, plain)) == {"wheat.pdf"}  # one paper fills every excerpt
    assert set(_files(feed, [e.position for e in faceted.excerpts])) == {
        "wheat.pdf",
        "river.pdf",
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    question=st.sampled_from(
        [
            "Which sediments held the most cadmium near the harbour?",
            "How did heat stress change wheat yield?",
            "What reference did the river photographs use?",
        ]
    ),
    slots=st.integers(0, 6),
    whole_turn=st.booleans(),
    top_k=st.integers(1, 10),
)
def test_facet_parameters_do_not_touch_a_question_that_asks_one_thing(
    question: str, slots: int, whole_turn: bool, top_k: int
) -> None:
    """Facet slots and turns only act on the parts of a question that asks several things."""
    feed = FakeFeed(_library())
    base = rank_excerpts(question, _scope(feed), feed, RetrievalParams(), top_k=top_k)
    params = RetrievalParams(facet_slots=slots, facet_whole=whole_turn)
    other = rank_excerpts(question, _scope(feed), feed, params, top_k=top_k)
    assert other == base


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    question=st.sampled_from(
        [TWO_FACETS, "Where was cadmium highest?", "wheat; river; estuary sediments cores"]
    ),
    whole=st.booleans(),
    top_k=st.integers(1, 20),
    slots=st.integers(0, 4),
    prox=st.integers(0, 30),
    second=st.integers(0, 3),
    rerank=st.integers(0, 15),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
def test_any_parameters_give_a_valid_ranking(
    question: str,
    whole: bool,
    top_k: int,
    slots: int,
    prox: int,
    second: int,
    rerank: int,
    flags: tuple[bool, bool, bool],
) -> None:
    """top_k distinct excerpts (fewer only when the scope has fewer), best first, and a
    verdict on them; the same inputs give the same ranking."""
    feed = FakeFeed(_library())
    params = RetrievalParams(
        facet_slots=slots,
        facet_whole=flags[0],
        proximity_depth=prox,
        proximity_facets_only=flags[1],
        second_papers=second,
        second_facets_only=flags[2],
        rerank_depth=rerank,
    )
    ranked = rank_excerpts(question, _scope(feed, whole=whole), feed, params, top_k=top_k)
    positions = [e.position for e in ranked.excerpts]
    assert len(positions) == len(set(positions)) == min(top_k, len(feed.chunks))
    assert all(0 <= p < len(feed.chunks) for p in positions)
    scores = [e.score for e in ranked.excerpts]
    assert scores == sorted(scores, reverse=True)
    assert ranked.verdict is not None and ranked.verdict.support is not None
    assert rank_excerpts(question, _scope(feed, whole=whole), feed, params, top_k=top_k) == ranked
    # the second pass reads the leading papers' own lexical rankings only when it is on
    facets = slots > 0 and len(split_facets(question)) > 1
    passes = second > 0 and (facets or not flags[2])
    assert (PAPER_LEXICAL_LIMIT in feed.lexical_limits) == passes


def test_a_chosen_set_gives_each_paper_its_share() -> None:
    feed = FakeFeed(_library())
    question = "How did heat stress change wheat grain filling and yield?"
    whole = rank_excerpts(question, _scope(feed, whole=True), feed, RetrievalParams(), top_k=6)
    chosen = rank_excerpts(question, _scope(feed, whole=False), feed, RetrievalParams(), top_k=6)
    assert set(_files(feed, [e.position for e in whole.excerpts])) == {"wheat.pdf"}
    files = _files(feed, [e.position for e in chosen.excerpts])
    assert {f: files.count(f) for f in set(files)} == {
        "wheat.pdf": 2,
        "river.pdf": 2,
        "estuary.pdf": 2,
    }


def test_the_scopes_thresholds_decide_the_abstention() -> None:
    feed = FakeFeed(_library())
    question = "Where was cadmium highest?"
    kept = rank_excerpts(question, _scope(feed), feed, RetrievalParams())
    refused = rank_excerpts(question, _scope(feed, below=99.0), feed, RetrievalParams())
    assert kept.verdict is not None and refused.verdict is not None
    assert not kept.verdict.abstained and refused.verdict.abstained
    assert refused.verdict.threshold == 99.0
    assert kept.excerpts == refused.excerpts  # the ranking itself does not change
    top = feed.chunks[kept.excerpts[0].position]
    assert "Cadmium" in top.text


def test_top_k_out_of_range_is_an_input_error() -> None:
    feed = FakeFeed(_library())
    with pytest.raises(InputError):
        rank_excerpts("wheat yield", _scope(feed), feed, RetrievalParams(), top_k=0)


def test_rerank_depth_reorders_the_shortlist_by_support() -> None:
    """With a re-rank the chosen excerpts carry support-blended scores (above 1), the
    chunks' vectors are read for it, and the question's best chunk still leads."""
    question = "Where was cadmium highest in the sediments?"
    feed = FakeFeed(_library())
    plain = rank_excerpts(question, _scope(feed), feed, RetrievalParams(), top_k=3)
    calls = feed.vector_calls
    deep = rank_excerpts(question, _scope(feed), feed, RetrievalParams(rerank_depth=5), top_k=3)
    assert feed.vector_calls > calls
    assert max(e.score for e in plain.excerpts) < 1.0 < deep.excerpts[0].score
    assert deep.excerpts[0].position == plain.excerpts[0].position
