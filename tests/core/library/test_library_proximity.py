from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import (
    DocFrequencies,
    proximity,
    question_terms,
    rerank_by_proximity,
    salient_words,
    support,
    text_terms,
)

_DFS = DocFrequencies.build(
    ["the crystal structure was refined", "wheat heat stress", "phasing with molecular replacement"]
    + ["filler text about nothing in particular"] * 20
)


def _q(question: str) -> list[str]:
    return question_terms(salient_words(question))


def test_close_terms_score_higher_than_scattered_ones() -> None:
    q = _q("Which program refined the crystal structure?")
    close = "Later the crystal structure was refined with a program called REFMAC."
    filler = " ".join(["word"] * 40)
    scattered = f"The crystal {filler} structure {filler} was refined {filler} by a program."
    assert proximity(q, close, _DFS, window=12) == pytest.approx(1.0)
    assert proximity(q, scattered, _DFS, window=12) < 0.7
    # the whole-chunk share (the support's word part) cannot tell them apart
    assert support(q, close, 0.0, _DFS) == pytest.approx(support(q, scattered, 0.0, _DFS))


def test_no_terms_or_no_match_is_zero() -> None:
    assert proximity([], "anything", _DFS) == 0.0
    assert proximity(_q("wheat heat stress"), "nothing relevant here", _DFS) == 0.0
    with pytest.raises(ValueError):
        proximity(_q("wheat"), "wheat", _DFS, window=0)


def test_text_terms_keep_order_and_repeats_and_fold() -> None:
    assert text_terms("Málaga refined, REFINED; málaga") == ["malag", "refin", "refin", "malag"]


_VOCAB = st.sampled_from(["crystal", "structure", "refined", "wheat", "heat", "the", "of", "x"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_VOCAB, max_size=60).map(" ".join),
    st.lists(_VOCAB, min_size=1, max_size=6).map(" ".join),
    st.integers(min_value=1, max_value=30),
)
def test_proximity_bounds_and_window_monotone(text: str, question: str, window: int) -> None:
    q = _q(question)
    small = proximity(q, text, _DFS, window=window)
    large = proximity(q, text, _DFS, window=window + 5)
    assert 0.0 <= small <= large <= 1.0
    whole = proximity(q, text, _DFS, window=10_000)
    # a window over the whole text is the plain rarity-weighted share of the terms found
    assert whole == pytest.approx(support(q, text, 0.0, _DFS), abs=1e-9)


def test_rerank_by_proximity_moves_the_close_match_up_within_the_depth() -> None:
    q = _q("Which program refined the crystal structure?")
    filler = " ".join(["word"] * 40)
    texts = {
        "scattered": f"crystal {filler} structure {filler} refined {filler} program",
        "close": "the crystal structure was refined with the program REFMAC",
        "other": "wheat heat stress",
        "late": "the crystal structure was refined with the program REFMAC",
        "foreign": "a estrutura cristalina foi refinada",
    }
    fused = [("scattered", 0.05), ("other", 0.045), ("close", 0.04), ("foreign", 0.035)]
    fused.append(("late", 0.01))
    out = rerank_by_proximity(fused, q, texts.__getitem__, _DFS, depth=4, weight=1.0)
    keys = [k for k, _ in out]
    assert keys[0] == "close" and keys[-1] == "late"  # "late" is beyond the depth
    assert [s for _, s in out] == sorted((s for _, s in out), reverse=True)
    same = rerank_by_proximity(fused, q, texts.__getitem__, _DFS, depth=0, weight=1.0)
    assert same == fused
    # an unseen (other-language) passage gets the median proximity, not zero
    kept = rerank_by_proximity(
        fused, q, texts.__getitem__, _DFS, depth=4, weight=1.0, unseen={"foreign"}
    )
    plain = dict(out)
    assert dict(kept)["foreign"] > plain["foreign"]
    with pytest.raises(ValueError):
        rerank_by_proximity(fused, q, texts.__getitem__, _DFS, depth=-1, weight=1.0)
