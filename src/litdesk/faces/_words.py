"""Words for people, shared by the CLI and the web face: dates, numbers and plurals.

Stored times are ISO 8601 in UTC; people read them in the machine's local time as
``5 Dec 2026, 01:14`` (and, for the last day, ``3 minutes ago``). Numbers carry thousands
separators; a count and its noun agree (``1 saved search``, ``2 saved searches``). The
functions live in :mod:`litdesk.core.words` (pure), so views can build labels with them.
"""

from __future__ import annotations

from litdesk.core.words import (
    authors_line,
    dates,
    day,
    import_label,
    lane_label,
    num,
    plural,
    run_label,
    when,
)

__all__ = [
    "authors_line",
    "dates",
    "day",
    "import_label",
    "lane_label",
    "num",
    "plural",
    "run_label",
    "when",
]
