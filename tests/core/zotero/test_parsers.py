"""core.zotero: dates as Zotero reads them, Extra and identifiers, note HTML → text,
record types and creators (examples, then Hypothesis: total, linear, idempotent)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.zotero import (
    ZoteroCreator,
    ZoteroItem,
    extra_fields,
    item_identifiers,
    item_paper_fields,
    note_text,
    parse_zotero_date,
    record_type,
)


def test_multipart_dates_are_read_like_zotero() -> None:
    d = parse_zotero_date("2020-03-00 March 2020")
    assert (d.year, d.month, d.day, d.text) == (2020, 3, None, "March 2020")
    assert parse_zotero_date("2013-00-00 2013").sql() == "2013-00-00"


def test_free_text_dates() -> None:
    cases = {
        "2019-07-04": (2019, 7, 4),
        "7/4/2019": (2019, 7, 4),  # slashes: month first, as Zotero
        "4.7.2019": (2019, 7, 4),  # dots: day first
        "25/12/2019": (2019, 12, 25),  # an impossible month swaps
        "March 5th, 2001": (2001, 3, 5),
        "Spring 1999": (1999, None, None),
        "5 Sept 1987": (1987, 9, 5),
        "3/4/99": (1999, 3, 4),
        "no date": (None, None, None),
        "": (None, None, None),
    }
    for text, want in cases.items():
        d = parse_zotero_date(text)
        assert (d.year, d.month, d.day) == want, text


def test_extra_identifiers_and_citation_key() -> None:
    fields = {
        "extra": "PMID: 12345678\nPMCID: PMC1234567\narXiv: 2101.00001v2\n"
        "Citation Key: smith2020\nnot a field line\noriginal-date: 1900",
    }
    ids = item_identifiers(fields)
    assert ids.pmid == "12345678"
    assert ids.pmcid == "PMC1234567"
    assert ids.arxiv is not None and ids.arxiv.startswith("2101.00001")
    assert ids.citation_key == "smith2020"
    keys = [f.key for f in extra_fields(fields["extra"])]
    assert keys == ["pmid", "pmcid", "arxiv", "citationkey", "originaldate"]


def test_fields_win_over_extra_and_arxiv_from_fields() -> None:
    ids = item_identifiers(
        {"DOI": "https://doi.org/10.1000/ABC", "extra": "DOI: 10.9/other", "citationKey": "k1"}
    )
    assert ids.doi == "10.1000/abc"
    assert ids.citation_key == "k1"
    assert item_identifiers({"archiveID": "arXiv:1706.03762"}).arxiv == "1706.03762"
    assert item_identifiers({"url": "https://arxiv.org/abs/1706.03762v5"}).arxiv is not None
    assert item_identifiers({"DOI": "10.48550/arXiv.1706.03762"}).arxiv == "1706.03762"
    assert item_identifiers({"extra": "PMID: not a number"}).pmid is None


def test_note_html_to_safe_text() -> None:
    html = (
        '<div data-schema-version="8"><h1>Key points</h1><p>Dose &amp; effect<br>'
        "second&nbsp;line</p><ul><li>one</li><li>two</li></ul>"
        "<script>alert(1)</script><style>p{}</style><!-- hidden --><p>a &lt; b</p></div>"
    )
    assert note_text(html) == "Key points\n\nDose & effect\nsecond line\n\n- one\n- two\n\na < b"
    assert note_text("a < b and c > d") == "a < b and c > d"
    assert note_text("<p>unclosed <b") == "unclosed"
    assert note_text("&#" + "9" * 6000 + ";") == "\ufffd"
    assert note_text(None) == ""


def test_record_types_and_creators() -> None:
    assert record_type("journalArticle") == "Journal Article"
    assert record_type("bookSection") == "Book Section"
    assert record_type("somethingNew") == "Generic"
    item = ZoteroItem(
        library="user",
        key="ABCD2345",
        item_type="patent",
        version=3,
        date_added="",
        date_modified="",
        fields={"title": "A device", "date": "2001-00-00 2001", "url": "http://x.org"},
        creators=(
            ZoteroCreator("inventor", "Ada", "Lovelace"),
            ZoteroCreator("attorneyAgent", "Law", "Firm"),
            ZoteroCreator("inventor", "ACME Corp", single=True),
        ),
        tags=("t1",),
    )
    out = item_paper_fields(item)
    assert out["authors"] == ["Ada, Lovelace", "ACME Corp"]
    assert out["year"] == 2001
    assert out["publication_types"] == ["Patent"]
    assert out["source_url"] is None  # only https URLs are kept
    assert out["keywords"] == ["t1"]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_date_parser_is_total(text: str) -> None:
    d = parse_zotero_date(text)
    assert d.year is None or 1 <= d.year <= 9999
    assert d.month is None or 1 <= d.month <= 12
    assert d.day is None or 1 <= d.day <= 31


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_extra_parser_is_total(text: str) -> None:
    for f in extra_fields(text):
        assert f.key and f.value and ":" not in f.key
    item_identifiers({"extra": text, "DOI": text, "url": text, "archiveID": text})


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/!-&#;ap ibrsctyle\n")), max_size=400))
def test_note_text_is_total_and_tag_free(text: str) -> None:
    out = note_text(text)
    assert out == out.strip()
    if "<" not in out and "&" not in out:
        assert note_text(out) == out  # plain text is its own text


def test_note_text_is_linear_on_hostile_input() -> None:
    for hostile in ("<a" * 200_000, "<!--" * 200_000, "&" * 400_000, "<script>" * 100_000,
                    "<p " + "x=1 " * 200_000, "&#" + "1" * 400_000):  # fmt: skip
        t0 = time.perf_counter()
        note_text(hostile)
        assert time.perf_counter() - t0 < 2.0, hostile[:10]


def test_extra_and_dates_are_linear_on_hostile_input() -> None:
    for hostile in (":" * 500_000, "a:" * 250_000, "PMID:" * 100_000, "\n" * 500_000,
                    "1/" * 250_000, "2020-" * 100_000):  # fmt: skip
        t0 = time.perf_counter()
        item_identifiers({"extra": hostile, "url": hostile, "archiveID": hostile})
        parse_zotero_date(hostile)
        assert time.perf_counter() - t0 < 2.0, hostile[:10]
