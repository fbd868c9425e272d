"""Deduplication of a Study's imported records on the desk: a run as a job (progress,
cancellable), the review queue of uncertain pairs, reviewer decisions into the Study's
deduplication history (the same store entries ``litdesk dedup --study`` writes and
reuses) and their withdrawal.

A run reads every import trace stored with the Study (a file imported twice counts
once), deduplicates all their records together with the reviewer decisions in force,
and records a run summary in the history. Decisions made afterwards are shown over the
run's queue at once; counts and groups follow them on the next run.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from litdesk._errors import InputError, LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.store import DedupEntry, add_dedup_entry, repo
from litdesk.core.imports import ImportTrace
from litdesk.services.dedup import (
    DedupReport,
    dedup_batch,
    record_report,
    study_decisions,
    study_history,
    undo_decision,
)
from litdesk.services.imports import ImportBatch
from litdesk.services.workspace import now_iso, read_import

from ._dedup_pairs import ReviewPair, review_pairs
from ._desk import Desk

__all__ = [
    "MAX_HISTORY",
    "MAX_QUEUE",
    "DedupDesk",
    "DedupJob",
    "DedupReviewView",
    "DedupRun",
]

#: The review queue shows at most this many pairs of a run (the rest counted).
MAX_QUEUE: Final = 2_000
#: The history list shows the newest entries, at most this many (the total counted).
MAX_HISTORY: Final = 500
#: Finished jobs kept in memory (the newest); a Study's latest run is always kept.
JOBS_KEPT: Final = 50
#: Import traces of one Study read by a run.
MAX_IMPORTS: Final = 10_000
JobState = Literal["running", "done", "cancelled", "failed"]
log = logging.getLogger("litdesk.dedup")


class DedupCancelled(LitdeskError):
    """The run was cancelled (nothing was recorded)."""

    default_code = "cancelled"


@dataclass(slots=True)
class DedupRun:
    """A finished run: the report, the review queue built from it, what it read."""

    id: str
    study_id: str
    executed_at: str
    report: DedupReport
    queue: list[ReviewPair]
    queued: int
    files: list[dict[str, Any]]
    repeats: list[str]

    def counts(self) -> dict[str, int]:
        c = dict(self.report.result.counts)
        c["single_records"] = sum(len(g) == 1 for g in self.report.result.groups)
        c["uncertain"] = self.queued
        return c


@dataclass(slots=True)
class DedupJob:
    """A run in progress or finished (``stage``: reading, deduplicating, recording, done)."""

    id: str
    study_id: str
    study_name: str
    started_at: str
    state: JobState = "running"
    stage: str = "starting"
    done: int = 0
    total: int = 0
    message: str | None = None
    run: DedupRun | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "study_id": self.study_id,
            "study_name": self.study_name,
            "started_at": self.started_at,
            "state": self.state,
            "stage": self.stage,
            "done": self.done,
            "total": self.total,
            "message": self.message,
            "cancel_requested": self.cancel.is_set(),
            "counts": self.run.counts() if self.run else None,
        }


@dataclass(frozen=True, slots=True)
class DedupReviewView:
    """The page's data: the Study, its latest run (counts, queue with each pair's current
    decision), the running job if any, and the history (newest first)."""

    study: dict[str, Any]
    run: dict[str, Any] | None
    job: dict[str, Any] | None
    pairs: list[dict[str, Any]]
    history: list[dict[str, Any]]
    history_total: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "run": self.run,
            "job": self.job,
            "pairs": self.pairs,
            "history": self.history,
            "history_total": self.history_total,
        }


def _describe(rec: dict[str, Any] | None, digest: str | None) -> str:
    if rec:
        where = f"{rec.get('file', '?')}#{rec.get('index', '?')}"
        title = str(rec.get("title") or "(no title)")[:120]
        return f"{title} ({where})"
    return f"record {(digest or '')[7:19]}…"


class DedupDesk:
    """The deduplication use cases of one desk (jobs kept in memory for its lifetime)."""

    def __init__(self, desk: Desk, *, shared: DedupDesk | None = None) -> None:
        """``shared``: the app's service whose jobs and latest runs this one sees, acting
        as ``desk``'s owner (a team account; its role in each Study is checked)."""
        self.desk = desk
        self._lock: threading.Lock = shared._lock if shared else threading.Lock()
        self._jobs: OrderedDict[str, DedupJob] = shared._jobs if shared else OrderedDict()
        self._latest: dict[str, DedupRun] = shared._latest if shared else {}

    # --- runs as jobs ----------------------------------------------------------------

    def _open_job(self, study: str) -> tuple[DedupJob, bool]:
        """The Study's running job, or a new one (``True``) registered under the lock."""
        row = self.desk.workspace.study(study, "write")
        with self._lock:
            for job in self._jobs.values():
                if job.study_id == row.id and job.state == "running":
                    return job, False
            job = DedupJob(f"dd-{uuid.uuid4().hex[:16]}", row.id, row.name, now_iso())
            self._jobs[job.id] = job
            finished = [j for j in self._jobs.values() if j.state != "running"]
            for old in finished[: max(0, len(finished) - JOBS_KEPT)]:
                self._jobs.pop(old.id, None)
        return job, True

    def prepare(self, study: str) -> DedupJob:
        """A new job for ``study``, not started (run it with :meth:`work`); while one is
        running for the Study, that one is returned instead."""
        return self._open_job(study)[0]

    def start(self, study: str) -> DedupJob:
        """Start deduplicating ``study`` in a background thread; watch it with :meth:`job`.
        While a run of the Study is going on, that run is returned (one at a time)."""
        job, new = self._open_job(study)
        if new:
            job.stage = "queued"
            threading.Thread(target=self.work, args=(job,), daemon=True).start()
        return job

    def job(self, job_id: str) -> DedupJob:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"no deduplication job {job_id[:40]!r}", code="job_not_found")
        try:
            self.desk.workspace.study(job.study_id)  # the owner may read that Study
        except NotFoundError:
            raise NotFoundError(
                f"no deduplication job {job_id[:40]!r}", code="job_not_found"
            ) from None
        return job

    def cancel(self, job_id: str) -> DedupJob:
        """Ask a running job to stop at its next step (nothing is recorded then)."""
        job = self.job(job_id)
        self.desk.workspace.study(job.study_id, "write")
        if job.state == "running":
            job.cancel.set()
        return job

    def _check(self, job: DedupJob) -> None:
        if job.cancel.is_set():
            raise DedupCancelled("the run was cancelled; nothing was recorded")

    def work(self, job: DedupJob) -> DedupJob:
        """Run the job here: read the Study's imports, deduplicate, record the run."""
        try:
            job.run = self._run(job)
            job.state, job.stage = "done", "done"
            with self._lock:
                self._latest[job.study_id] = job.run
        except DedupCancelled as exc:
            job.state, job.message = "cancelled", exc.message
        except LitdeskError as exc:
            job.state, job.message = "failed", exc.message
        except Exception:  # a bug must not leave the job "running" for ever
            log.exception("deduplication job %s of Study %s failed", job.id, job.study_id)
            job.state, job.message = "failed", "an internal error; see the server log"
        return job

    def _traces(self, job: DedupJob) -> tuple[list[ImportTrace], list[str]]:
        store = self.desk.store
        with store.read() as conn:
            rows = repo.list_documents(
                conn, "imports", study_id=job.study_id, limit=MAX_IMPORTS + 1
            )
        if len(rows) > MAX_IMPORTS:
            raise InputError(
                f"this Study has more than {MAX_IMPORTS:,} imports; deduplicate its files with "
                "litdesk dedup FILE… --study instead",
                code="too_many_imports",
            )
        job.stage, job.total = "reading", len(rows)
        traces: list[ImportTrace] = []
        repeats: list[str] = []
        seen: set[str] = set()
        for row in rows:
            self._check(job)
            trace, _ids = read_import(row.json())
            if trace.source.sha256 in seen:
                repeats.append(trace.source.path)
            else:
                seen.add(trace.source.sha256)
                traces.append(trace)
            job.done += 1
        return traces, repeats

    def _run(self, job: DedupJob) -> DedupRun:
        traces, repeats = self._traces(job)
        if not traces:
            raise InputError(
                "this Study has no imported records yet: import export files first",
                code="nothing_imported",
            )
        self._check(job)
        job.stage = "deduplicating"
        store = self.desk.store
        in_force = study_decisions(store, job.study_id)
        report = dedup_batch(ImportBatch(tuple(traces), ()), decisions=in_force)
        queue, queued = review_pairs(report, limit=MAX_QUEUE)
        self._check(job)
        job.stage = "recording"
        record_report(store, job.study_id, report, before=in_force, owner=self.desk.owner)
        files = [
            {"file": t.source.path, "format": t.source.format, "records": len(t.records)}
            for t in traces
        ]
        return DedupRun(job.id, job.study_id, now_iso(), report, queue, queued, files, repeats)

    # --- the review page -----------------------------------------------------------

    def _latest_run(self, study_id: str) -> DedupRun | None:
        with self._lock:
            return self._latest.get(study_id)

    def review(self, study: str) -> DedupReviewView:
        """The Study's latest run with every queued pair's decision in force, the running
        job (if any) and the history, newest first."""
        row = self.desk.workspace.study(study)
        entries = study_history(self.desk.store, row.id)
        in_force = self._in_force(entries)
        run = self._latest_run(row.id)
        pairs: list[dict[str, Any]] = []
        if run is not None:
            for rp in run.queue:
                current = in_force.get(rp.keys)
                pairs.append(
                    rp.body
                    | {
                        "state": current.decision if current else "waiting",
                        "decision_seq": current.seq if current else None,
                    }
                )
        with self._lock:
            running = next(
                (j for j in self._jobs.values() if j.study_id == row.id and j.state == "running"),
                None,
            )
        return DedupReviewView(
            {"id": row.id, "name": row.name},
            self._run_dict(run, pairs) if run else None,
            running.to_dict() if running else None,
            pairs,
            self._history(entries, run, in_force),
            len(entries),
        )

    @staticmethod
    def _run_dict(run: DedupRun, pairs: list[dict[str, Any]]) -> dict[str, Any]:
        waiting = sum(p["state"] == "waiting" for p in pairs)
        return {
            "id": run.id,
            "executed_at": run.executed_at,
            "version": run.report.result.version,
            "counts": run.counts(),
            "files": run.files,
            "repeats_skipped": run.repeats,
            "queue_shown": len(run.queue),
            "queue_total": run.queued,
            "waiting": waiting,
            "decided": len(pairs) - waiting,
        }

    @staticmethod
    def _in_force(entries: list[DedupEntry]) -> dict[tuple[str, str], DedupEntry]:
        """The decision entry in force per pair (newest wins; ``undone`` withdraws)."""
        current: dict[tuple[str, str], DedupEntry] = {}
        for e in entries:
            if e.kind != "decision" or not e.a_digest or not e.b_digest:
                continue
            key = (e.a_digest, e.b_digest)
            if e.decision == "undone":
                current.pop(key, None)
            elif e.decision in ("merge", "distinct"):
                current[key] = e
        return current

    def _history(
        self,
        entries: list[DedupEntry],
        run: DedupRun | None,
        in_force: dict[tuple[str, str], DedupEntry],
    ) -> list[dict[str, Any]]:
        refs: dict[str, dict[str, Any]] = {}
        if run is not None:
            for ref, paper in zip(run.report.refs, run.report.papers, strict=True):
                refs.setdefault(ref.digest, ref.to_dict() | {"title": paper.title[:300]})
        live = {e.seq for e in in_force.values()}
        by_seq = {e.seq: e for e in entries}
        out: list[dict[str, Any]] = []
        for e in reversed(entries[-MAX_HISTORY:]):
            who = str(e.data.get("by") or e.data.get("owner") or "—")[:80]
            if e.kind == "decision":
                a = e.data.get("a") if isinstance(e.data.get("a"), dict) else None
                b = e.data.get("b") if isinstance(e.data.get("b"), dict) else None
                a = a or refs.get(e.a_digest or "")
                b = b or refs.get(e.b_digest or "")
                pair = f"{_describe(a, e.a_digest)} ~ {_describe(b, e.b_digest)}"
                if e.decision == "undone":
                    target = e.data.get("undoes")
                    undone = by_seq.get(target) if isinstance(target, int) else None
                    what = f"withdrew #{e.data.get('undoes')}"
                    if undone is not None:
                        what += f" ({undone.decision})"
                    what += f": {pair}"
                else:
                    verb = "merged" if e.decision == "merge" else "kept separate"
                    what = f"{verb}: {pair}"
            else:
                counts = e.data.get("counts", {})
                what = (
                    f"run: {e.data.get('records')} records → {counts.get('groups')} studies, "
                    f"{counts.get('review_pairs')} uncertain pairs"
                )
            out.append(
                {
                    "seq": e.seq,
                    "kind": e.kind,
                    "decision": e.decision,
                    "created_at": e.created_at,
                    "by": who,
                    "via": str(e.data.get("via") or ("cli" if e.kind == "decision" else ""))[:20],
                    "what": what,
                    "in_force": e.seq in live,
                }
            )
        return out

    # --- decisions -------------------------------------------------------------------

    def _pair(self, study_id: str, run_id: str, no: int) -> ReviewPair:
        run = self._latest_run(study_id)
        if run is None or run.id != run_id:
            raise RefusedError(
                "this review belongs to an earlier run; reload the page", code="stale_run"
            )
        if not 0 <= no < len(run.queue):
            raise NotFoundError(f"no pair {no} in this run's review queue", code="pair_not_found")
        return run.queue[no]

    def decide(self, study: str, run_id: str, no: int, decision: str) -> dict[str, Any]:
        """Record the reviewer's ``merge`` or ``distinct`` for pair ``no`` of the run: one
        history entry (who, when, both records). A pair with conflicting identifiers is
        never merged. Repeating the decision in force records nothing new."""
        if decision not in ("merge", "distinct"):
            raise InputError("a decision is merge or distinct", code="decision")
        row = self.desk.workspace.study(study, "write")
        rp = self._pair(row.id, run_id, no)
        if decision == "merge" and not rp.mergeable:
            raise RefusedError(
                f"this pair is never merged: {rp.body['not_mergeable']}",
                code="conflicting_identifiers",
            )
        store = self.desk.store
        current = self._in_force(study_history(store, row.id)).get(rp.keys)
        if current is not None and current.decision == decision:
            return {"seq": current.seq, "pair": no, "state": decision, "new": False}
        data = {"by": self.desk.owner, "via": "web", "a": rp.body["a"], "b": rp.body["b"]}
        with store.write() as conn:
            study_id = repo.get_study(conn, row.id, account=self.desk.owner).id
            seq = add_dedup_entry(
                conn, study_id, "decision", data, now_iso(),
                a_digest=rp.keys[0], b_digest=rp.keys[1], decision=decision,
            )  # fmt: skip
        return {"seq": seq, "pair": no, "state": decision, "new": True}

    def undo(self, study: str, seq: int) -> dict[str, Any]:
        """Withdraw decision ``seq`` (an ``undone`` entry; nothing erased). Only a decision
        still in force can be withdrawn."""
        row = self.desk.workspace.study(study, "write")
        store = self.desk.store
        entries = study_history(store, row.id)
        live = {e.seq: key for key, e in self._in_force(entries).items()}
        if seq not in live:
            known = any(e.seq == seq and e.kind == "decision" for e in entries)
            if known:
                raise RefusedError(
                    f"decision #{seq} is no longer in force (withdrawn or replaced)",
                    code="not_in_force",
                )
            raise NotFoundError(f"no decision #{seq} in this Study's history", code="no_decision")
        entry = undo_decision(store, row.id, seq, by=self.desk.owner, via="web")
        pair = None
        run = self._latest_run(row.id)
        if run is not None:
            pair = next((rp.no for rp in run.queue if rp.keys == live[seq]), None)
        return {"seq": entry.seq, "undoes": seq, "pair": pair, "state": "waiting"}
