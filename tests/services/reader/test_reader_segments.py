"""The reader's highlight runs (``marked_segments``): whatever the ranges, the runs spell the
text exactly, alternate plain/marked without empty runs, and mark exactly the characters
covered by some valid range (overlaps merge for display only)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from litdesk.services.reader import abstract_segments, marked_segments

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)
ranges = st.lists(st.tuples(st.integers(-5, 70), st.integers(-5, 70)), max_size=8)


@given(texts, ranges)
def test_runs_spell_the_text_and_mark_the_covered_characters(
    text: str, spans: list[tuple[int, int]]
) -> None:
    runs = marked_segments(text, spans)
    assert "".join(r["text"] for r in runs) == text
    assert all(r["text"] for r in runs)
    assert all(a["marked"] != b["marked"] for a, b in zip(runs, runs[1:], strict=False))
    covered = {i for s, e in spans if 0 <= s < e <= len(text) for i in range(s, e)}
    marked: set[int] = set()
    at = 0
    for r in runs:
        if r["marked"]:
            marked.update(range(at, at + len(r["text"])))
        at += len(r["text"])
    assert marked == covered


def test_abstract_highlights_with_a_notice_are_not_marked() -> None:
    notes = [
        {"anchor": {"source": "abstract", "start": 0, "end": 4}, "notice": None},
        {"anchor": {"source": "abstract", "start": 5, "end": 9}, "notice": "changed"},
        {"anchor": {"source": "fulltext", "start": 10, "end": 12}, "notice": None},
    ]
    runs = abstract_segments("Mice were weighed", notes)
    assert [r["text"] for r in runs if r["marked"]] == ["Mice"]
