"""A labelled file for ``litdesk screen simulate``: its records in the file's order and their
labels, or a typed error naming the row — never a silent shift of the 0-based positions that
``order`` lists.

Formats: CSV/TSV (comma, tab or semicolon; any column order; a UTF-8 or UTF-16 byte-order mark;
CRLF; quoted newlines) with the label in a column, and RIS (ASReview's export: the label is a
note ``N1  - ASReview_relevant`` / ``ASReview_irrelevant`` / ``ASReview_not_seen``, read with
``--labels N1`` or with ASReview's label column names such as ``included``; the first note
holding one anywhere decides, as in ASReview). Excel workbooks are
refused with a hint to save the sheet as CSV. Positions: every data row is one position, in
the file's order; a line holding nothing (no delimiter) is not a row (as pandas, and so
ASReview, reads CSV). A row the reader would skip (its cells all empty) or could not read (a
cell over the CSV reader's limit) stops with an error naming its line. Label values: see
:mod:`litdesk.core.screening._labels`; every record needs one (an unlabelled record is an
error naming it: a simulation replays a complete screening, and neither dropping the record,
which would shift every later position, nor guessing a label is what a researcher expects).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from litdesk._errors import InputError, NotFoundError

from .._words import plural

if TYPE_CHECKING:
    from litdesk.core.imports import ImportTrace, RecordTrace
    from litdesk.core.screening import Label, ScreeningRecord

__all__ = ["read_labelled"]

#: extras columns read as subject terms beside the mapped keywords (normalised names)
_TERM_COLUMNS: Final = ("mesh_terms", "mesh terms", "mesh", "mesh headings", "keywords_plus")
#: the readers whose records are the rows of a table
_TABLE_FORMATS: Final = ("csv", "scopus-csv")
#: ASReview's names of its label column (``asreview.data.base_reader``; its exports since 2.x
#: write ``asreview_label``, 1.x ``included``), and "notes": read from
#: the RIS note ASReview writes its label in when the file has no such column
_ASREVIEW_LABEL_COLUMNS: Final = frozenset(
    (
        "asreview label",
        "included",
        "label",
        "final included",
        "label included",
        "included label",
        "included final",
        "included flag",
        "include",
        "notes",
        "n1",
    )
)
_NOTE_TAG: Final = "N1"
_SPREADSHEET_SUFFIXES: Final = (".xlsx", ".xlsm", ".xls", ".xlsb", ".ods")
#: a ZIP container (xlsx, ods) or an OLE compound file (xls)
_SPREADSHEET_MAGIC: Final = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
#: how many rows an error message names
_NAMED: Final = 10
#: what the model reads of a record (``truncated`` notices naming these are refused)
_MODEL_FIELDS: Final = ("title (", "abstract (", "keywords (", "keyword (")


def _norm(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).casefold()


def _extra(record: RecordTrace, column: str) -> list[str] | None:
    extras = record.extras or {}
    if column in extras:
        return list(extras[column])
    wanted = _norm(column)
    for key, values in extras.items():
        if _norm(key) == wanted:
            return list(values)
    return None


def _where(position: int, record: RecordTrace) -> str:
    lines = (
        f"line {record.first_line}"
        if record.first_line == record.last_line
        else f"lines {record.first_line}-{record.last_line}"
    )
    return f"record {position} ({lines})"


def _named(items: list[str]) -> str:
    more = f" and {len(items) - _NAMED:,} more" if len(items) > _NAMED else ""
    return "; ".join(items[:_NAMED]) + more


def _refuse_spreadsheet(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
    except OSError:
        return  # the importer reports a missing or unreadable file
    if path.suffix.casefold() in _SPREADSHEET_SUFFIXES or head.startswith(_SPREADSHEET_MAGIC):
        raise InputError(
            f"{path} is a spreadsheet workbook, which simulate does not read: save the sheet "
            "as CSV (UTF-8) or export the records as RIS, and pass that file",
            code="unsupported",
        )


def _check_rows(path: Path, trace: ImportTrace) -> None:
    """A table's reader skipped a row, stopped early or read the rest of the file as one row
    (a quote never closed): refuse (positions would shift, or records be lost)."""
    kinds = ("skipped", "unterminated")
    notices = [n for n in trace.notices if n.kind in kinds]
    notices += [n for r in trace.records for n in r.notices if n.kind in kinds]
    if not notices:
        return
    first = min(notices, key=lambda n: n.line or 0)
    position = sum(1 for r in trace.records if r.first_line < (first.line or 0))
    raise InputError(
        f"{path}, line {first.line}: {first.message} — simulate needs every row of the file "
        f"as one record (this would be record {position}); fix or remove that row",
        code="unreadable_row",
    )


def _values(records: list[RecordTrace], column: str) -> tuple[list[list[str]], bool]:
    """Each record's cells of ``column`` (ASReview's RIS note when the file has no such
    column and the column is one of ASReview's label names), and whether they are RIS notes."""
    cells = [_extra(r, column) for r in records]
    if any(c is not None for c in cells):
        return [c or [] for c in cells], _norm(column) == _norm(_NOTE_TAG)
    if _norm(column) in _ASREVIEW_LABEL_COLUMNS:
        notes = [_extra(r, _NOTE_TAG) for r in records]
        if any(c is not None for c in notes):
            return [c or [] for c in notes], True
    raise InputError(
        f"no label column {column!r} (labels are read from a CSV/TSV column that is not one of "
        f"the record fields, or from ASReview's RIS note with --labels N1); {_others(records)}",
        code="no_label_column",
    )


