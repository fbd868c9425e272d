"""CSL-JSON: edge cases (hand-written), the real fixtures, properties and round trips."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.adapters.formats._csljson import FORMATS, dumps, parse, sniff
from litdesk.core.imports import ImportRefused
from litdesk.core.records import Paper, make_paper, normalize_doi


def one(obj: object):
    result = parse(json.dumps(obj, indent=1))
    assert len(result.records) == 1
    return result.records[0]


def test_array_items_with_line_spans() -> None:
    text = '[\n  {"id": "a", "title": "A"},\n  {\n    "id": 7,\n    "title": "B"\n  }\n]\n'
    result = parse(text)
    assert [(r.first_line, r.last_line) for r in result.records] == [(2, 2), (3, 6)]
    assert [r.source_id for r in result.records] == ["a", "7"]
    assert result.records[1].raw.startswith("{") and result.records[1].raw.endswith("}")


def test_single_object() -> None:
    rec = one({"id": "x", "type": "book", "title": "Solo"})
    assert rec.paper.title == "Solo"
    assert rec.paper.publication_types == ("book",)


def test_authors_family_given_literal_particles() -> None:
    rec = one(
        {
            "id": "n",
            "author": [
                {"family": "Smith", "given": "John"},
                {"literal": "World Health Organization"},
                {"family": "Beethoven", "non-dropping-particle": "van", "given": "Ludwig"},
                {"family": "King", "given": "Martin Luther", "suffix": "Jr."},
                {"given": "Madonna"},
                {},
            ],
        }
    )
    assert rec.paper.authors == (
        "Smith, John",
        "World Health Organization",
        "van Beethoven, Ludwig",
        "King, Martin Luther, Jr.",
        "Madonna",
    )
    assert any("without a name" in n.message for n in rec.notices)


@pytest.mark.parametrize(
    ("issued", "year", "notice"),
    [
        ({"date-parts": [[2018, 10, 21]]}, 2018, None),
        ({"date-parts": [["2017", "07", "07"]]}, 2017, None),
        ({"date-parts": [[2018, 10, 21, 13]]}, 2018, "4 parts"),
        ({"date-parts": [[]]}, None, "no year"),
        ({"date-parts": [[None]]}, None, "no year"),
        ({"date-parts": [[2017]], "season": 3}, 2017, None),
        ({"date-parts": [["2017", 14], ["2017", 15]]}, 2017, None),
        ({"date-parts": [["-334"]]}, None, "outside"),
        ({"raw": "Spring 1999"}, 1999, None),
        ({"literal": "circa 1850"}, 1850, None),
        ("2019-03-01", 2019, None),
        (["bad"], None, "not a date"),
    ],
)
def test_issued_dates(issued: object, year: int | None, notice: str | None) -> None:
    rec = one({"id": "d", "issued": issued})
    assert rec.paper.year == year
    messages = " ".join(n.message for n in rec.notices)
    if notice:
        assert notice in messages
    else:
        assert "issued" not in messages


def test_identifiers_container_and_extras() -> None:
    rec = one(
        {
            "id": "i",
            "type": "article-journal",
            "title": "T",
            "container-title": "Journal",
            "DOI": "10.1000/XYZ",
            "PMID": "12345",
            "PMCID": "PMC999",
            "volume": 12,
            "issue": "3",
            "page": "1-9",
            "URL": "https://example.org/x",
            "keyword": "a, b",
            "publisher": "P",
            "x-custom": {"k": 1},
        }
    )
    p = rec.paper
    assert (p.doi, p.pmid, p.pmcid) == ("10.1000/xyz", "12345", "PMC999")
    assert p.id == "MED-12345"
    assert (p.journal, p.volume, p.issue, p.pages) == ("Journal", "12", "3", "1-9")
    assert p.keywords == ("a", "b")
    assert rec.extras["publisher"] == ["P"]
    assert rec.extras["x-custom"] == ['{"k": 1}']
    assert any(n.kind == "unknown_tag" and "x-custom" in n.message for n in rec.notices)
    assert not any("publisher" in n.message for n in rec.notices)


def test_malformed_doi_kept_with_notice() -> None:
    rec = one({"id": "m", "DOI": "10/abc"})
    assert rec.paper.doi is None
    assert rec.extras["DOI"] == ["10/abc"]


def test_arxiv_from_note_or_url() -> None:
    assert one({"id": "a", "note": "arXiv: 2101.00001v2"}).paper.arxiv_version == 2
    assert one({"id": "b", "URL": "https://arxiv.org/abs/1707.02264v3"}).paper.arxiv_id == (
        "1707.02264"
    )


def test_non_object_elements_are_skipped_with_notice() -> None:
    result = parse('[1, {"id": "ok"}, "x"]')
    assert [r.source_id for r in result.records] == ["ok"]
    assert [n.kind for n in result.notices] == ["skipped", "skipped"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("[]", "empty"),
        ("[1, 2]", "malformed"),
        ('[{"id": 1}', "malformed"),
        ('{"id": 1} trailing', "malformed"),
        ("true", "malformed"),
        ("[" * 100_000, "too_deep"),
    ],
)
def test_refusals(text: str, code: str) -> None:
    with pytest.raises(ImportRefused) as err:
        parse(text)
    assert err.value.code == code


def test_trailing_comma_is_tolerated() -> None:
    assert [r.source_id for r in parse('[{"id": 1},]').records] == ["1"]


def test_sniff() -> None:
    assert sniff('[{"id": "a", "type": "book", "issued": {}, "author": []}]') >= 80
    assert sniff("@article{x,}") == 0
    assert FORMATS[0].name == "csljson"


# -- real fixtures ---------------------------------------------------------------------
def provenance_counts(folder: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in (folder / "PROVENANCE.md").read_text("utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


@pytest.mark.fixtures
def test_fixture_counts_and_identifiers(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "csljson"
    counts = provenance_counts(folder)
    files = sorted(p.name for p in folder.glob("*.json"))
    assert set(files) == set(counts)
    for name in files:
        text = (folder / name).read_bytes().decode("utf-8-sig")
        result = parse(text)
        assert len(result.records) == counts[name], name
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
        plain = {d for it in items if (d := normalize_doi(str(it.get("DOI", ""))))}
        assert {r.paper.doi for r in result.records if r.paper.doi} == plain, name
        assert [r.source_id for r in result.records] == [str(it["id"]) for it in items]
        for rec, item in zip(result.records, items, strict=True):
            assert text.splitlines()[rec.first_line - 1].strip().startswith("{"), name
            assert json.loads(rec.raw) == item


@pytest.mark.fixtures
def test_fixture_dates(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "csljson"
    excess = parse((folder / "manubot__excess-date-parts-csl.json").read_text("utf-8"))
    assert excess.records[0].paper.year == 2018
    null = parse((folder / "manubot__null-date-parts-csl.json").read_text("utf-8"))
    assert null.records[0].paper.year is None
    empty = parse((folder / "manubot__empty-date-parts-csl.json").read_text("utf-8"))
    assert empty.records[0].paper.year is None
    assert empty.records[0].paper.authors[0] == "Pepe, Alberto"


# -- properties --------------------------------------------------------------------------
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["id", "title", "author", "issued", "DOI", "date-parts", "family", "x"]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=1000, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), JSONISH.map(json.dumps)))
def test_parse_arbitrary_text_returns_or_refuses(text: str) -> None:
    try:
        result = parse(text)
    except ImportRefused:
        return
    assert result.records
    assert all(isinstance(r.paper, Paper) for r in result.records)


TEXT = (
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40)
    .map(lambda s: " ".join(s.split()))
    .filter(bool)
)


# each field's strategy made once, not on every draw (a new strategy is validated and its
# properties computed again each time it is made); the values drawn are the same
AUTHORS = st.lists(TEXT, max_size=3)
YEAR = st.none() | st.integers(1000, 2999)
JOURNAL = st.none() | TEXT
DOI = st.none() | st.from_regex(r"10\.[0-9]{4,6}/[a-z0-9][a-z0-9._-]{0,12}", fullmatch=True)
PMID = st.none() | st.integers(1, 99_999_999).map(str)
ARXIV = st.none() | st.from_regex(r"2[0-4]0[1-9]\.[0-9]{5}", fullmatch=True)
KEY = st.text(max_size=4)


@st.composite
def papers(draw: st.DrawFn) -> Paper:
    return make_paper(
        title=draw(TEXT),
        authors=tuple(draw(AUTHORS)),
        year=draw(YEAR),
        journal=draw(JOURNAL),
        doi=draw(DOI),
        pmid=draw(PMID),
        arxiv_id=draw(ARXIV),
        fallback_key="k" + draw(KEY),  # never blank (refused)
    )


@settings(max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(papers(), min_size=1, max_size=4))
def test_export_import_round_trip(items: list[Paper]) -> None:
    back = parse(dumps(items)).records
    assert len(back) == len(items)
    assert len({r.source_id for r in back}) == len(back)
    for before, rec in zip(items, back, strict=True):
        after = rec.paper
        assert (after.title, after.authors, after.year, after.journal) == (
            before.title,
            before.authors,
            before.year,
            before.journal,
        )
        assert (after.doi, after.pmid, after.arxiv_id) == (before.doi, before.pmid, before.arxiv_id)
        if not before.id.startswith("REC-"):
            assert after.id == before.id


@pytest.mark.fixtures
def test_through_the_registry(fixtures_dir: Path) -> None:
    from litdesk.adapters.formats import dumps as registry_dumps
    from litdesk.adapters.formats import loads

    folder = fixtures_dir / "bib" / "csljson"
    counts = provenance_counts(folder)
    for path in sorted(folder.glob("*.json")):
        trace = loads(path.read_bytes(), path=path.name)
        assert trace.source.format == "csljson", path.name
        assert len(trace.records) == counts[path.name]
        again = loads(registry_dumps(trace.papers, "csljson").encode("utf-8"), format="csljson")
        assert [p.doi for p in again.papers] == [p.doi for p in trace.papers]


def test_provider_error_bodies_are_not_csl_json() -> None:
    from litdesk.adapters.formats._csljson import sniff

    assert (
        sniff('{"error": "Invalid query parameters error.", "message": "title is not valid"}') == 0
    )
    assert sniff('[{"type": "article-journal", "title": "x", "author": []}]') > 0
