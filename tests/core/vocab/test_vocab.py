"""Controlled vocabularies (pure): the active term, inserting a picked subject, the
suggestion index's two tiers and its spelling rules, expansion provenance limits."""

from __future__ import annotations

import random

import pytest

from litdesk.core.query import parse_query
from litdesk.core.vocab import (
    EXPANSION_LIMITS,
    ExpansionInvalid,
    Subject,
    SubjectIndex,
    active_term,
    insert_subject,
    quote_label,
    read_expansions,
    spelling_allowed,
)
from litdesk.core.vocab._index import _distance

SUBJECTS = [
    Subject("mesh", "D003920", "Diabetes Mellitus"),
    Subject("mesh", "D003924", "Diabetes Mellitus, Type 2"),
    Subject("mesh", "D003922", "Diabetes Mellitus, Type 1"),
    Subject("mesh", "D003930", "Diabetic Retinopathy"),
    Subject("mesh", "D016640", "Diabetes, Gestational"),
    Subject("mesh", "D007333", "Insulin Resistance"),
    Subject("mesh", "D014376", "Tuberculosis"),
    Subject("mesh", "D014397", "Tuberculosis, Pulmonary"),
    Subject("mesh", "D006973", "Hypertension", synonyms=("High Blood Pressure",)),
    Subject("mesh", "D019398", "BRCA1 Protein"),
    Subject("mesh", "D001249", "Asthma"),
]


@pytest.fixture(scope="module")
def index() -> SubjectIndex:
    return SubjectIndex(SUBJECTS)


@pytest.mark.parametrize(
    ("query", "caret", "span", "text"),
    [
        ("diab", None, (0, 4), "diab"),
        ("diabetes AND insulin resist", None, (13, 27), "insulin resist"),
        ("diabetes AND insulin resist", 3, (0, 8), "diabetes"),
        ('(asthma OR "high blood pre', None, (11, 26), "high blood pre"),
        ('"insulin \\"resist\\"" AND x', 5, (0, 20), 'insulin "resist"'),
        ("TITLE:tuberc", None, (6, 12), "tuberc"),
        ("asthma ", None, (0, 6), "asthma"),
        ("a OR (b c) d", 8, (6, 9), "b c"),
    ],
)
def test_active_term(query: str, caret: int | None, span: tuple[int, int], text: str) -> None:
    term = active_term(query, caret)
    assert term is not None
    assert (term.start, term.end, term.text) == (*span, text)


@pytest.mark.parametrize(
    ("query", "caret"),
    [("", None), ("asthma AND ", None), ("asthma AND", None), ("(", None), ("a  b", 2)],
)
def test_no_active_term_after_an_operator_or_in_a_gap(query: str, caret: int | None) -> None:
    assert active_term(query, caret) is None


def test_active_term_is_bounded() -> None:
    assert active_term("x" * 161) is None
    assert active_term("x" * 160) is not None


def test_insert_replaces_only_the_active_term_and_quotes_where_needed() -> None:
    query = "diabetes AND insulin resist OR obesity"
    term = active_term(query, 20)
    assert term is not None and term.text == "insulin resist"
    new, caret = insert_subject(query, term, "Insulin Resistance")
    assert new == 'diabetes AND "Insulin Resistance" OR obesity'
    assert new[:caret].endswith('"Insulin Resistance"')
    parse_query(new)  # still a valid query
    single = active_term("asth")
    assert single is not None
    assert insert_subject("asth", single, "Asthma") == ("Asthma", 6)


@pytest.mark.parametrize(
    ("label", "quoted"),
    [
        ("Asthma", "Asthma"),
        ("Diabetes Mellitus, Type 2", '"Diabetes Mellitus, Type 2"'),
        ("NOT", '"NOT"'),
        ("AND", '"AND"'),
        ("TITLE:x", '"TITLE:x"'),
        ("Receptor (Human)", '"Receptor (Human)"'),
        ('Say "hi"\\', '"Say \\"hi\\"\\\\"'),
        ("Alzheimer's", "Alzheimer's"),
    ],
)
def test_quote_label(label: str, quoted: str) -> None:
    text = quote_label(label)
    assert text == quoted
    tree = parse_query(text)
    assert [t.text for t in tree.terms] == [label]  # the query language reads the label back


def test_prefix_tier_exact_first_then_shorter_labels(index: SubjectIndex) -> None:
    labels = [s.subject.label for s in index.suggest("diabetes")]
    assert labels[0] == "Diabetes Mellitus"
    assert labels == sorted(labels, key=len)
    assert "Diabetic Retinopathy" not in labels
    exact = index.suggest("tuberculosis")
    assert [(s.subject.label, s.kind) for s in exact] == [
        ("Tuberculosis", "exact"),
        ("Tuberculosis, Pulmonary", "prefix"),
    ]
    assert len(index.suggest("dia", limit=2)) == 2
    assert index.suggest("d") == []  # one character asks nothing


