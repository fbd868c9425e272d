"""The full-text pre-parse check cannot be bypassed by the encoding or the prolog: the text
is decoded by the XML encoding rules before it is checked, lxml parses exactly that text,
and the parsed tree is verified too (issue 13, class 10)."""

from __future__ import annotations

import codecs
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from litdesk.core.fulltext import FullTextMalformed, FullTextRefused, _jats, parse_fulltext

CC_BY = "https://creativecommons.org/licenses/by/4.0/"
ARTICLE = (
    "<article xmlns:xlink='http://www.w3.org/1999/xlink'><front><article-meta>"
    '<article-id pub-id-type="pmcid">PMC123</article-id>'
    "<title-group><article-title>T</article-title></title-group>"
    f'<permissions><license xlink:href="{CC_BY}"><license-p>CC BY</license-p></license>'
    "</permissions></article-meta></front><body><p>Hello {x}.</p></body></article>"
)
SUBSET = '<!DOCTYPE article [<!ELEMENT article ANY><!ATTLIST p id CDATA "x">]>'
ENTITY = '<!DOCTYPE article [<!ENTITY x "EXPANDED">]>'

ENCODINGS = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]


def _doc(prolog: str, x: str = "world") -> str:
    return prolog + ARTICLE.replace("{x}", x)


def _refused(data: bytes) -> Exception:
    with pytest.raises((FullTextRefused, FullTextMalformed)) as info:
        parse_fulltext(data, expected_pmcid=None)
    return info.value


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("decl", ["", '<?xml version="1.0" encoding="UTF-8"?>', "  "])
def test_utf16_and_utf32_without_bom_are_decoded_before_the_check(encoding: str, decl: str) -> None:
    good = _doc(decl).encode(encoding)
    assert parse_fulltext(good, expected_pmcid=None).blocks[0].text == "Hello world."
    for prolog in (ENTITY, SUBSET):
        err = _refused(_doc(decl + prolog, "&x;").encode(encoding))
        assert isinstance(err, FullTextRefused), (encoding, prolog)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8-sig"])
def test_with_a_bom_too(encoding: str) -> None:
    assert parse_fulltext(_doc("").encode(encoding), expected_pmcid=None).readable
    assert isinstance(_refused(_doc(ENTITY, "&x;").encode(encoding)), FullTextRefused)


@pytest.mark.parametrize(
    "lead",
    [
        "<!-- a comment -->",
        "<!-- <!DOCTYPE decoy> -->",
        "<?pi data?>\n<!-- c -->\n",
        '<?xml version="1.0"?><!-- <!DOCTYPE a> --><?x <!DOCTYPE b>?>',
    ],
)
def test_a_doctype_after_comments_and_pis_is_checked(lead: str) -> None:
    err = _refused(_doc(lead + SUBSET).encode())
    assert isinstance(err, FullTextRefused) and err.code == "internal_subset"


def test_a_declaration_naming_a_non_ascii_encoding_for_ascii_bytes_is_refused() -> None:
    doc = ('<?xml version="1.0" encoding="UTF-16"?>' + _doc(ENTITY, "&x;")).encode()
    err = _refused(doc)
    assert err.code in {"undecodable", "entity"}


def test_nul_after_decoding_is_refused() -> None:
    err = _refused(_doc("", "wor\x00ld").encode())
    assert isinstance(err, FullTextMalformed) and err.code == "undecodable"


def test_the_tree_is_verified_even_when_the_text_check_is_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_jats, "_check_declarations", lambda text: None)
    for prolog, code in ((ENTITY, "entity"), (SUBSET, "internal_subset")):
        err = _refused(_doc(prolog, "world").encode())
        assert isinstance(err, FullTextRefused) and err.code == code


def test_lxml_gets_the_checked_text_as_utf8() -> None:
    parser: Any = _jats._parser()
    # a UTF-16 pattern in the bytes lxml gets is not sniffed again: it is not well-formed
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring("<a/>".encode("utf-16-be"), parser)


@settings(max_examples=80, deadline=None)
@given(
    encoding=st.sampled_from([*ENCODINGS, "utf-8", "utf-16", "utf-32", "latin-1"]),
    lead=st.lists(st.sampled_from(["<!-- c -->", "<?p q?>", " ", "\n"]), max_size=4),
    attack=st.sampled_from([ENTITY, SUBSET, '<!DOCTYPE article SYSTEM "x.dtd" [ ]>']),
)
def test_no_encoding_or_prolog_gets_an_internal_subset_past(
    encoding: str, lead: list[str], attack: str
) -> None:
    doc = _doc("".join(lead) + attack, "&x;")
    try:
        data = doc.encode(encoding)
    except UnicodeEncodeError:
        return
    if encoding == "latin-1":
        data = b'<?xml version="1.0" encoding="ISO-8859-1"?>' + data
    assert isinstance(_refused(data), FullTextRefused)
    assert codecs.lookup(encoding)
