"""The report's creation time in words (the file is read anywhere: the zone is named)."""

from __future__ import annotations

from litdesk.adapters.report_html import created_words


def test_created_time_in_words_names_its_zone() -> None:
    assert created_words("2026-12-05T12:48:39+00:00") == "5 Dec 2026, 12:48 UTC"
    assert created_words("2026-01-31T09:05:00") == "31 Jan 2026, 09:05"  # no zone: none named
    assert created_words("not a date") == "not a date"
