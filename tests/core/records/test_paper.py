from __future__ import annotations

import pytest

from litdesk.core.records import PaperError, make_paper, read_paper, same_paper


def test_make_paper_derives_id_and_normalises() -> None:
    p = make_paper(title="  A  title ", doi="https://doi.org/10.1234/ABC", pmid="PMID: 42")
    assert p.id == "MED-42"
    assert p.doi == "10.1234/abc"
    assert p.title == "A  title"


def test_unsafe_urls_are_dropped() -> None:
    p = make_paper(
        title="t",
        source_url="http://example.org/x",
        full_text_url="https://user:pw@example.org/x",
    )
    assert p.source_url is None and p.full_text_url is None
    ok = make_paper(title="t", full_text_url="https://europepmc.org/articles/PMC1")
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
