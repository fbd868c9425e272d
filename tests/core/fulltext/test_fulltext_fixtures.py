"""The JATS parser on every real fixture: licence decisions, PMCIDs, titles and block
counts, with expectations read from MANIFEST.md / PROVENANCE.md and a plain reading."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from litdesk.core.fulltext import FullText, FullTextWrongPaper, parse_fulltext
from litdesk.core.records import normalize_pmcid

pytestmark = pytest.mark.fixtures

READABLE_TYPES = re.compile(r"^(CC BY \d|CC BY-SA \d|CC0|Public Domain Mark)")


def _manifest(fixtures_dir: Path) -> list[dict[str, str]]:
    lines = (fixtures_dir / "jats" / "MANIFEST.md").read_text(encoding="utf-8").splitlines()
    table = [ln for ln in lines if ln.startswith("|")]
    header = [c.strip() for c in table[0].strip("|").split("|")]
    rows = []
    for ln in table[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def _plain_paragraphs(path: Path) -> int:
    """Non-empty <p> in the article's abstracts and its own <body>, outside tables, figures,
    formulas and supplements — counted with the standard library's ElementTree (an
    independent reading)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, count=1)
    root = ET.fromstring(text)
    skip = {
        "table-wrap",
        "fig",
        "supplementary-material",
        "disp-formula",
        "inline-formula",
        "tex-math",
        "math",
        "ref-list",
        "fig-group",
        "table-wrap-group",
    }

    def local(tag: object) -> str:
        return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""

    def own_text(p: ET.Element) -> str:
        parts = [p.text or ""]
        for child in p:
            if local(child.tag) not in skip and local(child.tag) != "p":
                parts.append(own_text(child))
            parts.append(child.tail or "")
        return "".join(parts)

    count = 0

    def walk(el: ET.Element) -> None:
        nonlocal count
        for child in el:
            name = local(child.tag)
            if name in skip:
                continue
            if name == "p" and own_text(child).split():
                count += 1
            walk(child)

    body = root.find("body")
    assert body is not None
    for abstract in root.findall("front/article-meta/abstract"):
        walk(abstract)
    walk(body)
    return count


def _body_blocks(ft: FullText) -> int:
    return sum(1 for b in ft.blocks if not b.section.startswith(("Abstract", "ABSTRACT")))


def test_every_manifest_row_parses_with_the_stated_licence_decision(fixtures_dir: Path) -> None:
    rows = _manifest(fixtures_dir)
    assert len(rows) == 19
    for row in rows:
        path = fixtures_dir / "jats" / row["file"]
        ft = parse_fulltext(path.read_bytes(), expected_pmcid=None)
        expect_readable = bool(READABLE_TYPES.match(row["licence type"]))
        assert ft.readable is expect_readable, row["file"]
        if row["licence URL"] != "none":
            assert ft.licence_url == row["licence URL"], row["file"]
        else:
            assert ft.licence_url is None, row["file"]
        if row["PMCID"] != "none":
            assert ft.pmcid == row["PMCID"], row["file"]
            assert ft.source_url == f"https://europepmc.org/articles/{row['PMCID']}"
        else:
            assert ft.pmcid is None and ft.source_url is None
        assert " ".join(row["title"].split()) == ft.title, row["file"]
        data = ft.to_dict()
        if expect_readable:
            assert ft.reason is None and "reason" not in data
            assert ft.blocks and data["blocks"]
            # never more body blocks than the manifest's count of all body <p>
            assert 0 < _body_blocks(ft) <= int(row["body <p>"]), row["file"]
            if int(row["sec depth"]) >= 2:
                assert any(" › " in b.section for b in ft.blocks), row["file"]
        else:
            assert ft.blocks == () and data["blocks"] == []
            assert ft.reason
            if ft.pmcid:
                assert f"https://europepmc.org/articles/{ft.pmcid}" in ft.reason


def test_body_block_counts_match_a_plain_reading(fixtures_dir: Path) -> None:
    for row in _manifest(fixtures_dir):
        path = fixtures_dir / "jats" / row["file"]
        ft = parse_fulltext(path.read_bytes(), expected_pmcid=None)
        if ft.readable:
            assert len(ft.blocks) == _plain_paragraphs(path), row["file"]


