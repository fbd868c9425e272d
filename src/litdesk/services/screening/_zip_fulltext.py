"""The Study ZIP's ``screening/full_text.csv``: the reports sought for retrieval, and their
retrieval back into a recovered Study.

Out: the rows of the full-text decisions export (``screen export-decisions --stage
full_text``: the same columns, each row as that export writes it) of the studies PRISMA
2020 counts as *reports sought for retrieval* — included or "maybe" at title and abstract,
every round — in the export's order, each with its full-text decision, reason and status,
and two columns more: ``retrieval`` (``not retrieved`` or ``retrieved`` where a retrieval
note is recorded, the latest counting; empty otherwise) and ``retrieval_note``. So its
numbers are the PRISMA flow's of the same ZIP: rows = reports sought; ``not retrieved`` =
reports not retrieved; of the others, decision ``include`` = studies included, ``exclude``
= reports excluded (by reason), the rest (no decision, a "maybe", a conflict) = awaiting
assessment. A report recorded not retrieved counts as not retrieved whatever its decision,
as the flow counts it. The export's other rows (the studies never sought) are not listed.

In: each row's ``retrieval`` is recorded as the recovering account's retrieval note on the
record it names (found as any decisions file finds it: key, DOI, PMID, title), so that a
recovered Study's flow counts its reports not retrieved again. Reading is linear in the
file; a file without the columns (a ZIP made before them) records nothing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from litdesk.adapters.store import screening
from litdesk.core.dedup import normalize_title
from litdesk.core.records import normalize_doi, normalize_pmid
from litdesk.core.screening import ImportedDecision

from ._exchange import RecordIndex
from ._parts import AreaParts

__all__ = [
    "RETRIEVAL_COLUMNS",
    "RetrievalRecorded",
    "latest_retrieval",
    "record_retrieval",
    "sought_reports_csv",
]

#: how a record is named to find it (core's ``IdKind``)
IdKind = Literal["id", "doi", "pmid", "title"]
#: the columns the ZIP's full-text file adds to the decisions export's
RETRIEVAL_COLUMNS: Final = ("retrieval", "retrieval_note")
#: a retrieval status in words, as the file says it
_WORDS: Final = {"not_retrieved": "not retrieved", "retrieved": "retrieved"}
_STATUS: Final = {v: k for k, v in _WORDS.items()}
#: a cell a spreadsheet would read as a formula starts with one of these (the export's
#: cells are written with a leading ``'``, read back without)
_TRIGGERS: Final = ("=", "+", "-", "@", "\t", "\r")
#: the longest note kept (the store's retrieval notes)
_MAX_NOTE: Final = 2_000
#: identifiers longer than this are not used to find the record
_ID_LIMIT: Final = 4_000


def _text(cell: str) -> str:
    """A cell of the export as its value (the formula escape taken off)."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(_TRIGGERS) else cell


def _cell(value: str) -> str:
    return "'" + value if value.startswith(_TRIGGERS) else value


def latest_retrieval(
    rows: Iterable[screening.RetrievalRow], group_of: Mapping[str, str]
) -> dict[str, screening.RetrievalRow]:
    """Each study's latest retrieval note by group key (``rows`` oldest first; a
    study's notes are its members' too)."""
    out: dict[str, screening.RetrievalRow] = {}
    for r in rows:
        out[group_of.get(r.record_key, r.record_key)] = r
    return out


def sought_reports_csv(export: bytes, retrieval: Mapping[str, screening.RetrievalRow]) -> bytes:
    """The full-text decisions export ``export`` (litdesk's CSV, its first column the
    study's key: one row per report sought for retrieval), each row with its study's latest
    ``retrieval`` note (by group key) in two columns more."""
    reader = csv.reader(io.StringIO(export.decode("utf-8"), newline=""))
    header = next(reader)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([*header, *RETRIEVAL_COLUMNS])
    for row in reader:
        if not row:
            continue
        note = retrieval.get(_text(row[0]))
        status = _WORDS.get(note.status, "") if note is not None else ""
        writer.writerow([*row, status, _cell(note.note) if note is not None and status else ""])
    return buf.getvalue().encode("utf-8")


@dataclass(frozen=True, slots=True)
class RetrievalRecorded:
    """What recovery recorded of the file's retrieval: notes recorded, and rows whose
    record is not in the recovered Study."""

    recorded: int = 0
    unmatched: int = 0


def _identifiers(row: Mapping[str, str], key: str) -> tuple[tuple[IdKind, str], ...]:
    ids: list[tuple[IdKind, str]] = []
    doi, pmid, title = (_text(row.get(k) or "")[:_ID_LIMIT] for k in ("doi", "pmid", "title"))
    ids.append(("id", key))
    if doi := normalize_doi(doi) or "":
        ids.append(("doi", doi))
    if pmid := normalize_pmid(pmid) or "":
        ids.append(("pmid", pmid))
    if title := normalize_title(title):
        ids.append(("title", title))
    return tuple(ids)


def _notes(body: bytes) -> list[tuple[dict[str, str], str, str]]:
    """The file's rows with a retrieval status: (row, status as stored, note)."""
    text = body.decode("utf-8-sig", errors="replace")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if reader.fieldnames is None or RETRIEVAL_COLUMNS[0] not in reader.fieldnames:
        return []
    out: list[tuple[dict[str, str], str, str]] = []
    for row in reader:
        status = _STATUS.get((row.get(RETRIEVAL_COLUMNS[0]) or "").strip())
        if status is not None:
            note = _text(row.get(RETRIEVAL_COLUMNS[1]) or "")[:_MAX_NOTE]
            out.append((row, status, note))
    return out


def record_retrieval(area: AreaParts, study: str, body: bytes, owner: str) -> RetrievalRecorded:
    """Record the retrieval the ZIP's ``full_text`` member says into recovered Study
    ``study`` (its owner), each as ``owner``'s note, in one transaction (as a retrieval
    note is recorded on its card: no entry of its own in the Study's history)."""
    notes = _notes(body)
    if not notes:
        return RetrievalRecorded()
    with area.store.read() as conn:
        row, _ = area._study(conn, study, owner, "owner")
    index = RecordIndex(area.cache.screen_set(row.id, reconcile=True).groups)
    recorded = unmatched = 0
    with area.store.write() as conn:
        area._study(conn, study, owner, "owner")
        area.store.lock(conn, screening.SCREENING_LOCK, row.id)
        now = area._now()
        for cells, status, note in notes:
            key = _text(cells.get("record_id") or "")
            found = index.find(ImportedDecision(0, _identifiers(cells, key), "include"))
            if isinstance(found, str):
                unmatched += 1
                continue
            screening.add_retrieval(
                conn, row.id, record_key=found[0], retrieved=status == "retrieved",
                note=note, by=owner, at=now,
            )  # fmt: skip
            recorded += 1
    return RetrievalRecorded(recorded, unmatched)
