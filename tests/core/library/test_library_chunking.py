from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import CHUNKING_VERSION, chunk_pages, normalise_text


def test_chunks_never_span_pages_and_know_their_page() -> None:
    pages = ["Alpha sentence one. " * 120, "", "Beta words here. " * 10]
    chunks = chunk_pages(pages)
    assert {c.page for c in chunks} == {1, 3}
    for c in chunks:
        src = pages[c.page - 1]
        assert src[c.start : c.end].strip() == c.text
        assert len(c.text) <= 1000
    assert chunks[-1].page == 3 and "Beta" in chunks[-1].text
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_consecutive_chunks_overlap() -> None:
    page = " ".join(f"word{i}." for i in range(800))
    chunks = chunk_pages([page])
    assert len(chunks) > 2
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start < a.end  # overlap
        assert a.end - b.start <= 200


def test_short_tail_is_merged_rather_than_left_tiny() -> None:
    page = "x" * 10 + " " + "A short sentence. " * 60  # ~1090 chars
    chunks = chunk_pages([page])
    assert len(chunks) == 1


def test_version_is_named_and_bad_sizes_refused() -> None:
    assert CHUNKING_VERSION.startswith("c")
    with pytest.raises(ValueError):
        chunk_pages(["text"], size=50)


def test_normalise_joins_hyphenated_breaks() -> None:
    assert normalise_text("photo-\r\nsynthesis is\r\n\r\nfast") == "photosynthesis is fast"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=3000), max_size=4))
def test_chunking_property_covers_text_and_pages(pages: list[str]) -> None:
    chunks = chunk_pages(pages)
    for c in chunks:
        assert 1 <= c.page <= len(pages)
        assert c.text and c.text == pages[c.page - 1][c.start : c.end].strip()
    # every non-space character of every page is inside some chunk of that page
    for no, page in enumerate(pages, start=1):
        covered = [False] * len(page)
        for c in chunks:
            if c.page == no:
                for i in range(c.start, c.end):
                    covered[i] = True
        assert all(covered[i] for i, ch in enumerate(page) if not ch.isspace())


def test_later_chunks_start_at_a_sentence_start() -> None:
    sentences = [
        f"Sentence number {i} says something about outcome {i * 7} in the trial." for i in range(60)
    ]
    page = " ".join(sentences)
    chunks = chunk_pages([page])
    assert len(chunks) > 2
    for c in chunks:
        assert c.text.startswith("Sentence number "), c.text[:40]
        assert c.text.endswith("trial.")
