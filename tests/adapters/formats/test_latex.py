"""LaTeX → Unicode converter used by the BibTeX reader."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters.formats import _latex
from litdesk.adapters.formats._latex import latex_to_text


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        ('\\"{o}', "ö"),
        ('{\\"o}', "ö"),
        ("\\'e", "é"),
        ("\\' e", "é"),
        ("\\c{c}", "ç"),
        ("\\c c", "ç"),
        ("\\aa", "å"),
        ('{\\AA}ngstr{\\"o}m', "Ångström"),
        ("\\ss{}", "ß"),
        ("\\o", "ø"),
        ("{\\r a}", "å"),
        ("\\r{u}", "ů"),
        ("\\v{R}", "Ř"),
        ("\\'{\\i}", "í"),
        ("\\H{o}", "ő"),
        ("\\k{a}", "ą"),
        ("\\~n", "ñ"),
        ("\\^{o}", "ô"),
        ("\\`a", "à"),
        ("\\={a}", "ā"),
        ("\\.{z}", "ż"),
        ("\\l{}", "ł"),
        ("{Protected} {{Case}}", "Protected Case"),
        ("$\\mu$m and $\\pm$1", "μm and ±1"),
        ("H$_2$O, x$^{2}$, $^{13}$C", "H₂O, x², ¹³C"),
        ("$x^{ab}$", "x^ab"),
        ("\\& \\% \\$ \\# \\_ \\{ \\}", "& % $ # _ { }"),
        ("a~b\\,c\\quad d", "a b c d"),
        ("1--2 --- x", "1–2 — x"),
        ("``quoted''", "“quoted”"),
        ("\\emph{em} \\textbf{bf} \\textit{it}", "em bf it"),
        ("{\\noopsort{a}}Zed", "Zed"),
        ("\\unknowncommand{x}", "unknowncommandx"),
        ("\\LaTeX\\ and \\TeX", "LaTeX and TeX"),
        ("plain text", "plain text"),
        ("  many\n   spaces\t", "many spaces"),
    ],
)
def test_examples(tex: str, text: str) -> None:
    assert latex_to_text(tex) == text


@settings(max_examples=200, deadline=500)
@given(st.text(max_size=300))
def test_never_raises_and_leaves_no_braces_or_backslash_commands(value: str) -> None:
    out = latex_to_text(value)
    assert isinstance(out, str)
    if "\\{" not in value and "\\}" not in value and "textbrace" not in value:
        assert "{" not in out and "}" not in out


@given(st.text(alphabet=st.characters(blacklist_characters="\\{}$~-`'"), max_size=200))
@settings(max_examples=100, deadline=500)
def test_plain_text_only_collapses_whitespace(value: str) -> None:
    assert latex_to_text(value) == " ".join(value.split())


# LaTeX-ish text: the characters the token patterns begin with, their command names and
# letters, spaces (a value is converted where one of the start characters stands)
_LATEXISH = st.lists(
    st.sampled_from(
        [*"\\{}$~-`'^_ aZ1\"=.", "\\'", '\\"', "\\c ", "\\v{", "\\emph{", "\\i", "$x^{2}$"]
        + ["\\noopsort{a}", "---", "``", "''", "\\alpha", "\\&", "\\\\", "$_1$", "\\textbf"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_LATEXISH, st.text(max_size=80)), st.integers(0, 60))
def test_conversion_tries_the_patterns_only_where_a_match_can_begin(value: str, pad: int) -> None:
    # the scan gives what pattern.sub gives: the start characters are all a match begins
    # with; so does _sub_at, which takes one or the other (padding makes the scan's turn)
    for text in (value, value + "x" * pad * 3):
        tokens = _latex._scan_sub(_latex._TOKEN, _latex._TOKEN_START, _latex._sub, text)
        assert tokens == _latex._TOKEN.sub(_latex._sub, text)
        maths = _latex._scan_sub(_latex._MATH_TOKEN, _latex._MATH_START, _latex._math_sub, text)
        assert maths == _latex._MATH_TOKEN.sub(_latex._math_sub, text)
        starts = (_latex._TOKEN_START, _latex._TOKEN_CHARS)
        assert _latex._sub_at(_latex._TOKEN, starts, _latex._sub, text) == tokens


def test_every_match_begins_with_a_start_character() -> None:
    starts = {
        _latex._TOKEN: _latex._TOKEN_START,
        _latex._MATH_TOKEN: _latex._MATH_START,
    }
    for pattern, start in starts.items():
        for ch in map(chr, range(0x250)):  # what can a match begin with, after any one char
            for tail in ("", "a", "{a}", "  a", "}", "$", "-", "`", "'", "2"):
                m = pattern.match(ch + tail)
                assert m is None or start.match(ch), (pattern.pattern, ch + tail)
