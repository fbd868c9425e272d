"""A Study's deduplication run as a job of the store's queue (kind ``dedup.study``): the
handler any worker of any process runs and the run as stored for the review page (the
job as the page shows it: :class:`DedupJob` in :mod:`._views`).

The job belongs to the Study (its owner is ``study:<id>``), so the queue itself keeps one
active run per Study — a second start, from any account or process, gets the running one
— and every member of the Study sees it. The run's id is its job's id: the run, its
summary in the Study's history and its review data are written in one transaction under
the Study's lock, at most once per id, so a job claimed again after its worker died
records nothing twice (a finished run is found and only its result is given back).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from litdesk._errors import InputError, LitdeskError
from litdesk.adapters.store import (
    DedupPairRow,
    DedupRunRow,
    Store,
    StoredDataInvalid,
    get_dedup_run,
    study_records,
)
from litdesk.services.jobs import Handler, JobContext
from litdesk.services.workspace import now_iso

from ._history import record_report, study_decisions, study_history
from ._pairs import review_pairs
from ._records import import_path, sync_records
from ._service import DedupReport, Reviewer
from ._working_set import group_assignments, study_report

__all__ = [
    "DEDUP_KIND",
    "MAX_IMPORTS",
    "MAX_QUEUE",
    "DedupRun",
    "StoredPair",
    "dedup_handler",
    "run_study",
    "study_owner",
]

#: The job kind of a Study's deduplication run.
DEDUP_KIND: Final = "dedup.study"
#: The review queue keeps at most this many pairs of a run (the rest counted).
MAX_QUEUE: Final = 2_000
#: Import traces of one Study read by a run.
MAX_IMPORTS: Final = 10_000
#: Seconds between two progress reports while imports are read (cancel checks are free).
_REPORT_EVERY: Final = 0.25


def study_owner(study_id: str) -> str:
    """The owner of a Study's jobs in the queue (account ids never look like this)."""
    return f"study:{study_id}"


class _Stop(LitdeskError):
    """The handler must stop: a cancel, the server stopping, or the job taken over."""


@dataclass(frozen=True, slots=True)
class StoredPair:
    """One pair of a stored run's review queue (``no``: its place in the queue)."""

    no: int
    keys: tuple[str, str]  # the two records' digests, sorted: the history's key
    digests: tuple[str, str]  # the digests of the body's ``a`` and ``b``
    body: dict[str, Any]

    @property
    def mergeable(self) -> bool:
        return bool(self.body["mergeable"])


@dataclass(frozen=True, slots=True)
class DedupRun:
    """A finished run as stored: counts, what it read, the review queue, and the records
    the Study's history names (to describe decisions that carry no description)."""

    id: str
    study_id: str
    executed_at: str
    version: str
    counts: dict[str, int]
    queue: list[StoredPair]
    queued: int
    files: list[dict[str, Any]]
    repeats: list[str]
    refs: dict[str, dict[str, Any]]
    #: issue 30: "version of" links (both records kept), as the page shows them
    versions: list[dict[str, Any]] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        """What is stored of the run beside its queue."""
        return {
            "executed_at": self.executed_at,
            "version": self.version,
            "counts": self.counts,
            "queued": self.queued,
            "files": self.files,
            "repeats": self.repeats,
            "refs": self.refs,
            "versions": self.versions,
        }

    def pair_rows(self) -> list[DedupPairRow]:
        """The queue as stored, one row per pair."""
        return [
            DedupPairRow(p.no, p.keys, {"digests": list(p.digests), "body": p.body})
            for p in self.queue
        ]

    @staticmethod
    def stored_pair(row: DedupPairRow, run_id: str) -> StoredPair:
        try:
            d = row.data["digests"]
            return StoredPair(row.no, row.keys, (str(d[0]), str(d[1])), dict(row.data["body"]))
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            msg = f"pair {row.no} of dedup run {run_id} is malformed: {exc}"
            raise StoredDataInvalid(msg) from None

    @classmethod
    def from_row(cls, row: DedupRunRow, pairs: list[DedupPairRow] | None = None) -> DedupRun:
        """The stored run (``pairs``: its queue, when read; else the queue is empty)."""
        d = row.data
        try:
            return cls(
                row.id, row.study_id, str(d["executed_at"]), str(d["version"]),
                {str(k): int(v) for k, v in d["counts"].items()},
                [cls.stored_pair(p, row.id) for p in pairs or ()], int(d["queued"]),
                [dict(f) for f in d["files"]], [str(r) for r in d["repeats"]],
                {str(k): dict(v) for k, v in d["refs"].items()},
                [dict(v) for v in d.get("versions", ())],
            )  # fmt: skip
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoredDataInvalid(f"dedup run {row.id} is malformed: {exc}") from None

    @property
    def result(self) -> dict[str, Any]:
        """The job's result: small (the review data is in the store's run)."""
        return {"run": self.id, "counts": self.counts, "recorded": True}


