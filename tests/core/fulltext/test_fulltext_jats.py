"""Hand-made JATS edge cases: attacks refused, limits, the licence gate, block walking."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import LitdeskError
from litdesk.core.fulltext import (
    MAX_BLOCK_CHARS_TOTAL,
    MAX_BLOCKS,
    FullText,
    FullTextMalformed,
    FullTextNoBody,
    FullTextRefused,
    FullTextWrongPaper,
    licence_from_url,
    parse_fulltext,
    readable_licence_url,
)

CC_BY = "https://creativecommons.org/licenses/by/4.0/"


def article(
    body: str = "<body><p>Hello world.</p></body>",
    *,
    licence: str = f'<license xlink:href="{CC_BY}"><license-p>CC BY</license-p></license>',
    ids: str = '<article-id pub-id-type="pmcid">PMC123</article-id>',
    abstract: str = "",
    prolog: str = "",
) -> bytes:
    return (
        f"{prolog}<article xmlns:xlink='http://www.w3.org/1999/xlink' "
        "xmlns:mml='http://www.w3.org/1998/Math/MathML' "
        "xmlns:ali='http://www.niso.org/schemas/ali/1.0/'>"
        f"<front><article-meta>{ids}<title-group><article-title>A  title"
        f"</article-title></title-group><permissions>{licence}</permissions>{abstract}"
        f"</article-meta></front>{body}</article>"
    ).encode()


# --- attacks --------------------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<article><body><p>&lol3;</p></body></article>"""

XXE_FILE = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<article><body><p>&xxe;</p></body></article>"""

XXE_HTTP = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/evil">]>
<article><body><p>&xxe;</p></body></article>"""

