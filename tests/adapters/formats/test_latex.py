"""LaTeX → Unicode converter used by the BibTeX reader."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
