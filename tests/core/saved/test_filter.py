"""Saved-papers filter: identifiers exact, then substrings, then fuzzy for long words."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from litdesk.core.records import make_paper
from litdesk.core.saved import filter_papers, is_fuzzy_query


def _papers():
    return [
        make_paper(
            pmid="1",
            doi="10.1000/abc",
            title="Tumour growth in mice",
            authors=["Smith J"],
            journal="Cancer Letters",
        ),
        make_paper(
            pmid="2",
            doi="10.1000/xyz",
            title="Gut microbiome and depression",
            authors=["Garcia M"],
            journal="Brain",
        ),
        make_paper(pmid="3", title="Mentions 10.1000/abc in the title", authors=["Lee K"]),
        make_paper(pmid="4", title="Unrelated work on bridges", authors=["Tumour T"]),
    ]


def test_identifier_first_then_substrings() -> None:
    out = filter_papers(_papers(), "https://doi.org/10.1000/ABC")
    assert [p.pmid for p in out] == ["1"]
    out = filter_papers(_papers(), "10.1000/abc")
    assert [p.pmid for p in out] == ["1", "3"]  # exact DOI first, then the substring in a title
    assert [p.pmid for p in filter_papers(_papers(), "2")] == [
        "2"
    ]  # PMID exact; "2" in nothing else


def test_substrings_cover_title_authors_journal() -> None:
    assert [p.pmid for p in filter_papers(_papers(), "tumour")] == ["1", "4"]
    assert [p.pmid for p in filter_papers(_papers(), "GARCIA")] == ["2"]
    assert [p.pmid for p in filter_papers(_papers(), "cancer letters")] == ["1"]


def test_fuzzy_only_for_long_letter_words() -> None:
    assert (
        is_fuzzy_query("microbiom")
        and not is_fuzzy_query("gut microbiome")
        and not is_fuzzy_query("abc12")
    )
    assert [p.pmid for p in filter_papers(_papers(), "microbiom")] == ["2"]  # substring
    assert [p.pmid for p in filter_papers(_papers(), "mikrobiome")] == ["2"]  # fuzzy
    assert filter_papers(_papers(), "mikr") == []  # under 5 letters: no fuzzy
    assert filter_papers(_papers(), "zzzzzzzz") == []


def test_blank_keeps_everything_in_order() -> None:
    papers = _papers()
    assert filter_papers(papers, "   ") == papers


@given(st.text(max_size=60))
def test_any_text_gives_a_subset_without_duplicates(text: str) -> None:
    papers = _papers()
    out = filter_papers(papers, text)
    ids = [p.id for p in out]
    assert len(ids) == len(set(ids))
    assert set(ids) <= {p.id for p in papers}
