"""The deduplication use cases as one call each (what ``litdesk dedup`` and
``litdesk dedup-history`` run): read the files, apply earlier reviewer decisions (a
decisions file and a Study's history), ask the reviewer, write the decisions back,
record the run in the Study's history and write the merged records."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.files import check_output, write_output
from litdesk.adapters.formats import EXPORT_FORMATS, dumps
from litdesk.adapters.store import DedupEntry, Store
from litdesk.core.dedup import PairExplanation, explain_pair

from ._history import record_report, study_decisions, study_history, undo_decision
from ._service import DedupReport, RecordRef, Reviewer, dedup_files, load_decisions, save_decisions

__all__ = [
    "DedupExplanation",
    "DedupOutcome",
    "DedupRequest",
    "dedup_history",
    "explain_records",
    "resolve_record",
    "run_dedup",
]


@dataclass(frozen=True, slots=True)
class DedupRequest:
    """What to deduplicate and what to do with the result (``litdesk dedup``'s options)."""

    files: tuple[str, ...]
    format: str | None = None
    auto_only: bool = False
    decisions_file: str | None = None  # JSON reviewer decisions: read before, written after
    study: str | None = None  # keep decisions in this Study's history and reuse them
    out: str | None = None  # write one merged record per study here …
    to: str = "ris"  # … in this format
    merge_corrections: bool = False
    force: bool = False  # replace an existing ``out`` file (never a folder, FIFO or device)
    versions_out: str | None = None  # write the "version of" links here as CSV


@dataclass(slots=True)
class DedupOutcome:
    """A run's report plus what the workflow wrote."""

    report: DedupReport
    study: str | None = None
    new_decisions: int = 0
    written: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = self.report.to_dict()
        out["study"] = self.study
        out["new_decisions"] = self.new_decisions
        out["written"] = self.written
        return out


def run_dedup(
    request: DedupRequest,
    *,
    reviewer: Reviewer | None = None,
    store: Store | None = None,
    owner: str = "local",
) -> DedupOutcome:
    """Deduplicate ``request.files`` with stored and file decisions, record the history.

    Reads the Study's decisions in force (one read), runs the deduplication (asking
    ``reviewer`` about each pair still waiting, unless ``auto_only``), then writes in one
    transaction the new decisions and the run summary; the decisions file and the
    merged records are written last. ``store``: the app's (needed with a Study; left
    open). ``owner`` is recorded with the run.
    """
    if request.to.strip().lower() not in EXPORT_FORMATS:
        raise InputError(
            f"cannot write {request.to[:40]!r} (choose one of {', '.join(EXPORT_FORMATS)})",
            code="unsupported",
        )
    for path in (request.out, request.versions_out):
        if path is not None:
            check_output(path, force=request.force)  # a bad -o fails before the work
    if request.study and store is None:
        raise InputError("a Study's deduplication needs the app's store", code="no_store")
    earlier = load_decisions(request.decisions_file) if request.decisions_file else {}
    in_force = study_decisions(store, request.study, owner=owner) if store and request.study else {}
    earlier = {**in_force, **earlier}
    report = dedup_files(
        list(request.files),
        format=request.format,
        auto_only=request.auto_only,
        decisions=earlier,
        reviewer=reviewer if not request.auto_only else None,
        merge_corrections=request.merge_corrections,
    )
    new = 0
    if store is not None and request.study:
        new = record_report(store, request.study, report, before=in_force, owner=owner)
    if request.decisions_file and report.decisions != earlier:
        save_decisions(request.decisions_file, report.decisions)
    written = None
    if request.out is not None:
        write_output(request.out, dumps(report.merged_papers(), request.to), force=request.force)
        written = request.out
    if request.versions_out is not None:
        write_output(request.versions_out, report.versions_csv(), force=request.force)
    return DedupOutcome(report, request.study, new, written)


def dedup_history(
    study: str,
    *,
    store: Store,
    undo: int | None = None,
    owner: str = "local",
) -> list[DedupEntry]:
    """A Study's deduplication history (in the app's ``store``; a name resolves among the
    owner's Studies first), after withdrawing decision ``undo`` if given."""
    if undo is not None:
        undo_decision(store, study, undo, owner=owner)
    return study_history(store, study, owner=owner)


_REF = re.compile(r"^(?P<file>.+)#(?P<index>\d+)$")


def resolve_record(refs: Sequence[RecordRef], ref: str) -> int:
    """The position of the record named ``ref``: its own id in its file (``id_0000012``),
    ``FILE#N`` (0-based position N in the file named FILE, by name or path), or ``N``
    (0-based position among all records read)."""
    text = ref.strip()
    by_id = [i for i, r in enumerate(refs) if r.source_id == text]
    if len(by_id) == 1:
        return by_id[0]
    if len(by_id) > 1:
        raise InputError(
            f"record id {text[:60]!r} occurs in {len(by_id)} records: name it as FILE#N",
            code="ambiguous_ref",
        )
    m = _REF.match(text)
    if m:
        name, index = m.group("file"), int(m.group("index"))
        hits = [
            i
            for i, r in enumerate(refs)
            if r.index == index and (r.file == name or Path(r.file).name == name)
        ]
        if len(hits) == 1:
            return hits[0]
    elif text.isdigit() and int(text) < len(refs):
        return int(text)
    raise NotFoundError(
        f"no record {text[:60]!r} (give its id, FILE#N or N; {len(refs)} records read)",
        code="record_not_found",
    )


@dataclass(frozen=True, slots=True)
class DedupExplanation:
    """Why two records did or did not merge, with both records described."""

    a: RecordRef
    b: RecordRef
    papers: tuple[dict[str, Any], dict[str, Any]]
    explanation: PairExplanation
    refs: tuple[RecordRef, ...]

    def to_dict(self) -> dict[str, Any]:
        out = self.explanation.to_dict()
        out["a"] = {**self.a.to_dict(), "paper": self.papers[0]}
        out["b"] = {**self.b.to_dict(), "paper": self.papers[1]}
        out["via"] = [self.refs[i].to_dict() for i in self.explanation.via]
        for c in out["conflicts"]:
            c["members"] = [self.refs[i].to_dict() for i in c["members"]]
        return out


def explain_records(request: DedupRequest, a: str, b: str) -> DedupExplanation:
    """Run the deduplication of ``request.files`` (automatic decisions and the decisions
    file, nothing written) and explain the pair of records ``a`` and ``b``."""
    earlier = load_decisions(request.decisions_file) if request.decisions_file else {}
    report = dedup_files(
        list(request.files),
        format=request.format,
        auto_only=request.auto_only,
        decisions=earlier,
        merge_corrections=request.merge_corrections,
    )
    ia, ib = resolve_record(report.refs, a), resolve_record(report.refs, b)
    if ia == ib:
        raise InputError("--explain needs two different records", code="same_record")
    why = explain_pair(
        report.papers, report.result, ia, ib, merge_corrections=request.merge_corrections
    )
    first, second = min(ia, ib), max(ia, ib)
    return DedupExplanation(
        report.refs[first],
        report.refs[second],
        (report.papers[first].to_dict(), report.papers[second].to_dict()),
        why,
        tuple(report.refs),
    )
