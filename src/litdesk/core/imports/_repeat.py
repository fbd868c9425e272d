"""The same file imported again (pure): recognised by its source digest and said so."""

from __future__ import annotations

import dataclasses

from ._trace import ImportTrace, Notice

__all__ = ["repeated_source"]


def repeated_source(trace: ImportTrace, earlier: list[str]) -> ImportTrace:
    """``trace`` with a ``repeated_source`` notice: the same bytes (source digest) were
    imported before as ``earlier`` (import ids or file paths)."""
    shown = ", ".join(e[:200] for e in earlier[:5])
    if len(earlier) > 5:
        shown += f" (+{len(earlier) - 5})"
    digest = trace.source.sha256.removeprefix("sha256:")[:12]
    note = Notice(
        "repeated_source",
        f"the same file (sha256 {digest}…) was imported before as {shown}; "
        "its records are counted once in PRISMA",
    )
    return dataclasses.replace(trace, notices=(*trace.notices, note))
