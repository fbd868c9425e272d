from __future__ import annotations

import pytest

from litdesk.core.records import PaperError, make_paper, primary_id, read_paper, same_paper


def test_make_paper_derives_id_and_normalises() -> None:
    p = make_paper(title="  A  title ", doi="https://doi.org/10.1234/ABC", pmid="PMID: 42")
    assert p.id == "MED-42"
    assert p.doi == "10.1234/abc"
    assert p.title == "A  title"


def test_unsafe_urls_are_dropped() -> None:
    p = make_paper(
        title="t",
        fallback_key="k",
        source_url="http://example.org/x",
        full_text_url="https://user:pw@example.org/x",
    )
    assert p.source_url is None and p.full_text_url is None
    ok = make_paper(
        title="t", fallback_key="k", full_text_url="https://europepmc.org/articles/PMC1"
    )
    assert ok.full_text_url == "https://europepmc.org/articles/PMC1"


def test_read_paper_type_checks_every_field() -> None:
    good = make_paper(title="t", pmid="1").to_dict()
    assert read_paper(good) == make_paper(title="t", pmid="1")
    for field, bad in [("year", "2001"), ("retracted", "Y"), ("authors", "x"), ("doi", "nope")]:
        with pytest.raises(PaperError):
            read_paper({**good, field: bad})
    with pytest.raises(PaperError):
        read_paper({**good, "version": 2})
    with pytest.raises(PaperError):
        read_paper({**good, "unexpected": 1})
    with pytest.raises(PaperError):
        read_paper([good])


def test_same_paper_by_any_identifier_never_by_title() -> None:
    a = make_paper(title="Same", doi="10.1234/a")
    b = make_paper(title="Other", doi="10.1234/A", openalex_id="W9")
    c = make_paper(title="Same", doi="10.1234/c")
    assert same_paper(a, b)
    assert not same_paper(a, c)


@pytest.mark.parametrize("fallback", [None, "", "   "])
def test_a_paper_with_no_identifier_and_no_fallback_key_is_refused(fallback: str | None) -> None:
    # before: every such paper got the id "REC-" + hash of "" and saving them merged them
    for fields in ({"title": "A", "authors": ("X, Y",)}, {"title": "B", "year": 2001}, {}):
        with pytest.raises(PaperError) as info:
            make_paper(fallback_key=fallback, **fields)
        assert info.value.code == "paper_unkeyed"
        assert "identifier" in info.value.message and "fallback key" in info.value.message
        assert info.value.details["errors"][0]["field"] == "id"
    assert primary_id(fallback=fallback) is None
    assert primary_id() is None


def test_an_unkeyed_paper_with_a_bad_field_reports_the_field() -> None:
    # the malformed DOI is what to fix: it is named, not just "no identifier"
    with pytest.raises(PaperError) as info:
        make_paper(title="t", doi="not a doi")
    assert info.value.code == "paper_invalid" and "DOI" in info.value.message
    with pytest.raises(PaperError) as info:
        make_paper(title="t", year="2001")
    assert info.value.code == "paper_invalid" and "year" in info.value.message


def test_papers_with_only_a_fallback_key_keep_one_id_each() -> None:
    a = make_paper(title="same", fallback_key="sha256:a")
    b = make_paper(title="same", fallback_key="sha256:b")
    assert a.id.startswith("REC-") and b.id.startswith("REC-") and a.id != b.id
    assert make_paper(title="other", fallback_key="sha256:a").id == a.id
