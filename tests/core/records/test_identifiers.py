from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.records import (
    detect_identifier,
    normalize_arxiv,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    normalize_source_id,
    primary_id,
    split_arxiv,
)

NORMALISERS = [
    normalize_doi,
    normalize_pmid,
    normalize_pmcid,
    normalize_openalex_id,
    normalize_arxiv,
    normalize_source_id,
]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("10.1038/NATURE12373", "10.1038/nature12373"),
        ("doi:10.1038/nature12373", "10.1038/nature12373"),
        ("DOI: 10.1038/nature12373", "10.1038/nature12373"),
        ("https://doi.org/10.1038/nature12373", "10.1038/nature12373"),
        ("http://dx.doi.org/10.1038/nature12373", "10.1038/nature12373"),
        ("https://doi.org/10.1002%2F%28SICI%291097-4636", "10.1002/(sici)1097-4636"),
        ("10.1000/xyz.", "10.1000/xyz"),
        ("10.123/abc", None),  # registrant too short
        ("11.1234/abc", None),
        ("", None),
        ("10.1234/" + "a" * 600, None),
    ],
)
def test_doi(raw: str, expected: str | None) -> None:
    assert normalize_doi(raw) == expected


@pytest.mark.parametrize(
    ("fn", "raw", "expected"),
    [
        (normalize_pmid, "PMID: 12345", "12345"),
        (normalize_pmid, "https://pubmed.ncbi.nlm.nih.gov/12345/", "12345"),
        (normalize_pmid, "MED-12345", "12345"),
        (normalize_pmid, "0", None),
        (normalize_pmid, "1234567890123", None),
        (normalize_pmcid, "pmc12345", "PMC12345"),
        (normalize_pmcid, "12345", "PMC12345"),
        (normalize_pmcid, "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC12345/", "PMC12345"),
        (normalize_pmcid, "PMC-PMC12345", "PMC12345"),
        (normalize_pmcid, "PMCabc", None),
        (normalize_openalex_id, "https://openalex.org/W2741809807", "W2741809807"),
        (normalize_openalex_id, "w2741809807", "W2741809807"),
        (normalize_openalex_id, "OAX-W1", "W1"),
        (normalize_openalex_id, "A123", None),
        (normalize_arxiv, "arXiv:2401.01234v2", "2401.01234"),
        (normalize_arxiv, "https://arxiv.org/abs/hep-th/9901001v1", "hep-th/9901001"),
        (normalize_arxiv, "https://arxiv.org/pdf/2401.01234.pdf", "2401.01234"),
        (normalize_arxiv, "math.GT/0309136", "math.GT/0309136"),
        (normalize_arxiv, "10.48550/arXiv.2206.10883", "2206.10883"),
        (normalize_source_id, "ppr-PPR12345", "PPR-PPR12345"),
        (normalize_source_id, "MED-0012", "MED-12"),
        (normalize_source_id, "PMC-12", "PMC-PMC12"),
        (normalize_source_id, "XYZ-12", None),
        (normalize_source_id, "MED-", None),
    ],
)
def test_normalisers(fn, raw: str, expected: str | None) -> None:
    assert fn(raw) == expected


def test_arxiv_version_kept_separately() -> None:
    parsed = split_arxiv("arXiv:1504.06236v2")
    assert parsed is not None
    assert (parsed.base, parsed.version) == ("1504.06236", 2)
    unversioned = split_arxiv("1504.06236")
    assert unversioned is not None and unversioned.version is None


@given(st.text(max_size=300))
@settings(max_examples=400, deadline=None)
def test_normalisers_never_raise_and_are_idempotent(text: str) -> None:
    for fn in NORMALISERS:
        out = fn(text)
        if out is not None:
            assert fn(out) == out, (fn.__name__, text, out)


@given(st.from_regex(r"10\.[0-9]{4,9}/[A-Za-z0-9._;()/:-]{1,40}", fullmatch=True))
def test_doi_forms_agree(doi: str) -> None:
    base = normalize_doi(doi)
    if base is None:  # e.g. a suffix that is only trailing punctuation
        return
    assert normalize_doi("https://doi.org/" + doi) == base
    assert normalize_doi("doi:" + doi.upper()) == base


def test_primary_id_preference() -> None:
    assert primary_id(pmid="12", pmcid="PMC3", openalex_id="W1") == "MED-12"
    assert primary_id(pmcid="PMC3", openalex_id="W1") == "PMC-PMC3"
    assert primary_id(source_id="PPR-PPR9", openalex_id="W1") == "PPR-PPR9"
    assert primary_id(openalex_id="W1", doi="10.1234/x") == "OAX-W1"
    assert primary_id(arxiv_id="hep-th/9901001") == "ARX-HEP-TH_9901001"
    assert primary_id(doi="10.1234/X") == primary_id(doi="10.1234/x")
    assert primary_id(doi="10.1234/x").startswith("DOI-")
    assert primary_id(fallback="abc").startswith("REC-")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10.1038/nature12373", ("doi", "10.1038/nature12373")),
        ("12345678", ("pmid", "12345678")),
        ("PMID:123", ("pmid", "123")),
        ("PMID: 123", ("pmid", "123")),
        ("doi: 10.1038/X", ("doi", "10.1038/x")),
        ("arXiv: 2401.01234", ("arxiv", "2401.01234")),
        ("PMC12345", ("pmcid", "PMC12345")),
        ("W2741809807", ("openalex", "W2741809807")),
        ("2401.01234v2", ("arxiv", "2401.01234")),
        ("PPR-PPR123", ("source", "PPR-PPR123")),
        ("machine learning", None),
        ("cancer", None),
    ],
)
def test_detect_identifier(text: str, expected: tuple[str, str] | None) -> None:
    assert detect_identifier(text) == expected
