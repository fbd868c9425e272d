"""Only excerpts relevant enough are shown in an answer; the rest are near misses."""

from __future__ import annotations

from litdesk.core.library import (
    RELEVANCE_FLOOR,
    relevance_needed,
    relevance_note,
    split_relevant,
)


def test_split_keeps_order_and_puts_the_rest_apart() -> None:
    split = split_relevant([0.9, 0.4, 0.75, None, 0.69], 0.7)
    assert split.shown == (0, 2, 3)  # None: not judged, shown
    assert split.near == (1, 4)
    assert split.needed == 0.7


def test_at_the_threshold_is_relevant() -> None:
    assert split_relevant([0.7], 0.7).shown == (0,)


def test_note_only_when_something_was_left_out() -> None:
    assert relevance_note(split_relevant([0.9, 0.8], 0.7)) == ""
    note = relevance_note(split_relevant([0.9, 0.1, 0.2, 0.3], 0.7))
    assert note.startswith("Only 1 of the 4 excerpts retrieved was relevant enough")
    assert "(support 0.70 or more)" in note and "the other 3 are listed apart" in note
    two = relevance_note(split_relevant([0.9, 0.8, 0.1], 0.7))
    assert "Only 2 of the 3 excerpts retrieved were" in two and "the other is listed" in two


def test_needed_is_half_the_best_between_the_floor_and_the_threshold() -> None:
    assert relevance_needed(0.7, 1.2) == 0.6  # half the best
    assert relevance_needed(0.7, 2.0) == 0.7  # never above the threshold
    assert relevance_needed(0.7, 0.8) == RELEVANCE_FLOOR * 0.7  # never under the floor
    # a cross question: each passage carries part of the words; both kept, padding not
    needed = relevance_needed(0.75, 0.85)
    assert split_relevant([0.85, 0.61, 0.14, 0.03], needed).shown == (0, 1)
