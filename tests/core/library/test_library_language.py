"""Language guesses by function words, and the hybrid fusion that uses them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from litdesk.core.library import fuse_hybrid, guess_language, majority_language, rrf

PT = (
    "Esta busca foi realizada em maio de 2022 e recuperou 4412 artigos válidos para a China "
    "e 2005 para o Brasil. Da produção científica chinesa, 3,3% dos artigos está em acesso aberto."
)
ES = (
    "Mediante el coeficiente Alfa de Cronbach se ha obtenido un valor de 0,853; en lo que "
    "respecta al IDT, que alcanza un valor del 70,34%, mejoran los resultados de los trabajos."
)
EN = "The model contains a total of twelve parameters, and the results shown here were fitted."


def test_guesses_the_languages_the_library_meets() -> None:
    assert guess_language(PT) == "pt"
    assert guess_language(ES) == "es"
    assert guess_language(EN) == "en"
    assert guess_language("Die Ergebnisse der Studie sind nicht eindeutig und werden auch") == "de"


def test_too_little_text_is_no_guess() -> None:
    assert guess_language("") is None
    assert guess_language("How many?") is None
    assert guess_language("4412 2005 3,3%") is None


def test_majority_over_excerpts_and_ties() -> None:
    assert majority_language([PT, PT, EN]) == "pt"
    assert majority_language([PT, EN]) is None
    assert majority_language(["", "12"]) is None


@given(st.text(max_size=300))
def test_any_text_gives_a_known_language_or_none(text: str) -> None:
    assert guess_language(text) in {None, "en", "es", "pt", "fr", "de", "it"}


def test_an_unseen_passage_ranked_first_semantically_is_not_buried() -> None:
    semantic = [["es1", "en1", "en2", "en3"]]
    lexical = ["en2", "en3", "en1"]  # the lexical ranking cannot match the Spanish passage
    plain = [item for item, _ in rrf([*semantic, lexical])]
    fused = [item for item, _ in fuse_hybrid(semantic, lexical, unseen={"es1"})]
    assert plain.index("es1") > 0  # plain fusion drops it below the half-matched English ones
    assert fused[0] == "es1"


def test_an_unseen_passage_keeps_its_better_lexical_rank() -> None:
    semantic = [["en1", "en2", "es1"]]
    lexical = ["es1", "en1"]  # a number or a name matched lexically
    fused = dict(fuse_hybrid(semantic, lexical, unseen={"es1"}))
    assert fused["es1"] == 1 / 63 + 1 / 61


@given(
    st.lists(st.integers(0, 30), unique=True, max_size=20),
    st.lists(st.integers(0, 30), unique=True, max_size=20),
)
def test_without_unseen_items_it_is_plain_rrf(semantic: list[int], lexical: list[int]) -> None:
    assert fuse_hybrid([semantic], lexical) == rrf([semantic, lexical])
    assert fuse_hybrid([semantic], lexical, unseen={999}) == rrf([semantic, lexical])