class _Run:
    """One attempt of a run's job: deduplicate the Study's records, record."""

    def __init__(self, store: Store, ctx: JobContext, step_s: float) -> None:
        self.store = store
        self.ctx = ctx
        self.step_s = step_s
        self.study_id = str(ctx.params["study_id"])
        self.by = str(ctx.params.get("by") or "local")[:200]
        self._reported = 0.0

    def _report(self, done: int, total: int, stage: str, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._reported >= _REPORT_EVERY:
            self._reported = now
            if not self.ctx.progress(done, total, stage):
                raise _Stop("stopped")
        elif self.ctx.should_stop:
            raise _Stop("stopped")

    def run(self) -> dict[str, Any] | None:
        with self.store.read() as conn:
            found = get_dedup_run(conn, self.ctx.job.id)
        if found is not None:  # an earlier attempt recorded it; its worker died after
            return DedupRun.from_row(found).result
        try:
            return self._run()
        except _Stop:
            return None  # the runner records why (cancelled, handed back, taken over)

    def _run(self) -> dict[str, Any]:
        with self.store.read() as conn:
            total = sum(s.kind != "paper" for s in study_records.study_sources(conn, self.study_id))
        self._report(0, total, "reading", force=True)
        if self.step_s:  # test only (a setting): a run slow enough to watch or kill
            for n in range(1, total + 1):  # a wait per source (import or run) read
                self.ctx.pause(self.step_s)  # (ends early when the server stops)
                self._report(n, total, "reading", force=n == total)
        run = run_study(
            self.store, self.study_id, run_id=self.ctx.job.id, by=self.by,
            stage=lambda stage: self._report(1, 1, stage, force=True),
        )[1]  # fmt: skip
        return run.result


def run_study(
    store: Store,
    study_id: str,
    *,
    run_id: str,
    by: str,
    reviewer: Reviewer | None = None,
    auto_only: bool = False,
    merge_corrections: bool | None = None,
    stage: Callable[[str], None] | None = None,
) -> tuple[DedupReport, DedupRun, int]:
    """Deduplicate the Study's records — everything its sources identified, reconciled
    first — with the reviewer decisions in force (``reviewer`` asked about the pairs still
    waiting), then record in one transaction the new decisions, the run (id ``run_id``, its
    review queue) and each record's group in the working set. Returns the report, the run
    and how many decisions were new."""
    sync_records(store, study_id)
    with store.read() as conn:
        rows = study_records.list_records(conn, study_id)
        sources = study_records.study_sources(conn, study_id)
        have = {r.source_id for r in rows}
        repeats = [  # a file imported again identifies nothing new
            import_path(conn, s.id) for s in sources if s.kind == "import" and s.id not in have
        ]
    if not rows:
        raise InputError(
            "this Study has no imported records or search results yet: import export files "
            "or add a search first",
            code="nothing_imported",
        )
    if stage is not None:
        stage("deduplicating")
    entries = study_history(store, study_id)
    in_force = study_decisions(store, study_id)
    report = study_report(
        rows, decisions=in_force, reviewer=reviewer, auto_only=auto_only,
        merge_corrections=merge_corrections,
    )  # fmt: skip
    if stage is not None:
        stage("recording")
    named = {d for e in entries if e.kind == "decision" for d in (e.a_digest, e.b_digest)}
    counts: dict[str, int] = {}
    labels: dict[str, tuple[str, str]] = {}
    for r in rows:
        counts[r.source_id] = counts.get(r.source_id, 0) + 1
        labels.setdefault(r.source_id, (str(r.data.get("label") or r.source_id), r.source_kind))
    files = [
        {"file": label, "format": kind, "records": counts[sid]}
        for sid, (label, kind) in labels.items()
    ]
    run = _build_run(run_id, study_id, report, files, repeats, named)
    new = record_report(
        store, study_id, report, before=in_force, owner=by,
        run_id=run.id, run_data=run.document(), run_pairs=run.pair_rows(),
        groups=group_assignments(report, rows),
    )  # fmt: skip
    return report, run, new


def _build_run(
    run_id: str,
    study_id: str,
    report: DedupReport,
    files: list[dict[str, Any]],
    repeats: list[str],
    named: set[str | None],
) -> DedupRun:
    queue, queued = review_pairs(report, limit=MAX_QUEUE)
    counts = dict(report.result.counts)
    counts["single_records"] = sum(len(g) == 1 for g in report.result.groups)
    counts["uncertain"] = queued
    wanted = {d for d in named if d} | {d for pair in report.decisions for d in pair}
    refs: dict[str, dict[str, Any]] = {}
    for ref, paper in zip(report.refs, report.papers, strict=True):
        if ref.digest in wanted:
            refs.setdefault(ref.digest, ref.to_dict() | {"title": paper.title[:300]})
    pairs = [StoredPair(rp.no, rp.keys, (rp.a.digest, rp.b.digest), rp.body) for rp in queue]
    versions = [  # issue 30: both records kept, the primary one screened
        {
            "relation": v.relation,
            "reason": v.reason,
            "primary": report.refs[v.primary].to_dict()
            | {"title": report.papers[v.primary].title[:300]},
            "version": report.refs[v.version].to_dict()
            | {"title": report.papers[v.version].title[:300]},
        }
        for v in report.result.versions[:MAX_QUEUE]
    ]
    return DedupRun(
        run_id, study_id, now_iso(), report.result.version, counts, pairs, queued, files,
        repeats, refs, versions,
    )  # fmt: skip


def dedup_handler(store: Store, *, step_seconds: float = 0.0) -> Handler:
    """The handler of :data:`DEDUP_KIND` jobs over ``store`` (``step_seconds``: the
    test-only wait per source of the Study; see ``Settings.dedup_test_step_seconds``)."""

    def run(ctx: JobContext) -> dict[str, Any] | None:
        return _Run(store, ctx, step_seconds).run()

    return run
