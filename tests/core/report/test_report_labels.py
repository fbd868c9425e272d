"""Citation labels and the report file name (pure rules from the reference)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError
from litdesk.core.report import (
    ReportPaper,
    ReportUnit,
    UnitExcerpt,
    assign_labels,
    label_sort_key,
    report_file_name,
    surname,
)

A = ReportPaper("a.pdf", "Paper A", ("Li, Xiaoming",))
B = ReportPaper("b.pdf", "Paper B", ("Anna Moortgat",))
C = ReportPaper("c.pdf", "Paper C")


def ex(n: int, file: str, page: int, text: str, rank: int = 1) -> UnitExcerpt:
    return UnitExcerpt(n, file, page, text, rank)


def q(index: int, text: str, *excerpts: UnitExcerpt, paper: str | None = None) -> ReportUnit:
    return ReportUnit("question", f"q{index}", text, tuple(excerpts), paper, index)


def test_letters_follow_first_citation_uncited_last_and_numbers_in_reading_order() -> None:
    units = [
        # a summary comes later in reading order even though it is listed first
        ReportUnit("summary", "aim", "Aim [1].", (ex(1, "a.pdf", 1, "aim text"),), "a.pdf"),
        q(0, "B says [1], A says [2].", ex(1, "b.pdf", 3, "b three"), ex(2, "a.pdf", 2, "a two")),
        q(1, "Again [2][1].", ex(1, "b.pdf", 3, "b  three"), ex(2, "b.pdf", 4, "b four")),
    ]
    rep = assign_labels([A, B, C], units)
    assert rep.letters == {"b.pdf": "A", "a.pdf": "B", "c.pdf": "C"}
    labels = [(p.label, p.file, p.page) for p in rep.passages]
    assert labels == [
        ("A1", "b.pdf", 3),
        ("A2", "b.pdf", 4),
        ("B1", "a.pdf", 2),
        ("B2", "a.pdf", 1),
    ]
    # the same passage on the same page (whitespace aside) keeps its label across units
    assert rep.passage("A1").units == ("question 1", "question 2")
    # labels at one spot are side by side and sorted
    spots = [p.labels for p in rep.parts[2] if p.labels]
    assert spots == [("A1", "A2")]
    text = "".join(p.text or "|" + ",".join(p.labels) + "|" for p in rep.parts[1])
    assert text == "B says |A1|, A says |B1|."


def test_one_paper_gets_plain_numbers_and_preset_letters_win() -> None:
    one = assign_labels(
        [A], [q(0, "x [2] y [1]", ex(1, "a.pdf", 1, "one"), ex(2, "a.pdf", 5, "five"))]
    )
    assert [p.label for p in one.passages] == ["1", "2"]
    assert one.passage("1").page == 5 and one.letters == {"a.pdf": ""}
    preset = assign_labels(
        [A, B], [q(0, "x [1]", ex(1, "a.pdf", 1, "t"))], preset={"b.pdf": "A", "a.pdf": "zz"}
    )
    assert preset.letters == {"b.pdf": "A", "a.pdf": "B"}  # an invalid preset is ignored


def test_one_label_is_one_page_even_for_equal_text() -> None:
    rep = assign_labels(
        [A, B], [q(0, "[1][2]", ex(1, "a.pdf", 1, "same"), ex(2, "a.pdf", 2, "same"))]
    )
    assert [(p.label, p.page) for p in rep.passages] == [("A1", 1), ("A2", 2)]


def test_unverified_or_foreign_citations_are_refused() -> None:
    with pytest.raises(InputError) as info:
        assign_labels([A], [q(0, "claim [3]", ex(1, "a.pdf", 1, "t"))])
    assert info.value.code == "unverified_citation"
    with pytest.raises(InputError) as info:
        assign_labels([A], [q(0, "claim [1]", ex(1, "x.pdf", 1, "t"))])
    assert info.value.code == "unknown_paper"
    with pytest.raises(InputError):
        assign_labels([A, A], [])


def test_label_sort_is_natural() -> None:
    assert sorted(["A10", "B1", "A2", "A1"], key=label_sort_key) == ["A1", "A2", "A10", "B1"]
    assert sorted(["10", "9"], key=label_sort_key) == ["9", "10"]


def test_file_name_rule() -> None:
    day = date(2026, 9, 18)
    d = ReportPaper("d.pdf", None, ("Chen, W.",))
    e = ReportPaper("e.pdf", None, ("Émile Zoë Dubois",))
    assert report_file_name([A, B, d], ["q"], on=day) == (
        "2026-09-18_synthesis_report_Li_Moortgat_Chen.html"
    )
    assert report_file_name([A, B, d, e], ["q"], on=day).endswith("_Li_Moortgat_Chen_et_al.html")
    assert report_file_name([C], ["Which cameras were used? <b>"], on=day) == (
        "2026-09-18_synthesis_report_which_cameras_were_used_b.html"
    )
    assert report_file_name([e], [], on=day) == "2026-09-18_synthesis_report_Dubois.html"
    assert report_file_name([C], [], on=day) == "2026-09-18_synthesis_report_report.html"
    assert surname("Li, Xiaoming") == "Li" and surname("  ") == ""


@settings(max_examples=150, deadline=None)
@given(
    authors=st.lists(st.text(max_size=30), max_size=5),
    question=st.text(max_size=200),
)
def test_file_name_is_always_safe(authors: list[str], question: str) -> None:
    papers = [ReportPaper(f"{i}.pdf", None, (a,)) for i, a in enumerate(authors)]
    name = report_file_name(papers, [question], on=date(2026, 1, 2))
    assert name.startswith("2026-01-02_synthesis_report_") and name.endswith(".html")
    stem = name.removesuffix(".html")
    assert all(c.isascii() and (c.isalnum() or c in "_-") for c in stem)
    assert len(name) < 200


@settings(max_examples=100, deadline=None)
@given(
    cites=st.lists(
        st.tuples(st.sampled_from(["a.pdf", "b.pdf"]), st.integers(1, 4), st.sampled_from("xyz")),
        min_size=1,
        max_size=12,
    )
)
def test_labels_are_unique_per_passage_and_page(cites: list[tuple[str, int, str]]) -> None:
    excerpts = tuple(ex(i, f, p, t) for i, (f, p, t) in enumerate(cites, start=1))
    text = " ".join(f"s{i} [{i}]" for i in range(1, len(cites) + 1))
    rep = assign_labels([A, B], [q(0, text, *excerpts)])
    keys = {(p.file, p.page, p.text) for p in rep.passages}
    assert len(keys) == len(rep.passages) == len(set(cites))
    for p in rep.passages:
        assert p.label.startswith(rep.letters[p.file])
    numbers = [label_sort_key(p.label)[1] for p in rep.passages if p.letter == "A"]
    assert numbers == list(range(1, len(numbers) + 1))
