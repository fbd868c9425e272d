"""The concept-group builder: limits, quoting, duplicates, and (properties) that any
accepted groups compile for every provider and read back through the query grammar."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.core.query import Or, Term, compile_lane, parse_query, render
from litdesk.core.search import PROVIDERS, CompiledRequest, CompileRefused
from litdesk.core.strategy import (
    MAX_GROUPS,
    MAX_QUERY_CHARS,
    MAX_TERMS,
    ConceptGroup,
    StrategyInputError,
    build_query,
    dedupe_key,
    group_terms,
    parse_group_option,
)


def g(*terms: str, included: bool = True, label: str = "") -> ConceptGroup:
    return ConceptGroup(tuple(terms), label, included)


def test_quoted_literals_or_inside_and_across() -> None:
    built = build_query([g("malaria", "plasmodium infection"), g("vaccine")])
    assert built.query == '("malaria" OR "plasmodium infection") AND "vaccine"'
    root = parse_query(built.query).root
    assert isinstance(root.children[0], Or)  # type: ignore[union-attr]
    assert group_terms(built.query) == [["malaria", "plasmodium infection"], ["vaccine"]]


def test_query_syntax_inside_a_term_is_only_text() -> None:
    built = build_query([g("AND", "TITLE:x", 'a "quoted" (b) \\ c*'), g("NOT")])
    terms = parse_query(built.query).terms
    assert [t.text for t in terms] == ["AND", "TITLE:x", 'a "quoted" (b) \\ c*', "NOT"]
    assert all(t.phrase and t.field is None for t in terms)


def test_excluded_groups_stay_out_of_the_query_and_are_named() -> None:
    built = build_query([g("a1"), g("b2", included=False), g("c3")])
    assert built.query == '"a1" AND "c3"'
    assert "1 group not included in the query" in built.warnings
    assert len(built.groups) == 3


def test_duplicates_removed_nfkc_case_insensitively() -> None:
    built = build_query([g("Café", "CAFÉ", "caf\u00e9", "ﬁsh", "fish", "  fish  ")])
    assert built.groups[0].terms == ("Café", "ﬁsh")
    assert built.removed_duplicates == ("CAFÉ", "café", "fish", "fish")
    assert dedupe_key("ﬁsh") == dedupe_key("FISH")


@pytest.mark.parametrize(
    ("groups", "code"),
    [
        ([], "empty"),
        ([g("a")] * (MAX_GROUPS + 1), "groups"),
        ([g(*[f"t{i}" for i in range(MAX_TERMS + 1)])], "terms"),
        ([g()], "empty"),
        ([g("ok", "  ")], "empty"),
        ([g("ok", "!!!")], "term"),
        ([g("bad\x00term")], "control"),
        ([g("bad\u200bterm")], "control"),
        ([g("x" * 161)], "length"),
        ([g("a", included=False)], "none_included"),
        (
            [
                g(*[f"{i}" + "x" * 150 for i in range(8)]),
                g(*[f"{i}" + "y" * 150 for i in range(8)]),
            ],
            "length",
        ),
    ],
)
def test_refusals(groups: list[ConceptGroup], code: str) -> None:
    with pytest.raises(StrategyInputError) as info:
        build_query(groups)
    assert info.value.code == code


def test_the_length_limit_is_on_the_built_query() -> None:
    term = "x" * 150
    fits = [g(*[f"{term}{i}{j}" for i in range(3)]) for j in range(4)]
    built = build_query(fits)
    assert len(built.query) <= MAX_QUERY_CHARS


def test_group_option() -> None:
    assert parse_group_option("a|b c|d") == ("a", "b c", "d")
    assert parse_group_option(r"x\|y|z\\") == ("x|y", "z\\")


# --- properties -----------------------------------------------------------------------

_CHARS = st.characters(
    blacklist_categories=("Cc", "Cs", "Cf", "Co", "Cn"),
)
_TERM = st.text(_CHARS, min_size=1, max_size=40).filter(lambda t: any(c.isalnum() for c in t))
_GROUP = st.builds(
    ConceptGroup,
    st.lists(_TERM, min_size=1, max_size=MAX_TERMS).map(tuple),
    st.just(""),
    st.booleans(),
)
_WS = re.compile(r"\s+")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_GROUP, min_size=1, max_size=MAX_GROUPS))
def test_any_accepted_groups_compile_and_round_trip(groups: list[ConceptGroup]) -> None:
    try:
        built = build_query(groups)
    except StrategyInputError as exc:
        assert exc.code in {"none_included", "length"}
        return
    included = [grp for grp in built.groups if grp.included]
    assert group_terms(built.query) == [list(grp.terms) for grp in included]
    for grp, raw in zip(built.groups, groups, strict=True):  # cleaning only collapses spaces
        keys = {dedupe_key(t) for t in raw.terms}
        assert {dedupe_key(t) for t in grp.terms} == keys
    parsed = parse_query(built.query)
    assert group_terms(render(parsed.root)) == group_terms(built.query)
    assert all(isinstance(t, Term) and t.phrase for t in parsed.terms)
    assert len(built.query) <= MAX_QUERY_CHARS
    for provider in PROVIDERS:
        try:
            req = compile_lane(provider, built.query)
        except CompileRefused as exc:
            assert exc.reason
            continue
        assert isinstance(req, CompiledRequest)


def test_a_term_with_a_typographic_quote_round_trips() -> None:
    # found by the property test below once typographic quotes became phrase quotes
    built = build_query([g("0\uff02"), g("\u201cquoted\u201d words")])
    assert [t.text for t in parse_query(built.query).terms] == [
        "0\uff02",
        "\u201cquoted\u201d words",
    ]
