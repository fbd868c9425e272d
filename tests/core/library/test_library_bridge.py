"""Cross-lingual word bridges (pure)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from litdesk.core.library import bridge_words, paper_vocabulary


def _unit(rows: list[list[float]]) -> npt.NDArray[np.float32]:
    m = np.asarray(rows, dtype=np.float32)
    return np.asarray(m / np.linalg.norm(m, axis=1, keepdims=True), dtype=np.float32)


def test_vocabulary_is_the_papers_distinct_words_most_frequent_first() -> None:
    texts = ["Os autores publicaram 99 títulos; os AUTORES", "acesso aberto diamante, e_x já"]
    assert paper_vocabulary(texts) == ["aberto", "acesso", "autores", "diamante", "publicaram", "títulos"]  # fmt: skip
    # the limit keeps the most frequent (autores twice), ties alphabetically
    assert paper_vocabulary(texts, limit=2) == ["aberto", "autores"]
    assert paper_vocabulary([]) == []
    with pytest.raises(ValueError):
        paper_vocabulary(texts, limit=-1)


def test_each_word_bridges_to_its_closest_counterparts_above_the_threshold() -> None:
    words = ["diamond", "journals", "free"]
    wv = _unit([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    vocab = ["diamante", "journals", "periódicos", "revistas", "gratuito"]
    vv = _unit([[0.96, 0.28, 0], [0, 1, 0], [0.1, 0.9, 0.1], [0.3, 0.8, 0.2], [0.8, 0.0, 0.6]])
    # "journals" itself is left out; "free" has nothing close enough (gratuito 0.6)
    assert bridge_words(words, wv, vocab, vv, threshold=0.85, per_word=1) == ["diamante", "periódicos"]  # fmt: skip
    assert bridge_words(words, wv, vocab, vv, threshold=0.85, per_word=2) == ["diamante", "periódicos", "revistas"]  # fmt: skip
    assert bridge_words(words, wv, vocab, vv, threshold=0.99, per_word=1) == []
    assert bridge_words([], wv[:0], vocab, vv) == []
    with pytest.raises(ValueError):
        bridge_words(words, wv[:2], vocab, vv)
    with pytest.raises(ValueError):
        bridge_words(words, wv, vocab, vv, per_word=-1)


@given(
    st.lists(st.text(alphabet="abcde", min_size=1, max_size=4), min_size=1, max_size=5),
    st.lists(st.text(alphabet="abcdef", min_size=1, max_size=4), min_size=1, max_size=8),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.floats(min_value=-1.0, max_value=1.0),
    st.integers(min_value=0, max_value=3),
)
def test_bridges_are_vocabulary_words_close_enough_and_new(
    words: list[str], vocab: list[str], seed: int, threshold: float, per_word: int
) -> None:
    rng = np.random.default_rng(seed)
    wv = _unit(rng.normal(size=(len(words), 4)).tolist())
    vv = _unit(rng.normal(size=(len(vocab), 4)).tolist())
    out = bridge_words(words, wv, vocab, vv, threshold=threshold, per_word=per_word)
    assert len(out) == len(set(out)) <= per_word * len(words)
    assert not set(out) & {w.casefold() for w in words}
    best = (vv @ wv.T).max(axis=1)
    for w in out:
        assert any(best[i] >= threshold - 1e-6 for i, v in enumerate(vocab) if v == w)