def test_block_ids_are_sequential_and_text_is_collapsed(fixtures_dir: Path) -> None:
    for path in sorted((fixtures_dir / "jats").glob("*.*ml")):
        ft = parse_fulltext(path.read_bytes(), expected_pmcid=None)
        assert [b.id for b in ft.blocks] == [f"p{i}" for i in range(1, len(ft.blocks) + 1)]
        for b in ft.blocks:
            assert b.text == " ".join(b.text.split()) and b.text
            assert "<mml:" not in b.text and "<" not in b.text[:1]


def test_pmcid_check_against_the_expected_paper(fixtures_dir: Path) -> None:
    for row in _manifest(fixtures_dir):
        if row["PMCID"] == "none":
            continue
        raw = (fixtures_dir / "jats" / row["file"]).read_bytes()
        ft = parse_fulltext(raw, expected_pmcid=row["PMCID"].lower())
        assert ft.pmcid == row["PMCID"]
        with pytest.raises(FullTextWrongPaper, match="different paper"):
            parse_fulltext(raw, expected_pmcid="PMC1")


def test_files_with_no_pmcid_accept_an_expected_one(fixtures_dir: Path) -> None:
    raw = (fixtures_dir / "jats" / "scielo_transinf_2023_pt_a2.xml").read_bytes()
    ft = parse_fulltext(raw, expected_pmcid="PMC42")
    assert ft.pmcid == "PMC42"


def _epmc_files(fixtures_dir: Path) -> list[Path]:
    base = fixtures_dir / "providers" / "europepmc"
    files = sorted(base.glob("fulltext-*.xml")) + sorted(base.glob("jats-pmcoa-*.xml"))
    assert len(files) == 7
    return files


def test_europe_pmc_fulltext_responses(fixtures_dir: Path) -> None:
    for path in _epmc_files(fixtures_dir):
        m = re.search(r"-(PMC\d+)-([a-z]+)", path.name)
        assert m
        pmcid, licence = m.group(1), m.group(2)
        ft = parse_fulltext(path.read_bytes(), expected_pmcid=pmcid)
        assert ft.pmcid == normalize_pmcid(pmcid)
        assert ft.readable is (licence == "ccby"), path.name
        if licence == "ccby":
            assert ft.licence and ft.licence.startswith("CC BY ")
            assert ft.blocks
        elif licence == "nolicence":
            assert ft.licence is None and ft.licence_url is None
            assert "no reuse licence" in (ft.reason or "")
        else:
            assert "NC" in (ft.licence or "")


def test_editorial_without_sections_files_body_paragraphs_under_body(fixtures_dir: Path) -> None:
    path = fixtures_dir / "providers" / "europepmc" / "fulltext-PMC12092414-ccby-editorial.xml"
    ft = parse_fulltext(path.read_bytes(), expected_pmcid="PMC12092414")
    assert ft.blocks and {b.section for b in ft.blocks} == {"Body"}
    assert len(ft.blocks) == _plain_paragraphs(path)


def test_structured_abstract_sections(fixtures_dir: Path) -> None:
    path = fixtures_dir / "jats" / "pmc2599765_ehp_publicdomain.nxml"
    ft = parse_fulltext(path.read_bytes(), expected_pmcid="PMC2599765")
    sections = [b.section for b in ft.blocks]
    assert sections[0] == "Abstract › Background"
    assert "Abstract › Conclusions" in sections


def test_pmc_efetch_articleset_with_publisher_link_and_cc_by_nc_uri(fixtures_dir: Path) -> None:
    """PROVENANCE: "licence link is a frontiersin URL + CC BY-NC text" (a <uri> in license-p)."""
    path = fixtures_dir / "providers" / "pubmed" / "efetch-pmc-3299399-jats.xml"
    ft = parse_fulltext(path.read_bytes(), expected_pmcid="PMC3299399")
    assert ft.pmcid == "PMC3299399"
    assert ft.licence_url == "http://creativecommons.org/licenses/by-nc/3.0/"
    assert not ft.readable and ft.blocks == ()


def test_inline_mathml_statistics_are_kept(fixtures_dir: Path) -> None:
    """The real article whose results are inline MathML: its statistics read as text."""
    path = fixtures_dir / "jats" / "epmc_pmc13179431_ccby_mathml.xml"
    ft = parse_fulltext(path.read_bytes(), expected_pmcid=None)
    text = " ".join(b.text for b in ft.blocks)
    assert "M = 4.64, 95% CI [4.56, ∞], t(204) = 12.39, p < .001" in text
    assert ", , " not in text  # a formula dropped from a sentence left its commas
