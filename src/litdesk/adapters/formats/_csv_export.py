"""CSV export of papers: stable columns, formula-safe cells (RFC 4180, CRLF rows).

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (or with
an apostrophe, so the rule is reversible) gets a leading apostrophe, so a spreadsheet
never evaluates it as a formula. :func:`read_rows` undoes the escaping.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Final

from litdesk.core.records import Paper

__all__ = ["COLUMNS", "dumps", "escape_cell", "read_rows", "unescape_cell"]

#: The columns, in order (stable: new columns are only ever appended).
COLUMNS: Final = (
    "id",
    "title",
    "authors",
    "journal",
    "year",
    "volume",
    "issue",
    "pages",
    "doi",
    "pmid",
    "pmcid",
    "openalex_id",
    "arxiv_id",
    "publication_types",
    "keywords",
    "abstract",
    "source_url",
    "open_access",
    "retracted",
    "cited_by",
)
#: Separator of list values (authors, keywords, publication types) inside one cell.
LIST_SEPARATOR: Final = "; "
_TRIGGERS: Final = ("=", "+", "-", "@", "\t", "\r", "'")


def escape_cell(value: str) -> str:
    """``value`` with a leading apostrophe when a spreadsheet could read it as a formula."""
    return "'" + value if value.startswith(_TRIGGERS) else value


def unescape_cell(value: str) -> str:
    """The inverse of :func:`escape_cell`."""
    return value[1:] if value.startswith("'") else value


def _cell(paper: Paper, column: str) -> str:
    value = getattr(paper, column)
    if value is None:
        return ""
    if isinstance(value, tuple):
        return LIST_SEPARATOR.join(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def dumps(papers: Sequence[Paper]) -> str:
    """CSV text: a header row, then one row per paper; ids made unique as in CSL-JSON (a
    second paper of the same id, e.g. two records of one proceedings DOI kept apart, is
    ``<id>-2``), so the file reads back without a repeated-id notice or refusal."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(COLUMNS)
    seen: set[str] = set()
    for paper in papers:
        ident, n = paper.id, 1
        while ident in seen:
            n += 1
            ident = f"{paper.id}-{n}"
        seen.add(ident)
        row = [escape_cell(_cell(paper, c)) for c in COLUMNS]
        row[0] = escape_cell(ident)
        writer.writerow(row)
    return buf.getvalue()


def read_rows(text: str) -> list[dict[str, str]]:
    """Rows of a CSV written by :func:`dumps`, cells unescaped (for checks and round trips)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return [{k: unescape_cell(v) for k, v in row.items()} for row in reader]
