"""Cross-lingual word bridges (pure)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from litdesk.core.library import bridge_words, home_words, own_language, paper_vocabulary
from litdesk.core.library._second_pass import foreign_words, second_pass


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


PT = "Os artigos publicados pelas editoras comerciais foram analisados com a amostra de Málaga em 2019."
EN = "The articles published by the commercial publishers were analysed with the sample in 2019."


def test_a_papers_own_words_leave_out_its_english_abstract_and_the_questions_language() -> None:
    texts = [EN, PT, PT + " Os autores", "12 34"]
    # the paper's language is the one most of its excerpts are in; untold ones stay
    assert own_language(texts) == [PT, PT + " Os autores", "12 34"]
    assert own_language(["12", "34"]) == ["12", "34"]
    home = home_words([EN, "Publishers and journals"])
    assert {"articles", "publishers", "journals", "sample"} <= home and "the" not in home
    assert home_words([EN] * 10, sample=2) == home_words([EN])  # thinned, same words
    assert home_words([]) == frozenset() and home_words([EN], sample=0) == frozenset()
    vocab = paper_vocabulary(own_language(texts), exclude=home)
    assert "artigos" in vocab and "editoras" in vocab and "autores" in vocab
    assert not set(vocab) & {"articles", "publishers", "sample"}


def test_foreign_words_are_the_bridged_ones_and_those_the_paper_writes_as_they_are() -> None:
    words = ["articles", "málaga", "2019", "publisher", "sample"]
    extra = ["artigos", "editoras", "amostra"]
    got = foreign_words(words, extra, [EN, PT, PT])
    # "Málaga" and "2019" read the same in Portuguese; "articles" is only in the abstract
    assert got == ["málaga", "2019", "artigos", "editoras", "amostra"]
    assert foreign_words(["sample", "publisher"], [], [PT]) == []


def _chunk(i: int, sha: str, page: int, text: str) -> object:
    from litdesk.services.library._catalogue import StoredChunk

    return StoredChunk(i, sha, page - 1, page, text)


def test_the_second_pass_ranks_a_foreign_paper_again_on_its_bridged_words() -> None:
    """An English question, a Portuguese paper first: its abstract (English) leads on the
    cosine; on the bridged words the page that answers comes first. Without a bridge, or
    when the bridge finds too few of the question's words, the paper keeps its order."""
    answer = "A editora comercial publica 1132 dos artigos chineses, o que equivale a um quarto da amostra."
    chunks = [_chunk(1, "pt", 1, EN), _chunk(2, "pt", 2, PT), _chunk(3, "pt", 3, answer)]
    vectors = np.asarray([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8]], dtype=np.float32)
    ranking = [(0, 0.9), (1, 0.8), (2, 0.7)]
    question = "How many Chinese articles does the commercial publisher carry in the sample?"

    def run(bridge: object, share: float = 0.5) -> list[int]:
        out = second_pass(
            ranking, question, np.asarray([1.0, 0.0], dtype=np.float32), chunks,  # type: ignore[arg-type]
            vectors_of=lambda sha, pos: vectors[pos],
            lexical_of=lambda shas, words: [c.id for c in chunks if c.sha256 in shas and any(w in c.text.lower() for w in words)],  # type: ignore[attr-defined]
            papers=2, weight=4.0, skip={"pt"}, bridge=bridge, foreign_share=share,  # type: ignore[arg-type]
        )  # fmt: skip
        return [pos for pos, _ in out]

    def bridge(words: list[str]) -> list[str]:
        return words + ["chineses", "artigos", "comercial", "editora", "amostra"]

    assert run(bridge)[0] == 2  # the answer first
    assert run(None) == [0, 1, 2]  # no bridge: the order as it was
    assert run(lambda words: words + ["artigos"]) == [0, 1, 2]  # too few words seen
    assert run(bridge, share=0.0) == [0, 1, 2]  # 0: never