PARAMETER_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote;]>
<article><body><p>x</p></body></article>"""

INTERNAL_SUBSET_ONLY = b"""<!DOCTYPE article [<!ELEMENT article ANY>]>
<article><body><p>x</p></body></article>"""


@pytest.mark.parametrize(
    ("doc", "code"),
    [
        (BILLION_LAUGHS, "entity"),
        (XXE_FILE, "entity"),
        (XXE_HTTP, "entity"),
        (PARAMETER_ENTITY, "entity"),
        (INTERNAL_SUBSET_ONLY, "internal_subset"),
        (BILLION_LAUGHS.replace(b"ENTITY", b"entity"), "entity"),
    ],
)
def test_entity_and_internal_subset_attacks_are_refused(doc: bytes, code: str) -> None:
    with pytest.raises(FullTextRefused) as info:
        parse_fulltext(doc, expected_pmcid=None)
    assert info.value.code == code
    assert "root:" not in info.value.message  # nothing from /etc/passwd


def test_entity_hidden_in_utf16_is_still_refused() -> None:
    doc = XXE_FILE.decode().replace('<?xml version="1.0"?>', "").encode("utf-16")
    with pytest.raises(FullTextRefused):
        parse_fulltext(doc, expected_pmcid=None)


def test_external_dtd_is_never_loaded(tmp_path: Path) -> None:
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY secret "TOPSECRET">', encoding="utf-8")
    doc = f'<!DOCTYPE article SYSTEM "{dtd.as_uri()}">'.encode() + article(
        body="<body><p>a &secret; b</p></body>"
    )
    ft = parse_fulltext(doc, expected_pmcid=None)
    assert [b.text for b in ft.blocks] == ["a b"]
    assert "TOPSECRET" not in repr(ft)


def test_undefined_entity_without_doctype_is_malformed() -> None:
    with pytest.raises(FullTextMalformed):
        parse_fulltext(article(body="<body><p>&nbsp;</p></body>"), expected_pmcid=None)


def test_plain_doctype_without_subset_is_accepted() -> None:
    doc = article(prolog='<!DOCTYPE article PUBLIC "-//NLM//DTD JATS//EN" "JATS.dtd">')
    ft = parse_fulltext(doc, expected_pmcid="PMC123")
    assert ft.readable and ft.blocks[0].text == "Hello world."


def test_size_limit() -> None:
    big = article(body="<body><p>" + "a" * 4_000_001 + "</p></body>")
    with pytest.raises(FullTextRefused) as info:
        parse_fulltext(big, expected_pmcid=None)
    assert info.value.code == "too_large"


def test_depth_limit() -> None:
    deep = article(body="<body>" + "<sec>" * 90 + "<p>x</p>" + "</sec>" * 90 + "</body>")
    with pytest.raises(FullTextRefused) as info:
        parse_fulltext(deep, expected_pmcid=None)
    assert info.value.code == "too_deep"
    shallow = article(body="<body>" + "<sec>" * 20 + "<p>x</p>" + "</sec>" * 20 + "</body>")
    assert parse_fulltext(shallow, expected_pmcid=None).blocks[0].text == "x"


@pytest.mark.parametrize(
    "doc",
    [b"", b"not xml", b"<html><body><p>x</p></body></html>", b"<article>", b"\xff\xfe\x00"],
)
def test_garbage_is_a_typed_input_error(doc: bytes) -> None:
    with pytest.raises(FullTextMalformed):
        parse_fulltext(doc, expected_pmcid=None)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2_000))
def test_arbitrary_bytes_give_fulltext_or_typed_error(data: bytes) -> None:
    try:
        out = parse_fulltext(data, expected_pmcid=None)
    except LitdeskError:
        return
    assert isinstance(out, FullText)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_arbitrary_paragraph_text_round_trips_collapsed(text: str) -> None:
    from xml.sax.saxutils import escape

    clean = "".join(ch for ch in text if ch in "\t\n\r" or ord(ch) >= 0x20)
    clean = "".join(ch for ch in clean if ch not in "\ufffe\uffff")
    try:
        ft = parse_fulltext(
            article(body=f"<body><p>{escape(clean)}</p></body>"), expected_pmcid=None
        )
    except LitdeskError:
        return
    expected = " ".join(clean.split())
    assert [b.text for b in ft.blocks] == ([expected] if expected else [])


# --- identity -------------------------------------------------------------------------


def test_pmcid_mismatch_is_refused_and_bare_digits_match() -> None:
    doc = article(ids='<article-id pub-id-type="pmc">123</article-id>')
    assert parse_fulltext(doc, expected_pmcid="PMC123").pmcid == "PMC123"
    with pytest.raises(FullTextWrongPaper, match="belongs to a different paper"):
        parse_fulltext(doc, expected_pmcid="PMC124")
    with pytest.raises(FullTextMalformed):
        parse_fulltext(doc, expected_pmcid="not-a-pmcid")


def test_pmcid_version_ids_are_not_identity() -> None:
    doc = article(ids='<article-id pub-id-type="pmcid-ver">PMC9.1</article-id>')
    assert parse_fulltext(doc, expected_pmcid="PMC5").pmcid == "PMC5"
    assert parse_fulltext(doc, expected_pmcid=None).pmcid is None


# --- licence gate ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("licence", "readable", "name"),
    [
        (f'<license xlink:href="{CC_BY}"/>', True, "CC BY 4.0"),
        (
            "<license><ali:license_ref>http://creativecommons.org/licenses/by-sa/3.0/"
            "</ali:license_ref></license>",
            True,
            "CC BY-SA 3.0",
        ),
        (
            '<license><license-p>See <ext-link xlink:href="https://creativecommons.org/'
            'publicdomain/zero/1.0/">here</ext-link></license-p></license>',
            True,
            "CC0 1.0",
        ),
        (
            "<license><license-p>Under CC BY (http://creativecommons.org/licenses/by/4.0/)."
            "</license-p></license>",
            True,
            "CC BY 4.0",
        ),
        (
            '<license xlink:href="http://creativecommons.org/licenses/by-nc/4.0/"/>',
            False,
            "CC BY-NC 4.0",
        ),
        (
            '<license xlink:href="https://creativecommons.org/licenses/by-nd/4.0/"/>',
            False,
            "CC BY-ND 4.0",
        ),
        (
            "<license><license-p>Distributed under CC BY 4.0.</license-p></license>",
            False,
            "Distributed under CC BY 4.0.",
        ),
        (
            '<license xlink:href="https://example.org/licenses/by/4.0/"/>',
            False,
            "https://example.org/licenses/by/4.0/",
        ),
        (
            '<license xlink:href="https://www.elsevier.com/tdm/userlicense/1.0/">'
            "<ali:license_ref>https://creativecommons.org/licenses/by/4.0/</ali:license_ref>"
            "</license>",
            True,
            "CC BY 4.0",
        ),
        ("", False, None),
        (
            '<license><license-p><ext-link xlink:href="creativecommons.org/licenses/by-sa/4.0/">'
            "CC BY-SA</ext-link></license-p></license>",
            True,
            "CC BY-SA 4.0",
        ),
    ],
)
def test_licence_gate(licence: str, readable: bool, name: str | None) -> None:
    ft = parse_fulltext(article(licence=licence), expected_pmcid="PMC123")
    assert ft.readable is readable
    assert ft.licence == name
    if readable:
        assert ft.reason is None and ft.blocks
    else:
        assert ft.blocks == () and ft.to_dict()["blocks"] == []
        assert "https://europepmc.org/articles/PMC123" in (ft.reason or "")


def test_licence_url_helpers() -> None:
    assert readable_licence_url("https://creativecommons.org/publicdomain/mark/1.0/")
    assert readable_licence_url("http://creativecommons.org/licenses/by/2.0")
    assert not readable_licence_url("https://creativecommons.org/licenses/by-nc-sa/4.0/")
    assert not readable_licence_url("https://creativecommons.org.evil.com/licenses/by/4.0/")
    assert not readable_licence_url(None)
    assert licence_from_url("https://creativecommons.org/licenses/by-nc-nd/4.0/") == (
        "CC BY-NC-ND 4.0"
    )


def test_to_dict_shape() -> None:
    ft = parse_fulltext(article(), expected_pmcid=None)
    assert list(ft.to_dict()) == [
        "pmcid",
        "title",
        "licence",
        "licence_url",
        "readable",
        "blocks",
        "truncated",
    ]
    assert ft.to_dict()["title"] == "A title"
    closed = parse_fulltext(article(licence=""), expected_pmcid=None)
    assert list(closed.to_dict()) == [
        "pmcid",
        "title",
        "licence",
        "licence_url",
        "readable",
        "reason",
        "blocks",
        "truncated",
    ]


# --- blocks -----------------------------------------------------------------------------


def test_sections_skips_and_nested_paragraphs() -> None:
    body = (
        "<body><p>Intro  text\n here.</p>"
        "<sec><title>Methods</title><sec><title>Cell culture</title>"
        "<p>Cells <inline-formula><mml:math><mml:mi>x</mml:mi></mml:math></inline-formula>"
        " grew <xref>[1]</xref>.</p>"
        "<table-wrap><caption><p>Table caption</p></caption></table-wrap>"
        "<fig><caption><p>Figure caption</p></caption></fig>"
        "<disp-formula><tex-math>a+b</tex-math></disp-formula>"
        "<supplementary-material><p>Supp</p></supplementary-material>"
        "<p>Outer<list><list-item><p>Inner item</p></list-item></list>tail</p>"
        "<p>   </p></sec></sec><ref-list><ref><p>Ref</p></ref></ref-list></body>"
    )
    abstract = "<abstract><sec><title>Background</title><p>Why.</p></sec></abstract>"
    ft = parse_fulltext(article(body=body, abstract=abstract), expected_pmcid=None)
    assert [(b.id, b.section, b.text) for b in ft.blocks] == [
        ("p1", "Abstract › Background", "Why."),
        ("p2", "Body", "Intro text here."),
        ("p3", "Methods › Cell culture", "Cells x grew [1]."),  # the formula as text
        ("p4", "Methods › Cell culture", "Outer tail"),
        ("p5", "Methods › Cell culture", "Inner item"),
    ]
    assert not ft.truncated


def test_inline_formulas_keep_their_values() -> None:
    """Inline MathML (wrapped in <inline-formula> or bare), TeX-only formulas and
    <alternatives> are written as text: the statistics a reviewer extracts ("t(204) =
    12.39, p < .001") were dropped, leaving ", ,". Display formulas stay out."""
    m = 'xmlns:mml="http://www.w3.org/1998/Math/MathML"'
    body = (
        "<body><p>Police, "
        f'<mml:math {m} display="inline"><mml:mrow><mml:mi>M</mml:mi><mml:mo>=</mml:mo>'
        "<mml:mn>4.64</mml:mn></mml:mrow></mml:math>, 95% CI "
        f'<mml:math {m}><mml:mfenced open="[" close="]"><mml:mn>4.56</mml:mn>'
        "<mml:mo>∞</mml:mo></mml:mfenced></mml:math>, "
        f"<inline-formula><mml:math {m}><mml:mi>t</mml:mi><mml:mfenced><mml:mn>204</mml:mn>"
        "</mml:mfenced><mml:mo>=</mml:mo><mml:mo>−</mml:mo><mml:mn>0.14</mml:mn></mml:math>"
        "</inline-formula>, <inline-formula><alternatives><tex-math>$p&lt;.001$</tex-math>"
        f"<mml:math {m}><mml:mi>p</mml:mi><mml:mo>&lt;</mml:mo><mml:mn>.001</mml:mn>"
        "</mml:math></alternatives></inline-formula>; the unit "
        "<inline-formula><tex-math>$SiO_2$</tex-math></inline-formula> and "
        f"<mml:math {m}><mml:msup><mml:mi>R</mml:mi><mml:mn>2</mml:mn></mml:msup>"
        "<mml:mo>\u2062</mml:mo></mml:math>.</p>"
        f"<disp-formula><mml:math {m}><mml:mi>E</mml:mi></mml:math></disp-formula></body>"
    )
    ft = parse_fulltext(article(body=body), expected_pmcid=None)
    assert [b.text for b in ft.blocks] == [
        "Police, M = 4.64, 95% CI [4.56, ∞], t(204) = −0.14, p < .001; the unit SiO_2 and R^2."
    ]


def test_block_count_limit_sets_truncated() -> None:
    body = "<body>" + "<p>x</p>" * (MAX_BLOCKS + 5) + "</body>"
    ft = parse_fulltext(article(body=body), expected_pmcid=None)
    assert len(ft.blocks) == MAX_BLOCKS and ft.truncated


def test_character_limit_keeps_whole_paragraphs() -> None:
    para = "a" * 100_000
    body = "<body>" + f"<p>{para}</p>" * 3 + "</body>"
    ft = parse_fulltext(article(body=body), expected_pmcid=None)
    assert len(ft.blocks) == 2 and ft.truncated
    assert sum(len(b.text) for b in ft.blocks) <= MAX_BLOCK_CHARS_TOTAL


def test_no_body_is_not_found_but_a_closed_licence_still_answers() -> None:
    with pytest.raises(FullTextNoBody):
        parse_fulltext(article(body=""), expected_pmcid="PMC123")
    closed = parse_fulltext(article(body="", licence=""), expected_pmcid="PMC123")
    assert not closed.readable


def test_sub_article_bodies_are_not_read() -> None:
    body = (
        "<body><p>Main.</p></body><sub-article><body><p>Decision letter.</p></body></sub-article>"
    )
    ft = parse_fulltext(article(body=body), expected_pmcid=None)
    assert [b.text for b in ft.blocks] == ["Main."]


def test_declaration_scan_stays_linear_on_hostile_input() -> None:
    import time

    hostile = b"<!DOCTYPE a '" + b"<!DOCTYPE '" * 300_000
    started = time.process_time()
    with pytest.raises(LitdeskError):
        parse_fulltext(hostile, expected_pmcid=None)
    assert time.process_time() - started < 5


def test_a_second_doctype_with_a_subset_is_still_refused_or_malformed() -> None:
    doc = b'<!DOCTYPE article SYSTEM "x.dtd"><!DOCTYPE article [<!ELEMENT a ANY>]><article/>'
    with pytest.raises((FullTextMalformed, FullTextRefused)):
        parse_fulltext(doc, expected_pmcid=None)
