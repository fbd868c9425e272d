"""EndNote XML: edge cases, XML safety, the real fixture and properties."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.adapters.formats._endnote import FORMATS, parse, sniff
from litdesk.core.imports import ImportRefused
from litdesk.core.records import normalize_doi

DATA = Path(__file__).parent / "data"


def S(text: str) -> str:  # EndNote's styled text node
    return f'<style face="normal" font="default" size="100%">{text}</style>'


def record(n: int, body: str) -> str:
    return f"<record><rec-number>{n}</rec-number>{body}</record>"


def doc(*records: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" ?><xml><records>'
        + "".join(records)
        + "</records></xml>"
    )


def test_full_record_mapping() -> None:
    body = (
        '<ref-type name="Journal Article">17</ref-type>'
        f"<contributors><authors><author>{S('Smith, J.')}</author>"
        f"<author>{S('Doe,')}{S(' A.')}</author></authors>"
        f"<secondary-authors><author>{S('Ed, E.')}</author></secondary-authors></contributors>"
        f"<titles><title>{S('A ')}<style face='italic'>styled</style>{S(' title')}</title>"
        f"<secondary-title>{S('J Short')}</secondary-title></titles>"
        f"<periodical><full-title>{S('Journal Full')}</full-title></periodical>"
        f"<pages>{S('1-10')}</pages><volume>{S('5')}</volume><number>{S('2')}</number>"
        f"<keywords><keyword>{S('k1')}</keyword><keyword>{S('k2')}</keyword></keywords>"
        f"<dates><year>{S('2019')}</year><pub-dates><date>{S('Jan')}</date></pub-dates></dates>"
        f"<electronic-resource-num>{S('doi: 10.1000/ABC')}</electronic-resource-num>"
        f"<accession-num>{S('31234567')}</accession-num>"
        f"<remote-database-provider>{S('NLM')}</remote-database-provider>"
        f"<abstract>{S('The abstract.')}</abstract>"
        f"<urls><related-urls><url>{S('https://example.org/a')}</url></related-urls></urls>"
        f"<caption>{S('Duplicate')}</caption><label>{S('L1')}</label>"
        f"<notes>{S('n')}</notes><custom1>{S('c1')}</custom1>"
        f"<research-notes>{S('r')}</research-notes><mystery>{S('m')}</mystery>"
    )
    (rec,) = parse(doc(record(42, body))).records
    p = rec.paper
    assert rec.source_id == "42"
    assert p.title == "A styled title"
    assert p.authors == ("Smith, J.", "Doe, A.")
    assert p.journal == "Journal Full"
    assert (p.year, p.volume, p.issue, p.pages) == (2019, "5", "2", "1-10")
    assert p.doi == "10.1000/abc"
    assert p.pmid == "31234567" and p.id == "MED-31234567"
    assert p.keywords == ("k1", "k2")
    assert p.publication_types == ("Journal Article",)
    assert p.source_url == "https://example.org/a"
    for tag, value in [
        ("caption", "Duplicate"),
        ("label", "L1"),
        ("notes", "n"),
        ("custom1", "c1"),
        ("research-notes", "r"),
        ("mystery", "m"),
        ("secondary-authors", "Ed, E."),
        ("secondary-title", "J Short"),
    ]:
        assert rec.extras[tag] == [value]
    unknown = [n.message for n in rec.notices if n.kind == "unknown_tag"]
    assert unknown == ["elements kept in extras: mystery"]


def test_embase_accession_is_not_a_pmid() -> None:
    body = (
        f"<accession-num>{S('620844187')}</accession-num>"
        f"<remote-database-name>{S('Embase')}</remote-database-name>"
    )
    (rec,) = parse(doc(record(1, body))).records
    assert rec.paper.pmid is None
    assert rec.extras["accession-num"] == ["620844187"]


def test_line_spans_and_raw_on_multiline_file() -> None:
    text = (
        '<?xml version="1.0"?>\n<xml>\n<records>\n'
        + record(1, "<titles><title>A</title></titles>")
        + "\n<record><rec-number>2</rec-number>\n<titles><title>B</title></titles>\n</record>\n"
        + "</records>\n</xml>\n"
    )
    result = parse(text)
    assert [(r.first_line, r.last_line) for r in result.records] == [(4, 4), (5, 7)]
    assert result.records[1].raw.startswith("<record>") and result.records[1].raw.endswith(
        "</record>"
    )
    assert [r.paper.title for r in result.records] == ["A", "B"]


def test_bad_doi_is_kept_with_notice() -> None:
    (rec,) = parse(
        doc(record(1, f"<electronic-resource-num>{S('S0140-6736')}</electronic-resource-num>"))
    ).records
    assert rec.paper.doi is None
    assert rec.extras["electronic-resource-num"] == ["S0140-6736"]
    assert any(n.kind == "malformed_identifier" for n in rec.notices)


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY x "boom">]><xml><records>'
        "<record><rec-number>1</rec-number><titles><title>&x;</title></titles></record>"
        "</records></xml>",
        '<!DOCTYPE xml [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><xml/>',
        '<!ENTITY x SYSTEM "file:///etc/passwd"><xml/>',
    ],
)
def test_entities_and_internal_subsets_are_refused(text: str) -> None:
    with pytest.raises(ImportRefused) as err:
        parse(text)
    assert err.value.code == "malformed"
    assert "DOCTYPE" in err.value.message or "ENTITY" in err.value.message


def test_billion_laughs_fixture_is_refused() -> None:
    with pytest.raises(ImportRefused):
        parse((DATA / "endnote_billion_laughs.xml").read_text("utf-8"))


def test_truncated_xml_recovers_what_it_can() -> None:
    text = (
        doc(record(1, "<titles><title>A</title></titles>"))[: -len("</records></xml>")]
        + "<record><rec"
    )
    result = parse(text)
    assert [r.source_id for r in result.records] == ["1"]
    assert any("recovery" in n.message for n in result.notices)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("<xml><records></records></xml>", "empty"),
        ("<html><body/></html>", "malformed"),
        ("<<<not xml", "malformed"),
    ],
)
def test_refusals(text: str, code: str) -> None:
    with pytest.raises(ImportRefused) as err:
        parse(text)
    assert err.value.code == code


def test_sniff() -> None:
    assert sniff(doc(record(1, ""))) >= 90
    assert sniff("<html></html>") == 0
    assert sniff("TY  - JOUR") == 0
    assert FORMATS[0].name == "endnote-xml"


@pytest.mark.fixtures
def test_copper_fixture(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "dedup"
    table = (folder / "PROVENANCE.md").read_text("utf-8")
    m = re.search(
        r"`iebh_copper__endnote\.xml`\s*\|\s*(\d+)\s*\|\s*\d+ records; (\d+) with caption", table
    )
    assert m is not None
    expected, duplicates = int(m.group(1)), int(m.group(2))
    text = (folder / "iebh_copper__endnote.xml").read_text("utf-8")
    result = parse(text)
    assert len(result.records) == expected
    assert sum(1 for r in result.records if r.extras.get("caption") == ["Duplicate"]) == duplicates
    ids = [r.source_id for r in result.records]
    assert len(set(ids)) == len(ids)
    plain = {
        d
        for raw in re.findall(r"<electronic-resource-num>(.*?)</electronic-resource-num>", text)
        if (d := normalize_doi(re.sub(r"<[^>]+>", "", raw).strip()))
    }
    assert {r.paper.doi for r in result.records if r.paper.doi} == plain
    assert all(r.raw.startswith("<record>") for r in result.records)
    assert all(r.first_line == 1 for r in result.records)  # the export is a single line


@settings(max_examples=150, deadline=1000, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                "<xml>",
                "<records>",
                "<record>",
                "</record>",
                "<rec-number>",
                "</rec-number>",
                "<title>",
                "</title>",
                "<titles>",
                "</titles>",
                "&amp;",
                "&x;",
                "<!DOCTYPE x>",
                "<![CDATA[",
                "]]>",
                "1",
                "a",
                " ",
                "\n",
                "<",
                ">",
                "/",
                '"',
                "<style>",
                "</style>",
            ]
        ),
        max_size=60,
    ).map("".join)
)
def test_parse_arbitrary_text_returns_or_refuses(text: str) -> None:
    try:
        result = parse(text)
    except ImportRefused:
        return
    assert result.records


def test_through_the_registry() -> None:
    from litdesk.adapters.formats import loads

    data = doc(record(1, "<titles><title>A</title></titles>"), record(1, "")).encode()
    with pytest.raises(ImportRefused) as err:
        loads(data, duplicate_ids="refuse")
    assert err.value.code == "duplicate_ids"
    kept = loads(data)
    assert [r.source_id for r in kept.records] == ["1", "1"]
    trace = loads(doc(record(7, "<titles><title>A</title></titles>")).encode("utf-16"))
    assert trace.source.format == "endnote-xml"
    assert trace.records[0].source_id == "7"


def test_an_abstract_keeps_its_paragraphs() -> None:
    """EndNote ends an abstract's paragraphs with ``&#xD;`` (CR) and styles its headings in
    runs of their own: the paragraphs stay lines (as an RIS ``AB``'s lines do), the runs
    join within a line, and the round trips through the RIS and CSV writers keep the text."""
    from litdesk.adapters import formats

    abstract = (
        f"<abstract><style face='bold'>Background:</style>{S(' Knees   hurt.&#xD;')}"
        f"<style face='bold'>Methods:</style>{S(' We injected cells.&#xD;&#xD;')}"
        f"{S('Results: it helped.&#xD;&#xA;Conclusion: more trials.  ')}</abstract>"
    )
    body = f"<titles><title>{S('Cells for knees')}</title></titles>{abstract}"
    (rec,) = parse(doc(record(1, body))).records
    assert rec.paper.abstract == (
        "Background: Knees hurt.\nMethods: We injected cells.\n"
        "Results: it helped.\nConclusion: more trials."
    )
    assert "\r" not in rec.paper.abstract and "&#xD;" in rec.raw  # the raw is as it was
    one = parse(doc(record(2, f"<abstract>{S('One   paragraph.')}</abstract>"))).records[0]
    assert one.paper.abstract == "One paragraph."
    # written as RIS, the abstract's lines become one line (no value starts a tag line);
    # as CSV, the cell keeps them
    ris = formats.loads(formats.dumps([rec.paper], "ris").encode(), path="back.ris")
    assert ris.papers[0].abstract == " ".join(rec.paper.abstract.split("\n"))
    csv = formats.loads(formats.dumps([rec.paper], "csv").encode(), path="back.csv")
    assert csv.papers[0].abstract == rec.paper.abstract
