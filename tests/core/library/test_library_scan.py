from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import cut_references, find_ids, strip_running_lines

BODY = "Intro text about results in 2019 and more words here.\n" * 40


def test_cut_references_after_heading_keeps_appendix() -> None:
    refs = "".join(f"[{i}] A. Author. Title. Journal, 20{i % 20:02d}.\n" for i in range(40))
    appendix = "A Dataset details\nThe appendix describes the data in depth.\n" * 20
    pages = [BODY, BODY, BODY + "References\n" + refs[:500], refs, appendix]
    kept, cut = cut_references(pages)
    assert cut == (2, len(BODY))
    assert kept[2] == BODY
    assert kept[3] == ""
    assert kept[4] == appendix
    assert kept[:2] == pages[:2]


def test_heading_variants_and_numbering() -> None:
    for heading in (
        "REFERENCES",
        "7. References",
        "Bibliography",
        "Literature Cited",
        "Referências",
        "Referencias:",
    ):
        kept, cut = cut_references([BODY, BODY, BODY + heading + "\nSmith 2001\n"])
        assert cut is not None, heading
        assert heading not in kept[2]


def test_heading_early_in_document_or_in_sentence_is_not_cut() -> None:
    pages = ["Contents\nReferences\n" + BODY, BODY, BODY]
    assert cut_references(pages)[1] is None
    pages = [BODY, BODY, BODY + "see the references in the text\n"]
    assert cut_references(pages)[1] is None


def test_find_ids_doi_prefers_full_and_arxiv_forms() -> None:
    page = "doi: 10.1371/journal pone https://doi.org/10.1371/journal.pone.0197919."
    ids = find_ids([page])
    assert ids.doi == "10.1371/journal.pone.0197919" and ids.doi_page == 1
    ids = find_ids(["nothing", "arXiv:2501.10120v1 [cs.IR] 20 Jan 2025"])
    assert (ids.arxiv, ids.arxiv_version, ids.arxiv_page) == ("2501.10120", 1, 2)
    ids = find_ids(["SLAC-PUB hep-ph/9412269 December 1994"])
    assert ids.arxiv == "hep-ph/9412269" and ids.arxiv_version is None
    assert find_ids(["a", "b", "doi 10.1000/xyz on page three"]).doi is None
    assert find_ids(["version 2.1 of 1234.5678 apples"]).arxiv is None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=400), max_size=5))
def test_scans_never_crash(pages: list[str]) -> None:
    kept, cut = cut_references(pages)
    assert len(kept) == len(pages)
    ids = find_ids(pages)
    assert ids.doi is None or ids.doi.startswith("10.")


def _page(no: int, body: str) -> str:
    return f"Journal of Testing 12 (2021) {100 + no}-{120 + no}\nA. Author et al.\n{body}\n{no}\n"


def test_running_headers_footers_and_page_numbers_are_dropped() -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    bodies = [f"Body paragraph on {w} about the trial and its outcome." for w in words]
    pages = [_page(i + 1, b) for i, b in enumerate(bodies)]
    out = strip_running_lines(pages)
    assert len(out) == len(pages)
    for text, body in zip(out, bodies, strict=True):
        assert body in text
        assert "Journal of Testing" not in text and "A. Author et al." not in text
        assert not any(line.strip().isdigit() for line in text.splitlines())


def test_lines_that_do_not_repeat_are_kept() -> None:
    pages = [f"Heading {w}\nText of the page {w}.\nClosing words {w}." for w in "abcdef"]
    assert strip_running_lines(pages) == pages
    short = ["Same header\nbody one", "Same header\nbody two", "Same header\nbody three"]
    assert strip_running_lines(short) == short  # fewer than 4 pages: nothing can repeat


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=400), max_size=8))
def test_running_lines_only_remove_whole_lines(pages: list[str]) -> None:
    out = strip_running_lines(pages)
    assert len(out) == len(pages)
    for before, after in zip(pages, out, strict=True):
        kept = after.split("\n") if after else []
        lines = before.split("\n")
        it = iter(lines)
        assert all(any(k == line for line in it) for k in kept)  # a subsequence of lines


def test_a_footnote_marker_near_the_bottom_is_kept() -> None:
    """Only the number at the page's edge (or next to running lines there) is a page
    number: a footnote's marker on its own line above the footnote (as pypdfium2 gives
    it: "6" then "https://…") is the page's text, and an excerpt without it is not on the
    page, so its citation could not be found there."""
    bodies = [f"Summary writers search the web in case {w}." for w in "abcdef"]
    pages = [
        f"Journal of Testing 12 (2021) {100 + n}-{120 + n}\n{body}\n{n + 5}\n"
        f"https://example.org/{w}-tool\n{n + 10}"
        for n, (w, body) in enumerate(zip("abcdef", bodies, strict=True), start=1)
    ]
    out = strip_running_lines(pages)
    for n, (w, text) in enumerate(zip("abcdef", out, strict=True), start=1):
        lines = text.split("\n")
        assert lines[-2:] == [str(n + 5), f"https://example.org/{w}-tool"]  # marker kept
        assert str(n + 10) not in lines and "Journal of Testing" not in text
    # a number at the top under a running header is still the page number
    top = [
        f"Running Header Of The Journal\n{n}\nBody text {w}.\nMore." for n, w in enumerate("abcdef")
    ]
    assert all(not t.split("\n")[0].isdigit() for t in strip_running_lines(top))
