"""The support signal behind abstention (pure)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.core.library import (
    ABSTAIN_BELOW,
    DocFrequencies,
    abstention_text,
    distinctive_terms,
    judge,
    question_terms,
    support,
    terms,
    uncovered_terms,
    verdict,
)

TEXTS = [
    "Water levels were measured with time-lapse cameras on two bridges.",
    "Heat stress reduced the grain yield of wheat.",
    "Cadmium was highest near the harbour outflow.",
    "The cameras agreed with the staff gauge.",
]


def test_terms_fold_accents_case_and_stem() -> None:
    assert terms("Análise ÁNALISE analisar") == {"anali"}
    assert "2022" in terms("in May 2022") and "may" in terms("in May 2022")


def test_question_terms_split_hyphens_and_drop_short_parts() -> None:
    assert question_terms(["time-lapse", "n-domain", "CO2", "x"]) == [
        "time",
        "lapse",
        "domai",
        "co2",
    ]


def test_rare_missing_term_weighs_more_than_a_common_one() -> None:
    dfs = DocFrequencies.build(TEXTS)
    assert dfs.idf("zzzzz") > dfs.idf("camer") > 0
    # "cameras" is in 2 of 4 texts, "furosemide" in none: missing it costs more
    text = TEXTS[0]
    missing_rare = support(question_terms(["cameras", "furosemide"]), text, 0.0, dfs)
    missing_common = support(question_terms(["bridges", "cameras"]), TEXTS[2], 0.0, dfs)
    assert missing_rare < 0.5
    assert support(question_terms(["cameras", "bridges"]), text, 0.0, dfs) == 1.0
    assert missing_common == 0.0


def test_support_adds_clipped_cosine_and_handles_no_terms() -> None:
    dfs = DocFrequencies.build(TEXTS)
    assert support([], TEXTS[0], 0.4, dfs) == 0.4
    assert support([], TEXTS[0], -0.3, dfs) == 0.0
    assert support(["camer"], TEXTS[0], 1.7, dfs) == 2.0


def test_a_passage_in_another_language_counts_the_words_the_bridge_found_in_it() -> None:
    texts = [*TEXTS, "A amostra incluiu 412 artigos publicados pela editora."]
    dfs = DocFrequencies.build(texts)
    q = question_terms(["sample", "articles", "journals"])
    pt = texts[-1]
    alone = support(q, pt, 0.3, dfs, other_language=True)
    assert alone == 0.6  # the words cannot match: twice the cosine stands in
    bridged = {"sampl": {"amost"}, "artic": {"artig"}}  # "journals" found nothing
    found = support(q, pt, 0.3, dfs, other_language=True, bridged=bridged)
    assert 0.6 < found < 1.3  # two of three terms by their translations, plus the cosine
    # a translation counts only in a passage in another language, and only when it is there
    assert support(q, pt, 0.3, dfs, bridged=bridged) == 0.3
    assert support(q, TEXTS[1], 0.3, dfs, other_language=True, bridged=bridged) == 0.6


def test_sampled_frequencies_thin_large_scopes() -> None:
    dfs = DocFrequencies.build(TEXTS * 10, sample=8)
    assert dfs.n == 8


def test_judge_and_text() -> None:
    assert judge([]) == (0.0, True)
    assert judge([0.2, ABSTAIN_BELOW]) == (ABSTAIN_BELOW, False)
    assert judge([0.2, ABSTAIN_BELOW - 0.01])[1] is True
    text = abstention_text([("a.pdf", 3, "word " * 200)], 0.41)
    assert text.startswith("The library does not seem to answer this question")
    assert "near misses, not an answer" in text and "- a.pdf, p. 3: word" in text
    assert len(text.splitlines()[-1]) < 300
    assert "near misses" not in abstention_text([], 0.1)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # slow on a loaded machine
@given(
    st.lists(st.text(max_size=40), max_size=6),
    st.lists(st.text(max_size=200), min_size=1, max_size=5),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=5),
)
def test_support_is_bounded_for_any_input(words: list[str], texts: list[str], cos: float) -> None:
    dfs = DocFrequencies.build(texts)
    value = support(question_terms(words), texts[0], cos, dfs)
    assert 0.0 <= value <= 2.0


LIBRARY = [f"Heart failure patients were followed for {n} months in the clinic." for n in range(60)]
LIBRARY += ["The trial gave furosemide to the heart failure patients."]


def test_distinctive_terms_are_the_rare_ones() -> None:
    dfs = DocFrequencies.build(LIBRARY)
    qterms = question_terms(["furosemide", "heart", "failure", "patients", "dose"])
    # furosemide is in 1 of 61 texts, dose in none: both rare; heart/failure/patients everywhere
    assert distinctive_terms(qterms, dfs) == ["furos", "dose"]


def test_uncovered_only_when_no_excerpt_has_a_distinctive_term() -> None:
    dfs = DocFrequencies.build(LIBRARY)
    qterms = question_terms(["furosemide", "dose", "heart", "failure"])
    assert uncovered_terms(qterms, LIBRARY[:3], dfs) == ["furos", "dose"]
    assert uncovered_terms(qterms, LIBRARY[:3] + LIBRARY[-1:], dfs) == []
    # a question of common words only has nothing distinctive to miss
    assert uncovered_terms(question_terms(["heart", "patients"]), LIBRARY[:1], dfs) == []


def test_judge_is_stricter_when_uncovered() -> None:
    assert judge([0.8], below=0.7) == (0.8, False)
    assert judge([0.8], below=0.7, uncovered=True, uncovered_below=0.9) == (0.8, True)
    assert judge([0.95], below=0.7, uncovered=True, uncovered_below=0.9)[1] is False
    assert judge([0.8], below=0.7, uncovered=True)[1] is True  # default: below + 0.15
    # the stricter threshold never lowers the plain one
    assert judge([0.6], below=0.7, uncovered=True, uncovered_below=0.5)[1] is True
    text = abstention_text([], 0.8, below=0.9, missing=["furosemide", "dose"])
    assert "no excerpt contains furosemide, dose" in text and "needed 0.90" in text


def test_verdict_tests_coverage_on_the_excerpts_the_ranking_found() -> None:
    dfs = DocFrequencies.build(LIBRARY)
    words = ["furosemide", "dose", "heart", "failure"]
    qterms = [question_terms(words)]
    plain = LIBRARY[:3]  # neither furosemide nor dose
    # the excerpts shown (after a pass that looks for the rare words) mention furosemide in
    # passing; those the library-wide ranking found do not: the stricter threshold applies,
    # and only what no shown excerpt has is named as missing
    shown = plain + LIBRARY[-1:]
    v = verdict(words, qterms, shown, plain, [0.8], dfs, below=0.7, uncovered_below=0.9)
    assert v.strict and v.abstained and v.threshold == 0.9 and v.support == 0.8
    assert v.missing == ["dose"]
    # found by the ranking itself: the plain threshold
    v = verdict(words, qterms, shown, shown, [0.8], dfs, below=0.7, uncovered_below=0.9)
    assert not v.strict and not v.abstained and v.threshold == 0.7 and v.missing == []
    # the question's variant has nothing distinctive to miss: not strict
    variant = question_terms(["clinic", "months"])
    v = verdict(
        words, [qterms[0], variant], plain, plain, [0.8], dfs, below=0.7, uncovered_below=0.9
    )
    assert not v.strict and v.missing == []
    assert verdict(words, qterms, [], [], [], dfs, below=0.7, uncovered_below=0.9).abstained


@given(
    st.lists(st.text(max_size=20), max_size=6),
    st.lists(st.text(max_size=120), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=6),
    st.integers(min_value=0, max_value=6),
    st.floats(min_value=0, max_value=2),
)
def test_verdict_names_only_missing_words_and_applies_its_threshold(
    words: list[str], library: list[str], shown_n: int, found_n: int, score: float
) -> None:
    dfs = DocFrequencies.build(library)
    qterms = [question_terms(words)]
    shown, found = library[:shown_n], library[:found_n]
    v = verdict(words, qterms, shown, found, [score] if shown else [], dfs, below=0.7, uncovered_below=0.9)  # fmt: skip
    assert v.strict == bool(uncovered_terms(qterms[0], found, dfs))
    assert v.threshold == (0.9 if v.strict else 0.7)
    assert set(v.missing) <= set(words) and (v.strict or not v.missing)
    have = set().union(*(terms(t) for t in shown)) if shown else set()
    for w in v.missing:
        assert set(question_terms([w])) - have
    assert v.abstained == (not shown or score < v.threshold)


@given(
    st.lists(st.text(max_size=20), max_size=6),
    st.lists(st.text(max_size=120), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=6),
)
def test_uncovered_terms_are_distinctive_and_absent(
    words: list[str], library: list[str], picked: int
) -> None:
    dfs = DocFrequencies.build(library)
    qterms = question_terms(words)
    texts = library[:picked]
    missing = uncovered_terms(qterms, texts, dfs)
    rare = distinctive_terms(qterms, dfs)
    assert set(missing) <= set(rare) <= set(qterms)
    found = set().union(*(terms(t) for t in texts)) if texts else set()
    if missing:
        assert missing == rare and not set(missing) & found
    else:
        assert not rare or set(rare) & found
