"""The query grammar: structure, precedence, fields, limits and positioned errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError
from litdesk.core.query import (
    QUERY_LIMITS,
    SYNTAX_CODES,
    And,
    Node,
    Not,
    Or,
    QuerySyntaxError,
    Term,
    escape_quotes,
    parse_query,
    render,
)


def shape(node: Node) -> Any:
    """The tree without positions, for structural comparison."""
    if isinstance(node, Term):
        kind = "phrase" if node.phrase else "truncated" if node.truncated else "term"
        return (kind, node.text, node.field)
    if isinstance(node, Not):
        return ("not", shape(node.child))
    kind = "and" if isinstance(node, And) else "or"
    return (kind, *[shape(c) for c in node.children])


def t(text: str, field: str | None = None) -> tuple[str, str, str | None]:
    return ("term", text, field)


def p(text: str, field: str | None = None) -> tuple[str, str, str | None]:
    return ("phrase", text, field)


def syntax_error(text: str, **kw: Any) -> QuerySyntaxError:
    with pytest.raises(QuerySyntaxError) as info:
        parse_query(text, **kw)
    return info.value


# ----------------------------------------------------------------- structure


def test_single_term_keeps_position() -> None:
    q = parse_query("  cancer ")
    assert q.root == Term("cancer", False, None, 3, 8)
    assert q.has_boolean_syntax is False


def test_adjacency_is_and() -> None:
    assert shape(parse_query("gene therapy").root) == ("and", t("gene"), t("therapy"))


def test_precedence_not_and_or() -> None:
    q = parse_query("a OR b AND NOT c d")
    assert shape(q.root) == ("or", t("a"), ("and", t("b"), ("not", t("c")), t("d")))
    assert q.has_boolean_syntax is True


def test_parentheses_override_precedence() -> None:
    assert shape(parse_query("(a OR b) AND c").root) == ("and", ("or", t("a"), t("b")), t("c"))


def test_lower_case_operators_are_terms() -> None:
    q = parse_query("salt and pepper or not")
    assert shape(q.root) == ("and", t("salt"), t("and"), t("pepper"), t("or"), t("not"))
    assert q.has_boolean_syntax is False


def test_phrase_escapes_and_whitespace() -> None:
    q = parse_query(r'"say \"hi\"  \\ now"')
    assert shape(q.root) == p('say "hi" \\ now')
    assert q.root.position == 1 and q.root.end == len(r'"say \"hi\"  \\ now"')  # type: ignore[union-attr]


def test_backslash_outside_quotes_escapes_operators_and_parens() -> None:
    q = parse_query(r"\AND \(x\)")
    assert shape(q.root) == ("and", t("AND"), t("(x)"))
    assert render(q.root) == r"\AND AND \(x\)"


def test_field_prefixes() -> None:
    q = parse_query('TITLE:"gene therapy" ABSTRACT:crispr AUTHOR:smith AUTH:doe AUTH_LAST:roe')
    assert shape(q.root) == (
        "and",
        p("gene therapy", "title"),
        t("crispr", "abstract"),
        t("smith", "author"),
        t("doe", "author"),
        t("roe", "author_last"),
    )
    assert q.has_boolean_syntax is True


def test_field_on_group_applies_to_every_leaf() -> None:
    q = parse_query("TITLE:(a OR NOT b)")
    assert shape(q.root) == ("or", t("a", "title"), ("not", t("b", "title")))


def test_nested_conflicting_field_is_refused() -> None:
    err = syntax_error("TITLE:(a AUTHOR:b)")
    assert err.code == "field"
    assert err.position == len("TITLE:(a ") + 1


def test_lower_case_colon_word_is_a_term() -> None:
    assert shape(parse_query("https://doi.org/x").root) == t("https://doi.org/x")


def test_author_field_makes_one_byline_phrase() -> None:
    q = parse_query('Smith  J "van der"', field="author")
    assert shape(q.root) == p("Smith J van der")
    assert q.default_field == "author"


def test_author_field_with_operators_parses_normally() -> None:
    q = parse_query("Smith OR Doe", field="author")
    assert shape(q.root) == ("or", t("Smith"), t("Doe"))


def test_and_or_are_flattened() -> None:
    q = parse_query("a AND (b AND c) OR (d OR e)")
    assert shape(q.root) == ("or", ("and", t("a"), t("b"), t("c")), t("d"), t("e"))


def test_to_dict_is_json_ready() -> None:
    d = parse_query("NOT a b").to_dict()
    assert d["tree"]["type"] == "and"
    assert d["tree"]["children"][0] == {
        "type": "not",
        "child": {
            "type": "term",
            "text": "a",
            "field": None,
            "position": 5,
            "end": 5,
            "truncated": False,
        },
    }
    assert d["canonical"] == "NOT a AND b"


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "code", "position", "end"),
    [
        ("", "empty", 1, 1),
        ("   \t", "empty", 1, 4),
        ("!!! ---", "empty", 1, 7),
        ("a\x00b", "control", 2, 2),
        ("ok \x7f", "control", 4, 4),
        ("ok\udcff", "unsupported", 3, 3),
        ("abc\\", "escape", 4, 4),
        ('"abc\\', "escape", 5, 5),
        ('x "open phrase', "quote", 3, 14),
        ('x "  "', "quote", 3, 6),
        ("JOURNAL:nature", "field", 1, 8),
        ("TITLE: cancer", "field", 1, 6),
        ("TITLE:)", "field", 1, 6),
        ("AND cancer", "operator", 1, 3),
        ("cancer OR", "operator", 8, 9),
        ("a AND AND b", "operator", 3, 5),
        ("NOT", "operator", 1, 3),
        ("(a OR b", "group", 1, 7),
        ("a OR b)", "group", 7, 7),
        ("a ()", "group", 3, 4),
    ],
)
def test_errors_carry_code_and_position(text: str, code: str, position: int, end: int) -> None:
    err = syntax_error(text)
    assert (err.code, err.position, err.end) == (code, position, end)
    assert isinstance(err, InputError) and err.exit_code == 2
    assert err.to_dict()["details"] == {"position": position, "end": end}


def test_length_limit() -> None:
    ok = "a" * QUERY_LIMITS.chars
    assert parse_query(ok).root == Term(ok, False, None, 1, QUERY_LIMITS.chars)
    err = syntax_error(ok + "b")
    assert err.code == "length" and err.position == QUERY_LIMITS.chars + 1


def test_token_limit() -> None:
    words = " ".join(f"w{i}" for i in range(QUERY_LIMITS.tokens))
    err = syntax_error(words + " extra")
    assert err.code == "complexity"
    assert err.position == len(words) + 2
    assert "tokens" in err.message


def test_node_limit() -> None:
    # n terms joined by implicit AND make n + 1 nodes
    ok = " ".join(f"w{i}" for i in range(QUERY_LIMITS.nodes - 1))
    assert len(parse_query(ok).terms) == QUERY_LIMITS.nodes - 1
    err = syntax_error(ok + " more")
    assert err.code == "complexity" and "nodes" in err.message


def test_depth_limit() -> None:
    depth = QUERY_LIMITS.depth
    assert shape(parse_query("(" * depth + "x" + ")" * depth).root) == t("x")
    err = syntax_error("(" * (depth + 1) + "x" + ")" * (depth + 1))
    assert err.code == "complexity" and err.position == depth + 1


def test_tab_and_newline_are_whitespace() -> None:
    assert shape(parse_query("a\tb\nc").root) == ("and", t("a"), t("b"), t("c"))


# ------------------------------------------------------------- properties

_ALPHABET = st.sampled_from(
    list('abcXYZ019 ()"\\:-*\t\n')
    + ["\\*", "x*", "covid-19*", '"a*"']
    + ["AND", "OR", "NOT", "TITLE:", "AUTH:", "JOURNAL:", "é", "\x01", "\udcff"]
)
_TEXT = st.one_of(st.text(max_size=80), st.lists(_ALPHABET, max_size=30).map("".join))


@settings(max_examples=200, deadline=None)
@given(_TEXT, st.sampled_from(["all", "title", "abstract", "author"]))
def test_any_text_parses_or_fails_with_position(text: str, field: str) -> None:
    try:
        q = parse_query(text, field=field)  # type: ignore[arg-type]
    except QuerySyntaxError as err:
        assert err.code in SYNTAX_CODES
        assert 1 <= err.position <= max(1, len(text))
        assert err.position <= err.end <= max(1, len(text))
        return
    for term in q.terms:
        assert term.text
        assert 1 <= term.position <= term.end <= len(text)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_render_round_trips(text: str) -> None:
    try:
        q = parse_query(text)
    except QuerySyntaxError:
        return
    again = parse_query(render(q.root))
    assert shape(again.root) == shape(q.root)


def test_or_node_type() -> None:
    assert isinstance(parse_query("a OR b").root, Or)


# ------------------------------------------------------- proximity (refused, never a term)


@pytest.mark.parametrize(
    ("text", "position", "end"),
    [
        ("heart NEAR/3 failure", 7, 12),
        ("heart NEAR failure", 7, 10),
        ("heart W/5 failure", 7, 9),
        ("(heart ADJ3 failure) OR x", 8, 11),
        ('"heart failure"~3 AND aspirin', 16, 17),
        ("colour~", 1, 7),
        ("colour~2", 1, 8),
    ],
)
def test_proximity_and_fuzzy_syntax_is_refused_at_its_position(
    text: str, position: int, end: int
) -> None:
    # before: NEAR/3 or ~3 became one more AND-ed word, searching something else
    err = syntax_error(text)
    assert (err.code, err.position, err.end) == ("unsupported", position, end)
    assert "not supported" in str(err)


@pytest.mark.parametrize("text", ["near miss", "NEARBY", "ADJUVANT", "W", "heart\\~3", "H5N1"])
def test_words_that_only_look_like_proximity_are_terms(text: str) -> None:
    assert parse_query(text).terms


def test_typographic_quotes_are_phrase_quotes() -> None:
    # pasted from a word processor: before, “heart failure” was “heart AND failure”
    query = parse_query(
        "\u201cheart failure\u201d AND \u201eHerz\u201c OR TITLE:\uff02gene therapy\uff02"
    )
    assert shape(query.root) == (
        "or",
        ("and", p("heart failure"), p("Herz")),
        p("gene therapy", "title"),
    )
    assert (query.terms[0].position, query.terms[0].end) == (1, 15)
    err = syntax_error("a AND \u201cheart failure")
    assert (err.code, err.position) == ("quote", 7)


def test_an_escaped_typographic_quote_is_itself_and_rendering_escapes_it() -> None:
    # a term holding a typographic quote (a MeSH label, a pasted title) is quoted with the
    # quote escaped, and reads back as typed (it is not the end of the phrase)
    for text in ("0\uff02", "\u201cquoted\u201d words", 'a "b" \\ c'):
        query = parse_query('"' + escape_quotes(text) + '"')
        assert [t.text for t in query.terms] == [text]
        assert parse_query(render(query.root)).terms[0].text == text


# ------------------------------------------------------------ stars: truncation or literal


def test_an_escaped_star_is_the_character_and_renders_escaped() -> None:
    # before: therap\* read as therap* — truncation — and rendered back unescaped
    for text in ("therap\\*", "a\\*b", "\\*x", "TITLE:x\\*"):
        query = parse_query(text)
        assert not query.terms[0].truncated and "*" in query.terms[0].text
        again = parse_query(render(query.root))
        assert shape(again.root) == shape(query.root)
    truncated = parse_query("covid-19* OR therap*")
    assert [t.truncated for t in truncated.terms] == [True, True]
    assert render(truncated.root) == "covid-19* OR therap*"
    assert parse_query('"therap*"').terms[0].text == "therap*"  # a phrase keeps it literal


@pytest.mark.parametrize(
    ("text", "position"),
    [("th*rapy", 3), ("*therapy", 1), ("therap**", 7), ("a AND *", 7), ("covid-*", 7)],
)
def test_a_star_that_is_not_a_trailing_truncation_is_refused_at_its_position(
    text: str, position: int
) -> None:
    # before: sent as a literal character to some databases and as a wildcard to others
    err = syntax_error(text)
    assert (err.code, err.position, err.end) == ("unsupported", position, position)
    assert "\\*" in err.message


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "1", "-", "*", "\\*", '"', '\\"', " "]), max_size=12))
def test_render_keeps_escaped_stars_and_quotes(parts: list[str]) -> None:
    text = "".join(parts)
    try:
        query = parse_query(text)
    except QuerySyntaxError:
        return
    again = parse_query(render(query.root))
    assert shape(again.root) == shape(query.root)
