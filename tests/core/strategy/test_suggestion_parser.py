"""The strict parser of a model's suggested concept groups."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.strategy import (
    UNVERIFIED,
    StrategyInputError,
    SuggestionRefused,
    build_query,
    check_question,
    parse_suggestion,
    suggestion_prompt,
)


def answer(groups: object, **extra: object) -> str:
    return json.dumps({"groups": groups, **extra})


def test_a_good_answer_is_kept_marked_unverified_and_builds() -> None:
    s = parse_suggestion(
        answer(
            [
                {"label": "Condition", "terms": ["malaria", "Plasmodium falciparum"]},
                {"label": "Intervention", "terms": ["vaccine", "RTS,S", "immunisation"]},
            ]
        )
    )
    assert [g.terms for g in s.groups] == [
        ("malaria", "Plasmodium falciparum"),
        ("vaccine", "RTS,S", "immunisation"),
    ]
    assert s.to_dict()["warning"] == UNVERIFIED
    assert build_query(s.groups).query.startswith('("malaria" OR')


def test_duplicates_removed_across_groups_nfkc_case_insensitive() -> None:
    s = parse_suggestion(
        answer(
            [
                {"label": "A", "terms": ["ﬁbrosis", "FIBROSIS", "scarring"]},
                {"label": "B", "terms": ["Scarring"]},
                {"label": "C", "terms": ["liver"]},
            ]
        )
    )
    assert [g.terms for g in s.groups] == [("ﬁbrosis", "scarring"), ("liver",)]
    assert s.removed_duplicates == ("FIBROSIS", "Scarring")


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "",
        answer([{"label": "A", "terms": ["x"]}], note="extra"),
        json.dumps({"concepts": []}),
        json.dumps([{"label": "A", "terms": ["x"]}]),
        answer([]),
        answer([{"label": "A", "terms": ["x"]}] * 7),
        answer([{"label": "A", "terms": [f"t{i}" for i in range(9)]}]),
        answer([{"label": "A", "terms": []}]),
        answer([{"label": "A", "terms": ["x"], "why": "extra"}]),
        answer([{"label": "A"}]),
        answer([{"label": 3, "terms": ["x"]}]),
        answer([{"label": "A", "terms": [3]}]),
        answer([{"label": "A", "terms": "x"}]),
        answer([{"label": "", "terms": ["x"]}]),
        answer([{"label": "L" * 81, "terms": ["x"]}]),
        answer([{"label": "A", "terms": ["x" * 161]}]),
        answer([{"label": "A", "terms": ["bad\u0007bell"]}]),
        answer([{"label": "A\u0000", "terms": ["x"]}]),
        answer([{"label": "A", "terms": ["malaria AND vaccine"]}]),
        answer([{"label": "A", "terms": ["malaria OR"]}]),
        answer([{"label": "A", "terms": ["NOT dengue"]}]),
        answer([{"label": "A", "terms": ['"malaria"']}]),
        answer([{"label": "A", "terms": ["(malaria)"]}]),
        answer([{"label": "A", "terms": ["vaccin*"]}]),
        answer([{"label": "A", "terms": ["TITLE:malaria"]}]),
        answer([{"label": "A", "terms": ["see https://example.org"]}]),
        answer([{"label": "A", "terms": ["---"]}]),
        "x" * 20_001,
    ],
)
def test_any_other_shape_is_refused(text: str) -> None:
    with pytest.raises(SuggestionRefused):
        parse_suggestion(text)


def test_lower_case_words_and_hyphens_are_plain_terms() -> None:
    s = parse_suggestion(answer([{"label": "A", "terms": ["signs and symptoms", "X-OR-gate"]}]))
    assert s.groups[0].terms == ("signs and symptoms", "X-OR-gate")


def test_question_checks() -> None:
    assert check_question("  does  malaria\nvaccine work? ") == "does malaria vaccine work?"
    assert json.loads(suggestion_prompt("q")) == {"researchQuestion": "q"}
    for bad in ("", "   ", "x" * 2_001, "a\u0000b"):
        with pytest.raises(StrategyInputError):
            check_question(bad)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=30)),
        lambda kids: st.one_of(
            st.lists(kids, max_size=9), st.dictionaries(st.text(max_size=8), kids, max_size=4)
        ),
        max_leaves=40,
    )
)
def test_arbitrary_json_is_parsed_or_refused_never_crashes(value: object) -> None:
    for text in (json.dumps(value), json.dumps({"groups": value})):
        try:
            s = parse_suggestion(text)
        except SuggestionRefused:
            continue
        assert 1 <= len(s.groups) <= 6
        assert all(1 <= len(g.terms) <= 8 for g in s.groups)
        try:  # every accepted suggestion builds, unless it is too long for one query
            build_query(s.groups)
        except StrategyInputError as exc:
            assert exc.code == "length"


_UNPORTABLE = {"maxItems", "maxLength", "minLength", "minimum", "maximum", "uniqueItems", "pattern"}


def _keywords(schema: object) -> set[str]:
    if isinstance(schema, dict):
        out = set(schema)
        for key, value in schema.items():
            if key == "properties":
                for sub in value.values():
                    out |= _keywords(sub)
            else:
                out |= _keywords(value)
        return out
    if isinstance(schema, list):
        return set().union(*(_keywords(v) for v in schema)) if schema else set()
    return set()


def test_schemas_use_only_the_portable_subset() -> None:
    from litdesk.core.strategy import SUGGESTION_SCHEMA
    from litdesk.core.summary import SUMMARY_SCHEMA

    for schema in (SUGGESTION_SCHEMA, SUMMARY_SCHEMA):
        assert not (_keywords(schema) & _UNPORTABLE)
        assert '"minItems": 2' not in json.dumps(schema)
