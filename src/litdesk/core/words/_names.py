"""Things named by what a person knows: an import by its file, records and day; a search
by its query and day (ids stay in URLs and folded details)."""

from __future__ import annotations

from typing import Final

from ._format import day, plural

__all__ = ["file_name", "import_label", "run_label"]

#: longest query a run's label quotes whole (a longer one ends in "…")
QUERY_CHARS: Final = 80


def file_name(path: object) -> str:
    """A file named for people: its name without the folders (``/a/b/refs.ris`` → ``refs.ris``)."""
    text = str(path)
    return text.replace("\\", "/").rsplit("/", 1)[-1] or text


def import_label(file: str, records: int | None, created_at: object) -> str:
    """``psycinfo_64.ris, 64 records, 5 Dec 2026`` (the file's name without folders)."""
    parts = [file_name(file)]
    if records is not None:
        parts.append(plural(records, "record"))
    when = day(created_at)
    if when:
        parts.append(when)
    return ", ".join(parts)


def run_label(query: str, executed_at: object) -> str:
    """``“sepsis AND children”, 5 Dec 2026`` (a long query is cut with ``…``)."""
    text = " ".join(query.split())
    if len(text) > QUERY_CHARS:
        text = text[: QUERY_CHARS - 1].rstrip() + "…"
    when = day(executed_at)
    quoted = f"“{text}”" if text else "a search without a query"
    return f"{quoted}, {when}" if when else quoted
