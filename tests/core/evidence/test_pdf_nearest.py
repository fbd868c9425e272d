"""The nearest text shown when a PDF passage is refused starts and ends on whole words,
whichever end of the passage the page's text was aligned on (walk12: a number changed
from "fifteen" to "fifty" showed "cus groups were conducted…")."""

from __future__ import annotations

import pytest

from litdesk.core.evidence import EvidenceRefused, PdfPage, check_pdf_passage
from litdesk.core.evidence._pdf_match import nearest_pdf_text

PAGE = (
    "Objectives. Patient experiences were examined. Methods. Focus groups were conducted\n"
    "with fifteen participants (men, n = 12) attending one of two heart failure\n"
    "rehabilitation programmes. Results. Participants indicated that programmes met their needs."
)


def test_aligned_on_the_ending_the_shown_text_starts_on_a_word() -> None:
    altered = (
        "Focus groups were conducted with fifty participants (men, n = 12) attending "
        "one of two heart failure rehabilitation programmes."
    )
    nearest = nearest_pdf_text(PAGE, altered)
    assert nearest is not None
    assert nearest.startswith("Focus groups"), nearest
    assert nearest.endswith("programmes."), nearest


def test_aligned_on_the_beginning_the_shown_text_ends_on_a_word() -> None:
    altered = "Focus groups were conducted with fifteen participants (women, n = 12) attending"
    nearest = nearest_pdf_text(PAGE, altered)
    assert nearest is not None
    assert nearest.startswith("Focus groups"), nearest
    last = nearest.split()[-1]
    assert PAGE.replace("\n", " ").split().count(last) >= 1, nearest


def test_the_refusal_names_the_whole_words() -> None:
    altered = (
        "Focus groups were conducted with fifty participants (men, n = 12) attending "
        "one of two heart failure rehabilitation programmes."
    )
    with pytest.raises(EvidenceRefused) as refused:
        check_pdf_passage(PdfPage(sha256="0" * 64, file="a.pdf", page=1), altered, [PAGE])
    assert "\u201cFocus groups were conducted" in refused.value.message