def test_synonyms_match_and_name_what_matched(index: SubjectIndex) -> None:
    (hit,) = index.suggest("high blood")
    assert hit.subject.label == "Hypertension" and hit.matched == "High Blood Pressure"


def test_spelling_tier_only_for_long_letter_only_lower_case(index: SubjectIndex) -> None:
    assert [(s.subject.label, s.kind) for s in index.suggest("tubercolosis")][0] == (
        "Tuberculosis",
        "spelling",
    )
    assert index.suggest("hypertention")[0].subject.label == "Hypertension"
    assert index.suggest("astma") == []  # five characters: too short to correct
    assert index.suggest("BRCAA1") == []  # digits: a gene symbol is never corrected
    assert index.suggest("HYPERTENTION") == []  # all upper case: an acronym
    assert not spelling_allowed("TUBERCOLOSIS") and spelling_allowed("tubercolosis")
    assert not spelling_allowed("p53 protein")
    assert len(index.suggest("diabetus mellitus")) <= 3 + 8


def test_spelling_suggestions_are_few_and_close(index: SubjectIndex) -> None:
    found = index.suggest("diabetis mellitus")
    spelled = [s for s in found if s.kind == "spelling"]
    assert 1 <= len(spelled) <= 3
    assert spelled[0].subject.label == "Diabetes Mellitus"
    assert index.suggest("qwertyuiop") == []


def test_words_typed_in_another_order_find_an_inverted_heading(index: SubjectIndex) -> None:
    # MeSH inverts its headings: "type 2 diabetes" is "Diabetes Mellitus, Type 2"
    found = index.suggest("type 2 diab")
    assert [(s.subject.label, s.kind) for s in found] == [("Diabetes Mellitus, Type 2", "words")]
    assert [s.subject.label for s in index.suggest("pulmonary tuberc")] == [
        "Tuberculosis, Pulmonary"
    ]
    # prefix matches come first, then the other orders (shorter first), never twice
    mixed = [(s.subject.label, s.kind) for s in index.suggest("diabetes mel")]
    assert mixed[0] == ("Diabetes Mellitus", "prefix")
    assert len({label for label, _kind in mixed}) == len(mixed)
    assert index.suggest("pulmonary asthma") == []  # every word must match one label
    assert index.suggest("high pressure")[0].subject.label == "Hypertension"  # synonyms too


def test_distance_matches_a_plain_implementation() -> None:
    def plain(a: str, b: str) -> int:
        d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                d[i][j] = min(
                    d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
                )
                if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
        return d[-1][-1]

    rng = random.Random(7)
    for _ in range(3000):
        a = "".join(rng.choices("abc", k=rng.randint(0, 7)))
        b = "".join(rng.choices("abc", k=rng.randint(0, 7)))
        bound = rng.randint(0, 3)
        want = plain(a, b)
        assert _distance(a, b, bound) == (want if want <= bound else bound + 1), (a, b, bound)


def test_expansions_are_validated() -> None:
    ok = read_expansions([{"vocabulary": "mesh", "id": "D003920", "terms": ["Diabetes Mellitus"]}])
    assert ok[0].label == "Diabetes Mellitus" and ok[0].to_dict()["id"] == "D003920"
    bad = [
        [{"vocabulary": "mesh", "id": "D1", "terms": []}],
        [{"vocabulary": "mesh", "id": "", "terms": ["x"]}],
        [{"vocabulary": "", "id": "D1", "terms": ["x"]}],
        [{"vocabulary": "mesh", "id": "D1", "terms": ["x" * 181]}],
        [{"vocabulary": "mesh", "id": "D1", "terms": ["x"] * 9}],
        [{"vocabulary": "mesh", "id": "D1", "terms": ["x"], "extra": 1}],
        [{"vocabulary": "mesh", "id": "D1", "terms": ["x"]}] * (EXPANSION_LIMITS["entries"] + 1),
        "not a list",
    ]
    for data in bad:
        with pytest.raises(ExpansionInvalid):
            read_expansions(data)


def test_controlled_term_and_synonym_group_parse_back() -> None:
    from litdesk.core.vocab import controlled_term, synonym_group

    text = controlled_term('Say "hi"', "MESH")
    assert text == 'MESH:"Say \\"hi\\""'
    (term,) = parse_query(text).terms
    assert (term.field, term.text) == ("mesh", 'Say "hi"')
    group = synonym_group("Hypertension", ("High Blood Pressure", "hypertension"))
    assert group == '(Hypertension OR "High Blood Pressure")'
    assert [t.text for t in parse_query(group).terms] == ["Hypertension", "High Blood Pressure"]
    assert synonym_group("Asthma", ()) == "Asthma"


def test_a_typographic_quote_opens_a_phrase_for_suggestions() -> None:
    # pasted “…”: the active term is the phrase, without the mark (before: '“myocardial inf')
    term = active_term("aspirin AND \u201cmyocardial inf")
    assert term is not None and (term.text, term.phrase, term.start) == ("myocardial inf", True, 12)
