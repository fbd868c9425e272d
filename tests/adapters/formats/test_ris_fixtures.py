"""Every real RIS export in the shared fixtures parses; counts and identifiers match a plain reading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litdesk.adapters import formats
from litdesk.core.imports import ImportRefused
from litdesk.core.records import normalize_doi, normalize_pmid

pytestmark = pytest.mark.fixtures


def provenance_counts(folder: Path) -> dict[str, int]:
    """``file -> records`` from the table in the folder's PROVENANCE.md."""
    out: dict[str, int] = {}
    for line in (folder / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0].startswith("`") and cells[1].isdigit():
            out[cells[0].strip("`")] = int(cells[1])
    return out


def plain_lines(path: Path) -> list[str]:
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    return re.split(r"\r\n|\r|\n", text)


def _files(fixtures_dir: Path) -> list[tuple[Path, int]]:
    folder = fixtures_dir / "bib" / "ris"
    counts = provenance_counts(folder)
    assert len(counts) >= 40, "the PROVENANCE table could not be read"
    return [(folder / name, n) for name, n in sorted(counts.items())]


def _duplicate_ids(lines: list[str]) -> set[str]:
    ids = [m.group(1).strip() for x in lines if (m := re.match(r"^ID  - (.+)$", x))]
    return {i for i in ids if ids.count(i) > 1}


def test_every_ris_fixture_parses_with_its_record_count(fixtures_dir: Path) -> None:
    checked = with_dups = 0
    for path, expected in _files(fixtures_dir):
        lines = plain_lines(path)
        dups = _duplicate_ids(lines)
        if dups:
            # two different records share an ID: refused only when asked (--strict-ids) …
            with pytest.raises(ImportRefused) as info:
                formats.load(path, duplicate_ids="refuse")
            assert info.value.code == "duplicate_ids", path.name
            assert all(d in info.value.message for d in dups)
            with_dups += 1
        # … and by default every record is kept, with notices
        trace = formats.load(path)
        if dups:
            assert any(n.kind == "duplicate_id" for n in trace.notices), path.name
        assert trace.source.format == "ris", path.name
        assert len(trace.records) == expected, path.name
        assert trace.source.bytes == path.stat().st_size
        for rec in trace.records:
            assert 1 <= rec.first_line <= rec.last_line <= len(lines)
            assert rec.digest.startswith("sha256:")
        checked += 1
    assert checked >= 40
    assert with_dups <= 2


def test_ris_fixture_identifiers_equal_a_plain_reading(fixtures_dir: Path) -> None:
    for path, _ in _files(fixtures_dir):
        lines = plain_lines(path)
        if _duplicate_ids(lines):
            continue
        trace = formats.load(path)
        dois_in_file = {
            d for x in lines if x.startswith("DO  - ") and (d := normalize_doi(x[6:].strip()))
        }
        assert {p.doi for p in trace.papers if p.doi} == dois_in_file, path.name
        databases = " ".join(x for x in lines if x.startswith(("DB  - ", "DP  - ")))
        pubmed_ans = {
            normalize_pmid(x[6:].strip()) for x in lines if re.match(r"^AN  - \d{1,9}\s*$", x)
        }
        if databases and not re.search("pubmed|medline|nlm", databases, re.I):
            pubmed_ans = set()
        assert {p.pmid for p in trace.papers if p.pmid} == pubmed_ans, path.name


def test_ris_titles_and_years_are_read(fixtures_dir: Path) -> None:
    trace = formats.load(fixtures_dir / "bib" / "ris" / "asysd__zotero_export.ris")
    titled = sum(1 for p in trace.papers if p.title)
    with_year = sum(1 for p in trace.papers if p.year)
    lines = plain_lines(fixtures_dir / "bib" / "ris" / "asysd__zotero_export.ris")
    assert titled == sum(1 for x in lines if x.startswith("TI  - ") and x[6:].strip())
    assert with_year == sum(1 for x in lines if re.match(r"^PY  - .*\d{4}", x))


def test_ris_round_trip_on_real_files(fixtures_dir: Path) -> None:
    for name in (
        "asysd__zotero_export.ris",
        "asreview__pubmed_endnote.txt",
        "citesource__wos_278.ris",
        "asreview__ovid_psycinfo.ris",
        "litstudy__example.ris",
    ):
        first = formats.load(fixtures_dir / "bib" / "ris" / name)
        again = formats.loads(formats.dumps(first.papers, "ris").encode(), format="ris")
        assert len(again.records) == len(first.records), name
        for a, b in zip(first.papers, again.papers, strict=True):
            assert (a.id, a.doi, a.pmid, a.pmcid) == (b.id, b.doi, b.pmid, b.pmcid), name
            assert (a.title, a.authors, a.year, a.journal) == (
                b.title,
                b.authors,
                b.year,
                b.journal,
            )