def _others(records: list[RecordTrace]) -> str:
    """The file's columns (or RIS tags) that are not record fields, as a refusal names them."""
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record.extras or {}))
        if len(names) > 40:
            break
    if not names:
        return "the file has no column besides the record fields"
    shown = ", ".join(repr(n) for n in list(names)[:40])
    return f"the file's other columns: {shown}"


def _label(values: list[str], notes: bool) -> Label | str:
    """The label of one record's cells; the offending text when it is not a label. RIS notes
    (``notes``) hold ASReview's label as ASReview reads it: the first note holding
    ``ASReview_relevant`` / ``_irrelevant`` / ``_not_seen`` anywhere; a record whose notes
    hold none has no label, as in ASReview."""
    from litdesk.core.screening import asreview_note_label, parse_label

    if notes:
        found = asreview_note_label(values)
        if found != "absent":
            return found
        if not any(parse_label(v) != "unknown" for v in values):
            return None  # free-text notes only (or none): not labelled
    if len(values) <= 1:
        got = parse_label(values[0] if values else "")
        return values[0] if got == "unknown" else got
    # several values (RIS notes, or a column name repeated in the header): the label words,
    # ASReview's own notes first (other notes are free text)
    marked = [v for v in values if v.strip().casefold().startswith("asreview_")] or values
    labels = {got for got in map(parse_label, marked) if got != "unknown"}
    if len(labels) == 1:
        return labels.pop()
    return " | ".join(values)  # none, or labels that disagree


def _labels(path: Path, records: list[RecordTrace], column: str) -> list[bool]:
    labels: list[bool] = []
    bad: list[str] = []
    unlabelled: list[str] = []
    cells, notes = _values(records, column)
    for position, (record, values) in enumerate(zip(records, cells, strict=True)):
        got = _label(values, notes)
        if isinstance(got, str):
            bad.append(f"{_where(position, record)}: {got[:60]!r}")
        elif got is None:
            unlabelled.append(_where(position, record))
        else:
            labels.append(got)
    if bad:
        raise InputError(
            f"{path}: not a label value in column {column!r}: {plural(len(bad), 'label')} "
            f"(1/0, 1.0/0.0, true/false, yes/no, y/n, included/excluded, include/exclude): "
            + _named(bad),
            code="bad_label",
        )
    if unlabelled:
        raise InputError(
            f"{path}: no label in column {column!r} for {plural(len(unlabelled), 'record')} (empty, "
            f"-1, NA or ASReview_not_seen{', or notes without an ASReview label' if notes else ''}"
            "); a simulation replays a fully labelled set, so label or remove them: "
            + _named(unlabelled),
            code="unlabelled",
        )
    if not any(labels):
        raise InputError(f"no included record in column {column!r} of {path}", code="no_included")
    return labels


def _screening_record(record: RecordTrace) -> ScreeningRecord:
    from litdesk.core.screening import ScreeningRecord

    terms = list(record.paper.keywords)
    wanted = {_norm(c) for c in _TERM_COLUMNS}
    for key, values in (record.extras or {}).items():
        if _norm(key) in wanted:
            for value in values:
                terms += [t for t in value.split(";") if t.strip()]
    return ScreeningRecord.of(record.paper.title, record.paper.abstract, terms)


def _check_cut(path: Path, records: list[RecordTrace]) -> None:
    """A record whose title, abstract or keywords litdesk's bounds cut (a title over 4,000
    characters, an abstract over 200,000: 25 times the longest of the fixture sets, so a quote
    left open or a full text in the abstract column) would be simulated on other text than the
    file's: refuse, naming it."""
    cut = [
        f"{_where(position, r)}: {n.message.split(':', 1)[-1].split(';', 1)[0].strip()}"
        for position, r in enumerate(records)
        for n in r.notices
        if n.kind == "truncated" and any(f in n.message for f in _MODEL_FIELDS)
    ]
    if cut:
        raise InputError(
            f"{path}: {plural(len(cut), 'record')} with a field longer than litdesk reads, "
            "which simulate would read cut at that bound (a quote left open, or a full text "
            "in the abstract column?): " + _named(cut),
            code="too_large",
        )


def read_labelled(path: Path, column: str) -> tuple[list[ScreeningRecord], list[bool]]:
    """Records (title, abstract, keywords + MeSH) and labels of a labelled file, one per data
    row in the file's order, read with litdesk's own format readers."""
    from litdesk.services.imports import import_files

    _refuse_spreadsheet(path)
    batch = import_files([path])
    if batch.refused:
        refused = batch.refused[0]
        if refused.exit_code == NotFoundError.exit_code:
            raise NotFoundError(f"{path}: {refused.message}", code=refused.code)
        hint = ""
        if refused.code == "unsupported" and path.suffix.casefold() in (".csv", ".tsv", ".tab"):
            hint = (
                "; a CSV/TSV needs a header row naming a title column (title, primary title, "
                "article title, ...), a DOI or a PMID column"
            )
        raise InputError(f"{path}: {refused.message}{hint}", code=refused.code)
    trace = batch.imports[0]
    records = list(trace.records)
    if not records:
        raise InputError(f"{path} holds no records", code="no_records")
    if trace.source.format in _TABLE_FORMATS:
        _check_rows(path, trace)
    _check_cut(path, records)
    labels = _labels(path, records, column)
    return [_screening_record(r) for r in records], labels
