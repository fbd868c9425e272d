"""BibTeX parser against the real recorded files in $LITDESK_FIXTURES/bib/bibtex."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litdesk.adapters.formats._bibtex import FORMATS
from litdesk.core.imports import ImportRefused
from litdesk.core.records import normalize_doi

pytestmark = pytest.mark.fixtures

PARSE = FORMATS[0].parse


def provenance_counts(folder: Path) -> dict[str, int]:
    """file name -> record count, read from the folder's PROVENANCE.md table."""
    out: dict[str, int] = {}
    for line in (folder / "PROVENANCE.md").read_text("utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


@pytest.fixture(scope="module")
def bib_dir(fixtures_dir: Path) -> Path:
    return fixtures_dir / "bib" / "bibtex"


def test_every_file_gives_the_documented_count(bib_dir: Path) -> None:
    counts = provenance_counts(bib_dir)
    assert len(counts) >= 50
    files = sorted(p.name for p in bib_dir.glob("*.bib"))
    assert set(files) == set(counts)
    for name in files:
        text = decode((bib_dir / name).read_bytes())
        expected = counts[name]
        if expected == 0:
            with pytest.raises(ImportRefused) as err:
                PARSE(text)
            assert err.value.code == "empty", name
            continue
        result = PARSE(text)
        assert len(result.records) == expected, name
        for rec in result.records:
            assert 1 <= rec.first_line <= rec.last_line, name
            assert rec.digest.startswith("sha256:")
            assert rec.raw.lstrip().startswith("@"), name
            assert rec.paper.publication_types, name


_DOI_FIELD = re.compile(r"^\s*doi\s*=\s*[{\"]+([^}\"]+)", re.I | re.M)
_KEY = re.compile(r"^\s*@\s*(\w+)\s*[{(]\s*([^,\s]+)\s*,", re.M)


def test_identifiers_equal_a_plain_reading(bib_dir: Path) -> None:
    checked = 0
    for path in sorted(bib_dir.glob("*.bib")):
        text = decode(path.read_bytes())
        plain = {
            d
            for raw in _DOI_FIELD.findall(text)
            if (d := normalize_doi(raw.replace("\\_", "_").strip()))
        }
        keys = {
            k for t, k in _KEY.findall(text) if t.lower() not in ("string", "comment", "preamble")
        }
        try:
            result = PARSE(text)
        except ImportRefused:
            assert not keys, path.name
            continue
        assert {r.paper.doi for r in result.records if r.paper.doi} == plain, path.name
        assert keys <= {r.source_id for r in result.records}, path.name
        checked += len(plain)
    assert checked > 0


def test_zotero_export_fields(bib_dir: Path) -> None:
    result = PARSE(decode((bib_dir / "asysd__zotero_export.bib").read_bytes()))
    first = result.records[0]
    assert first.source_id == "larsen_microangiography_1999"
    assert first.paper.title.startswith("Microangiography of the humeral condyle in Cocker Spaniel")
    assert first.paper.authors[:2] == ("Larsen, LJ", "Roush, JK")
    assert first.paper.year == 1999
    assert first.paper.pages == "134-137"
    assert "FRACTURES" in first.paper.keywords
    assert first.extras["issn"] == ["0932-0814"]
    assert first.first_line == 2


def test_tugboat_accents_and_macros(bib_dir: Path) -> None:
    result = PARSE(decode((bib_dir / "pybtex__tugboat.bib").read_bytes()))
    for r in result.records:
        text = r.paper.title + " " + " ".join(r.paper.authors)
        assert "\\" not in text, r.first_line  # every LaTeX command became text
        if "\\{" not in r.raw:  # only escaped braces survive as text
            assert "{" not in text and "}" not in text, r.first_line


def test_cascading_crossref_and_cycle(bib_dir: Path) -> None:
    result = PARSE(decode((bib_dir / "bibtexparser__crossref_cascading_cycle.bib").read_bytes()))
    kinds = [n.message for r in result.records for n in r.notices if n.kind == "inherited"]
    assert any("cycle" in m for m in kinds)
    child = PARSE(decode((bib_dir / "bbt__crossref_child_2373.bib").read_bytes()))
    inbook = child.records[0]
    assert inbook.paper.journal == "Global Civil Society: Dimensions of the Nonprofit Sector"
    assert inbook.paper.year == 2004
    assert any(n.kind == "inherited" for n in inbook.notices)


def test_arxiv_eprint_from_biber_examples(bib_dir: Path) -> None:
    result = PARSE(decode((bib_dir / "bibtexparser__biber-examples.bib").read_bytes()))
    arxiv = {r.paper.arxiv_id for r in result.records if r.paper.arxiv_id}
    assert "math/0307200" in arxiv
    assert "hep-th/9603067" in arxiv
    versions = {r.paper.arxiv_id: r.paper.arxiv_version for r in result.records if r.paper.arxiv_id}
    assert versions["math/0307200"] == 3


def test_through_the_registry(bib_dir: Path) -> None:
    from litdesk.adapters.formats import loads

    counts = provenance_counts(bib_dir)
    for path in sorted(bib_dir.glob("*.bib")):
        data = path.read_bytes()
        keys = [
            k
            for t, k in _KEY.findall(decode(data))
            if t.lower() not in ("string", "comment", "preamble")
        ]
        try:
            trace = loads(data, path=path.name)
        except ImportRefused as exc:
            if len(set(keys)) < len(keys):  # the file repeats a citation key
                assert exc.code == "duplicate_ids", path.name
            else:
                assert counts[path.name] == 0 and exc.code == "empty", path.name
            continue
        assert trace.source.format == "bibtex", path.name
        assert len(trace.records) == counts[path.name], path.name
        assert trace.source.parser.id == "litdesk.bibtex"
