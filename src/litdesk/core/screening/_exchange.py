"""Screening decisions made in other tools, read from their files.

Three shapes, all CSV/TSV text (the delimiter is read from the header line):

* ``csv`` — any table with a record identifier column (``record_id``/``id`` = the record's
  id in the Study, ``doi``, ``pmid``, ``title``), a decision column (``decision``,
  ``verdict``, ``label``, ``included`` …: include/exclude/maybe and the usual synonyms, 1/0,
  yes/no) and optionally ``reason`` and ``note`` columns;
* ``asreview`` — ASReview LAB's exported dataset: its ``included`` column (1 included,
  0 excluded, empty or -1 not labelled); ASReview's own ``record_id`` is its row number, not
  the Study's id, so records are matched by DOI, PMID or title;
* ``asreview`` from RIS — ASReview LAB's RIS export: each record's ``N1`` label
  ``ASReview_relevant`` / ``ASReview_irrelevant`` (``ASReview_not_seen``: no decision), the
  first note holding one anywhere deciding, as ASReview reads it;
  litdesk's own RIS export carries the same labels and, read first, its
  ``litdesk screening STAGE: VERDICT; reason: …`` note (maybe and the reason) and its
  ``litdesk record: KEY`` note (the record's key in the Study);
* ``rayyan`` — Rayyan's export, CSV or RIS: per record, the ``notes`` cell (RIS: ``N1``)
  holds ``RAYYAN-INCLUSION: {"Alice"=>"Included", "Bob"=>"Excluded"}`` (one verdict per
  reviewer) and optionally ``RAYYAN-EXCLUSION-REASONS: a,b``, ``RAYYAN-LABELS: x,y`` and
  ``USER-NOTES: {"Alice"=>["…"]}`` (:mod:`._rayyan`); one decision per reviewer and record,
  the reasons on exclusions, the labels and the reviewer's own notes in its note. A record
  whose notes cannot be read, or that has no identifier, is a problem reported with its
  line beside the decisions of the others (``problems``), not a failure of the file.

Every row keeps its identifiers in order of precedence (id, DOI, PMID, title), normalised
(DOIs lower-case without a resolver prefix, PMIDs digits, titles as dedup's comparison key),
so that the caller matches each to a record of the Study. Rows without a decision are counted
as skipped, not guessed. Time is linear in the text; the text, the rows and each cell are
bounded (``MAX_BYTES``, ``MAX_ROWS``, ``MAX_CELL``); a problem with the whole file is a
:class:`DecisionsFileError` naming the line, a row that cannot be read (a decision word that
is none, no identifier) is listed in ``problems`` with its line beside the others' decisions.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from litdesk.core.dedup import normalize_title
from litdesk.core.records import normalize_doi, normalize_pmid
from litdesk.core.words import plural

from ._decisions import Verdict
from ._errors import DecisionsFileError
from ._labels import asreview_note_label
from ._rayyan import RayyanNotesError, parse_rayyan_notes, rayyan_ris_records

__all__ = [
    "DECISION_FORMATS",
    "DecisionsFileError",
    "DecisionsFormat",
    "IdKind",
    "ImportedDecision",
    "ImportedDecisions",
    "parse_decisions",
    "parse_verdict",
]

DecisionsFormat = Literal["csv", "asreview", "rayyan"]
DECISION_FORMATS: tuple[DecisionsFormat, ...] = ("csv", "asreview", "rayyan")
IdKind = Literal["id", "doi", "pmid", "title"]

MAX_BYTES = 64 * 1024 * 1024
MAX_ROWS = 500_000
MAX_CELL = 100_000

_VERDICT_WORDS: dict[str, Verdict] = {}
for _words, _verdict in (
    ("include included in yes y 1 true relevant eligible accept accepted", "include"),
    ("exclude excluded out no n 0 false irrelevant ineligible reject rejected", "exclude"),
    ("maybe unsure uncertain undecided ? possibly", "maybe"),
):
    for _w in _words.split():
        _VERDICT_WORDS[_w] = _verdict  # type: ignore[assignment]

_ID_COLUMNS: dict[IdKind, tuple[str, ...]] = {
    "id": ("record_id", "id", "litdesk_id", "record"),
    "doi": ("doi",),
    "pmid": ("pmid", "pubmed_id", "pubmed"),
    "title": ("title", "primary_title", "ti"),
}
#: ASReview's names of its label column, in its readers' order (``asreview.data.base``:
#: its exports since 2.x write ``asreview_label``, 1.x ``included``)
_ASREVIEW_LABEL_COLUMNS = (
    "asreview_label", "included", "label", "final_included", "label_included",
    "included_label", "included_final", "included_flag", "include",
)  # fmt: skip
_DECISION_COLUMNS = (
    "decision", "verdict", "screening_decision", "label", "label_included", "included",
    "include", "status",
)  # fmt: skip
_REASON_COLUMNS = ("reason", "exclusion_reason", "reasons", "exclusion_reasons")
#: ASReview 2.x exports the screener's note as ``asreview_note``
_NOTE_COLUMNS = ("note", "notes", "comment", "comments", "asreview_note")


@dataclass(frozen=True, slots=True)
class ImportedDecision:
    """One decision read from a file: its line, the record's identifiers (precedence order),
    the verdict and, where given, the reviewer (Rayyan), reason, note and labels."""

    line: int
    identifiers: tuple[tuple[IdKind, str], ...]
    verdict: Verdict
    reason: str = ""
    note: str = ""
    reviewer: str = ""
    labels: tuple[str, ...] = ()
    #: the record's title as the file gives it (the identifier is its normalised form):
    #: what a message about the row quotes
    title: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "line": self.line,
            "identifiers": [[k, v] for k, v in self.identifiers],
            "title": self.title,
            "verdict": self.verdict,
            "reason": self.reason,
            "note": self.note,
            "reviewer": self.reviewer,
            "labels": list(self.labels),
        }


@dataclass(frozen=True, slots=True)
class ImportedDecisions:
    """What a file held: its shape, the decisions, the lines skipped (no decision) and the
    records that could not be read (line, what is wrong: Rayyan's notes)."""

    format: DecisionsFormat
    decisions: tuple[ImportedDecision, ...]
    skipped: tuple[int, ...]
    problems: tuple[tuple[int, str], ...] = ()

    def reviewers(self) -> list[str]:
        return list(dict.fromkeys(d.reviewer for d in self.decisions if d.reviewer))

    def to_dict(self) -> dict[str, object]:
        return {
            "format": self.format,
            "decisions": [d.to_dict() for d in self.decisions],
            "skipped": list(self.skipped),
            "problems": [{"line": line, "reason": why} for line, why in self.problems],
            "reviewers": self.reviewers(),
        }


def parse_verdict(value: str, *, line: int = 0) -> Verdict | None:
    """A decision cell as a verdict; ``None`` for an empty cell (or ASReview's -1)."""
    word = value.strip().casefold()
    if word in ("", "-1", "na", "n/a", "none"):
        return None
    verdict = _VERDICT_WORDS.get(word)
    if verdict is None:
        raise DecisionsFileError(
            f"line {line}: decision {value[:40]!r} is not include, exclude or maybe",
            code="bad_verdict",
        )
    return verdict


def _norm_header(name: str) -> str:
    return "_".join(name.strip().lstrip("\ufeff").casefold().replace("-", " ").split())


def _rows(text: str) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    if len(text) > MAX_BYTES:
        raise DecisionsFileError(
            f"the file is larger than {MAX_BYTES // 1024 // 1024} MB", code="too_large"
        )
    text = text.removeprefix("\ufeff")
    # the header line, ended by LF, CRLF or a CR alone (a file saved with CR line ends)
    first = text[: min((i for i in (text.find("\n"), text.find("\r")) if i >= 0), default=None)]
    delimiter = max(",;\t", key=first.count) if first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise DecisionsFileError("the file is empty", code="empty") from None
    except csv.Error as exc:
        raise DecisionsFileError(f"line 1: {exc}", code="bad_csv") from None

    def body() -> Iterator[tuple[int, list[str]]]:
        count = 0
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:  # e.g. a cell over csv's own field limit
                raise DecisionsFileError(f"line {reader.line_num}: {exc}", code="bad_csv") from None
            if not any(c.strip() for c in row):
                continue
            count += 1
            if count > MAX_ROWS:
                raise DecisionsFileError(f"more than {MAX_ROWS:,} rows", code="too_many_rows")
            if any(len(c) > MAX_CELL for c in row):
                raise DecisionsFileError(
                    f"line {reader.line_num}: a cell is longer than {MAX_CELL:,} characters",
                    code="cell_too_long",
                )
            yield reader.line_num, row

    return header, body()


def _column(header: Sequence[str], names: Sequence[str]) -> int | None:
    normalised = [_norm_header(h) for h in header]
    for name in names:
        if name in normalised:
            return normalised.index(name)
    return None


def _cell(row: Sequence[str], index: int | None) -> str:
    return row[index].strip() if index is not None and index < len(row) else ""


def _identifiers(
    row: Sequence[str], columns: dict[IdKind, int | None]
) -> tuple[tuple[IdKind, str], ...]:
    out: list[tuple[IdKind, str]] = []
    for kind, index in columns.items():
        raw = _cell(row, index)
        if not raw:
            continue
        value: str | None
        if kind == "doi":
            value = normalize_doi(raw)
        elif kind == "pmid":
            value = normalize_pmid(raw)
        elif kind == "title":
            value = normalize_title(raw) or None
        else:
            value = raw
        if value:
            out.append((kind, value))
    return tuple(out)


def _no_identifier(row: Sequence[str], columns: dict[IdKind, int | None]) -> str:
    given = [f"{k} {_cell(row, i)[:60]!r}" for k, i in columns.items() if _cell(row, i)]
    detail = f" ({', '.join(given)} not recognised)" if given else ""
    return f"no record identifier{detail}"


def parse_decisions(
    text: str, *, format: DecisionsFormat | Literal["auto"] = "auto"
) -> ImportedDecisions:
    """Read the decisions of a CSV, ASReview or Rayyan file (``auto``: Rayyan when a notes
    cell holds ``RAYYAN-INCLUSION``, ASReview when the only decision column is ``included``
    beside ASReview's columns, else the plain CSV; a RIS text: ASReview's labels or
    litdesk's own notes where its records carry them, else Rayyan's RIS export)."""
    if _is_ris(text):
        if format not in ("auto", "rayyan", "asreview"):
            raise DecisionsFileError(
                f"this is a RIS file, not {format}: a RIS export holds decisions as Rayyan's "
                "RAYYAN-INCLUSION notes or ASReview's labels (litdesk's own RIS export too)",
                code="ris_not_rayyan",
            )
        return _ris(text, format)
    header, rows = _rows(text)
    kinds: tuple[IdKind, ...] = ("id", "doi", "pmid", "title")
    if format == "auto":
        format = _detect(header, text)
    if format == "asreview":
        kinds = ("doi", "pmid", "title")
    columns: dict[IdKind, int | None] = {k: _column(header, _ID_COLUMNS[k]) for k in kinds}
    if all(v is None for v in columns.values()):
        raise DecisionsFileError(
            "no record identifier column (record_id, doi, pmid or title)", code="no_identifier"
        )
    if format == "rayyan":
        return _rayyan(header, rows, columns)
    names = _ASREVIEW_LABEL_COLUMNS if format == "asreview" else _DECISION_COLUMNS
    decision = _column(header, names)
    if decision is None:
        raise DecisionsFileError(
            "no decision column (" + ", ".join(names) + ")",
            code="no_decision_column",
        )
    reason = _column(header, _REASON_COLUMNS)
    note = _column(header, _NOTE_COLUMNS)
    out: list[ImportedDecision] = []
    skipped: list[int] = []
    problems: list[tuple[int, str]] = []
    first_code = ""
    for line, row in rows:
        # a row that cannot be read is listed beside the others' decisions, as Rayyan's are:
        # one unknown word ("Pending") or a row without an identifier no longer sinks the file
        try:
            verdict = parse_verdict(_cell(row, decision), line=line)
        except DecisionsFileError as exc:
            problems.append((line, exc.message.removeprefix(f"line {line}: ")))
            first_code = first_code or exc.code
            continue
        if verdict is None:
            skipped.append(line)
            continue
        ids = _identifiers(row, columns)
        if not ids:
            problems.append((line, _no_identifier(row, columns)))
            first_code = first_code or "no_identifier"
            continue
        given = _cell(row, columns.get("title"))
        out.append(
            ImportedDecision(line, ids, verdict, _cell(row, reason), _cell(row, note), title=given)
        )
    if problems and not out and not skipped:  # no row could be read: the file is wrong
        line, why = problems[0]
        more = (
            f" (and {plural(len(problems) - 1, 'other row')} as well)" if len(problems) > 1 else ""
        )
        raise DecisionsFileError(f"line {line}: {why}{more}", code=first_code)
    return ImportedDecisions(format, tuple(out), tuple(skipped), tuple(problems))


def _detect(header: Sequence[str], text: str) -> DecisionsFormat:
    if "RAYYAN-INCLUSION" in text and _column(header, ("notes", "note")) is not None:
        return "rayyan"
    names = {_norm_header(h) for h in header}
    if "asreview_label" in names:  # ASReview 2.x's export
        return "asreview"
    if (
        "included" in names
        and not names & (set(_DECISION_COLUMNS) - {"included"})
        and (
            names & {"asreview_ranking", "asreview_prior", "asreview_label", "asreview_time"}
            or "record_id" in names
        )
    ):
        return "asreview"
    return "csv"


def _is_ris(text: str) -> bool:
    """Whether the text starts with a RIS record (``TY  -``; a BOM and blank lines before)."""
    return text[:4096].lstrip("\ufeff \t\r\n").startswith("TY  -")


def _rayyan_record(
    line: int,
    ids: tuple[tuple[IdKind, str], ...],
    notes_text: str,
    out: list[ImportedDecision],
    skipped: list[int],
    problems: list[tuple[int, str]],
    title: str = "",
) -> None:
    """One record's decisions, or its line as skipped (no decision) or as a problem."""
    try:
        notes = parse_rayyan_notes(notes_text)
    except RayyanNotesError as exc:
        problems.append((line, f"Rayyan's notes cannot be read: {exc.message}"))
        return
    for _, why in notes.unreadable:
        problems.append((line, f"Rayyan's notes cannot be read: {why}"))
    if not notes.inclusion:
        if not notes.unreadable:
            skipped.append(line)
        return
    if not ids:
        problems.append((line, "no record identifier (DOI, PMID or title)"))
        return
    reasons = ", ".join(notes.reasons)
    for reviewer, verdict in notes.inclusion:
        parts = list(notes.notes_of(reviewer))
        if notes.labels:
            parts.append("Rayyan labels: " + ", ".join(notes.labels))
        out.append(
            ImportedDecision(
                line,
                ids,
                verdict,
                reasons if verdict == "exclude" else "",
                " · ".join(parts),
                reviewer,
                notes.labels,
                title,
            )  # fmt: skip
        )


def _rayyan(
    header: Sequence[str],
    rows: Iterator[tuple[int, list[str]]],
    columns: dict[IdKind, int | None],
) -> ImportedDecisions:
    notes = _column(header, ("notes", "note"))
    if notes is None:
        raise DecisionsFileError("Rayyan's export has a notes column", code="no_notes_column")
    columns = {k: v for k, v in columns.items() if k != "id"}  # Rayyan's key is its own
    out: list[ImportedDecision] = []
    skipped: list[int] = []
    problems: list[tuple[int, str]] = []
    for line, row in rows:
        _rayyan_record(line, _identifiers(row, columns), _cell(row, notes), out, skipped,
                       problems, _cell(row, columns.get("title")))  # fmt: skip
    return ImportedDecisions("rayyan", tuple(out), tuple(skipped), tuple(problems))


def _ris_identifiers(tags: dict[str, list[str]]) -> tuple[tuple[IdKind, str], ...]:
    """A RIS record's identifiers: DOI (``DO``, else a doi.org ``UR``), PMID (a numeric
    ``AN``, as PubMed writes it), title (``TI``, else ``T1``)."""
    out: list[tuple[IdKind, str]] = []
    doi = next(
        (d for v in tags.get("DO", []) + [u for u in tags.get("UR", []) if "doi.org/" in u]
         if (d := normalize_doi(v))),
        None,
    )  # fmt: skip
    if doi:
        out.append(("doi", doi))
    pmid = next(
        (p for v in tags.get("AN", []) if v.strip().isdigit() and (p := normalize_pmid(v))),
        None,
    )
    if pmid:
        out.append(("pmid", pmid))
    title = next(
        (t for v in tags.get("TI", []) + tags.get("T1", []) if (t := normalize_title(v))), None
    )
    if title:
        out.append(("title", title))
    return tuple(out)


#: the verdicts litdesk's own note writes (its statuses, ``undecided`` …, are none)
_OWN_VERDICTS: dict[str, Verdict] = {"include": "include", "exclude": "exclude", "maybe": "maybe"}
_LITDESK_LABEL = "litdesk screening "
_LITDESK_RECORD = "litdesk record:"


def _labelled(notes: Sequence[str]) -> tuple[bool, Verdict | None, str, str]:
    """A RIS record's ASReview label and litdesk's own notes: whether it carries a label,
    the verdict (``None``: labelled without a decision), the reason and litdesk's record key.
    litdesk's note, when there, is read before ASReview's label (it holds maybe and the
    reason); a verdict word that is not a decision (``undecided``, ``conflict`` …) is none."""
    labelled = False
    verdict: Verdict | None = None
    reason = key = ""
    mine: tuple[Verdict | None, str] | None = None
    for note in (part.strip() for value in notes for part in value.split("\n")):
        low = note.casefold()
        if low.startswith(_LITDESK_LABEL) and ":" in note[len(_LITDESK_LABEL) :]:
            said = note[len(_LITDESK_LABEL) :].split(":", 1)[1]
            word, _, rest = said.partition(";")
            found = _OWN_VERDICTS.get(word.strip().casefold())
            given = rest.strip()
            mine = (
                found,
                given[len("reason:") :].strip() if given.startswith("reason:") else "",
            )
        elif low.startswith(_LITDESK_RECORD):
            key = note[len(_LITDESK_RECORD) :].strip()
    if mine is not None:
        labelled, (verdict, reason) = True, mine
    else:  # ASReview's label as ASReview reads it: the first note holding one, anywhere in it
        label = asreview_note_label(notes)
        if label != "absent":
            labelled = True
            verdict = None if label is None else ("include" if label else "exclude")
    return labelled, verdict, reason, key


def _ris(text: str, format: DecisionsFormat | Literal["auto"]) -> ImportedDecisions:
    """A RIS export's decisions, record by record: Rayyan's ``N1`` notes (several joined)
    read as its CSV's; ASReview's labels and litdesk's own notes (:func:`_labelled`). The
    file is ``asreview`` when its decisions are labels, else ``rayyan`` (also when it holds
    none: Rayyan's export of records nobody decided yet)."""
    if len(text) > MAX_BYTES:
        raise DecisionsFileError(
            f"the file is larger than {MAX_BYTES // 1024 // 1024} MB", code="too_large"
        )
    out: list[ImportedDecision] = []
    skipped: list[int] = []
    problems: list[tuple[int, str]] = []
    rayyan = labels = False
    for count, (line, tags) in enumerate(rayyan_ris_records(text.removeprefix("\ufeff")), 1):
        if count > MAX_ROWS:
            raise DecisionsFileError(f"more than {MAX_ROWS:,} records", code="too_many_rows")
        notes = " | ".join(tags.get("N1", []))
        if len(notes) > MAX_CELL:
            problems.append((line, f"the notes are longer than {MAX_CELL:,} characters"))
            continue
        ids = _ris_identifiers(tags)
        given = next((t.strip() for t in tags.get("TI", []) + tags.get("T1", []) if t.strip()), "")
        if format != "asreview" and "RAYYAN-INCLUSION" in notes:
            rayyan = True
            _rayyan_record(line, ids, notes, out, skipped, problems, given)
            continue
        labelled, verdict, reason, key = (
            _labelled(tags.get("N1", [])) if format != "rayyan" else (False, None, "", "")
        )
        labels = labels or labelled
        if key:
            ids = (("id", key), *ids)
        if verdict is None:
            skipped.append(line)
        elif not ids:
            problems.append((line, "no record identifier (DOI, PMID or title)"))
        else:
            out.append(
                ImportedDecision(
                    line, ids, verdict, reason if verdict == "exclude" else "", title=given
                )
            )
    shape: DecisionsFormat = "asreview" if labels and not rayyan else "rayyan"
    return ImportedDecisions(shape, tuple(out), tuple(skipped), tuple(problems))
