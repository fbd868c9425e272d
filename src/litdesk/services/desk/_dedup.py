"""Deduplication of a Study's imported records on the desk: a run as a job of the store's
queue (progress, cancellable, resumed by another worker when its own died; see
:mod:`._dedup_run`), the review queue of uncertain pairs, reviewer decisions into the
Study's deduplication history (the same store entries ``litdesk dedup --study`` writes and
reuses) and their withdrawal.

A run reads every import trace stored with the Study (a file imported twice counts
once), deduplicates all their records together with the reviewer decisions in force,
and records a run summary in the history and the run's review data in the store. Every
state is in the store, so any worker of a team server shows the Study's running job and
latest run (the newest finished run, whoever started it) to the Study's members and
accepts the decisions of its editors. Decisions made afterwards are shown over the run's
queue at once; counts and groups follow them on the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk.adapters.store import (
    DedupEntry,
    add_dedup_entry,
    dedup_run_pair,
    dedup_run_pair_no,
    latest_dedup_run,
    list_dedup_run_pairs,
    repo,
)
from litdesk.services.dedup import in_force, study_history, undo_decision
from litdesk.services.jobs import Handler, JobNotFound, JobRunner, Jobs, JobView
from litdesk.services.workspace import now_iso

from ._dedup_run import (
    DEDUP_KIND,
    MAX_QUEUE,
    DedupJob,
    DedupRun,
    StoredPair,
    dedup_handler,
    study_owner,
)
from ._desk import Desk

__all__ = [
    "DEDUP_KIND",
    "MAX_HISTORY",
    "MAX_QUEUE",
    "DedupDesk",
    "DedupJob",
    "DedupReviewView",
    "DedupRun",
    "dedup_handlers",
]

#: The history list shows the newest entries, at most this many (the total counted).
MAX_HISTORY: Final = 500


def dedup_handlers(desk: Desk) -> dict[str, Handler]:
    """The deduplication job handlers by kind over the desk's store, for a job runner."""
    step = desk.settings.dedup_test_step_seconds
    return {DEDUP_KIND: dedup_handler(desk.store, step_seconds=step)}


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
    """The deduplication use cases of one desk's owner over the store's job queue
    (``wake``: tell this process's job runner that a job was queued)."""

    def __init__(self, desk: Desk, jobs: Jobs, *, wake: Callable[[], None] | None = None) -> None:
        self.desk = desk
        self.jobs = jobs
        self._wake = wake

    # --- runs as jobs ----------------------------------------------------------------

    def _submit(self, study: str) -> DedupJob:
        """The Study's active job, or a new queued one (one per Study, kept by the store)."""
        row = self.desk.workspace.study(study, "write")
        params = {"study_id": row.id, "study_name": row.name, "by": self.desk.owner}
        view = self.jobs.submit(DEDUP_KIND, params, owner=study_owner(row.id), reuse_active=True)
        return DedupJob.from_view(view)

    def prepare(self, study: str) -> DedupJob:
        """A new job for ``study``, queued but no runner told (run it here with
        :meth:`work`); while one is active for the Study, that one is returned instead."""
        return self._submit(study)

    def start(self, study: str) -> DedupJob:
        """Queue deduplicating ``study`` for the job runners of every process; watch it with
        :meth:`job`. While a run of the Study is active, that run is returned."""
        job = self._submit(study)
        if self._wake is not None:
            self._wake()
        return job

    def _find(self, job_id: str) -> JobView:
        """The job, if its Study is one the owner may read (else not found)."""
        try:
            view = self.jobs.find(job_id, kind=DEDUP_KIND)
            self.desk.workspace.study(str(view.params.get("study_id", "")))
        except NotFoundError:
            raise JobNotFound(
                f"no deduplication job {job_id[:40]!r}", code="job_not_found"
            ) from None
        return view

    def job(self, job_id: str) -> DedupJob:
        return DedupJob.from_view(self._find(job_id))

    def cancel(self, job_id: str) -> DedupJob:
        """Ask a running job to stop at its next step (nothing is recorded then); a queued
        one is cancelled at once. Only the Study's editors may."""
        view = self._find(job_id)
        self.desk.workspace.study(str(view.params["study_id"]), "write")
        if view.active:
            view = self.jobs.cancel(job_id, owner=view.owner)
        return DedupJob.from_view(view)

    def work(self, job_id: str) -> DedupJob:
        """Run queued deduplication jobs in this thread until ``job_id`` has ended or none
        can be claimed here (tests, benchmarks; a server's runner does this itself)."""
        runner = JobRunner(
            self.jobs, dedup_handlers(self.desk), lease_s=self.desk.settings.jobs_lease_seconds
        )
        while self.job(job_id).state == "running" and runner.run_once():
            pass
        return self.job(job_id)

    # --- the review page -----------------------------------------------------------

    def _latest_run(self, study_id: str) -> DedupRun | None:
        """The Study's latest run with its review queue."""
        with self.desk.store.read() as conn:
            row = latest_dedup_run(conn, study_id)
            if row is None:
                return None
            return DedupRun.from_row(row, list_dedup_run_pairs(conn, row.id))

    def _running(self, study_id: str) -> DedupJob | None:
        views = self.jobs.list(owner=study_owner(study_id), kinds=[DEDUP_KIND], limit=1)
        return DedupJob.from_view(views[0]) if views and views[0].active else None

    def review(self, study: str) -> DedupReviewView:
        """The Study's latest run with every queued pair's decision in force, the running
        job (if any) and the history, newest first."""
        row = self.desk.workspace.study(study)
        entries = study_history(self.desk.store, row.id)
        live = in_force(entries)
        run = self._latest_run(row.id)
        pairs: list[dict[str, Any]] = []
        if run is not None:
            for rp in run.queue:
                current = live.get(rp.keys)
                pairs.append(
                    rp.body
                    | {
                        "state": current.decision if current else "waiting",
                        "decision_seq": current.seq if current else None,
                    }
                )
        running = self._running(row.id)
        return DedupReviewView(
            {"id": row.id, "name": row.name},
            self._run_dict(run, pairs) if run else None,
            running.to_dict() if running else None,
            pairs,
            self._history(entries, run, live),
            len(entries),
        )

    @staticmethod
    def _run_dict(run: DedupRun, pairs: list[dict[str, Any]]) -> dict[str, Any]:
        waiting = sum(p["state"] == "waiting" for p in pairs)
        return {
            "id": run.id,
            "executed_at": run.executed_at,
            "version": run.version,
            "counts": run.counts,
            "files": run.files,
            "repeats_skipped": run.repeats,
            "queue_shown": len(run.queue),
            "queue_total": run.queued,
            "waiting": waiting,
            "decided": len(pairs) - waiting,
            "versions": run.versions,  # issue 30
        }

    def _history(
        self,
        entries: list[DedupEntry],
        run: DedupRun | None,
        forced: dict[tuple[str, str], DedupEntry],
    ) -> list[dict[str, Any]]:
        refs: dict[str, dict[str, Any]] = {}
        if run is not None:
            refs.update(run.refs)
            for rp in run.queue:
                refs.setdefault(rp.digests[0], rp.body["a"])
                refs.setdefault(rp.digests[1], rp.body["b"])
        live = {e.seq for e in forced.values()}
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

    def _pair(self, study_id: str, run_id: str, no: int) -> StoredPair:
        with self.desk.store.read() as conn:
            latest = latest_dedup_run(conn, study_id)
            if latest is None or latest.id != run_id:
                raise RefusedError(
                    "this review belongs to an earlier run; reload the page", code="stale_run"
                )
            row = dedup_run_pair(conn, run_id, no)
        if row is None:
            raise NotFoundError(f"no pair {no} in this run's review queue", code="pair_not_found")
        return DedupRun.stored_pair(row, run_id)

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
        current = in_force(study_history(store, row.id)).get(rp.keys)
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
        entry = undo_decision(store, row.id, seq, by=self.desk.owner, via="web")
        pair = None
        with store.read() as conn:
            latest = latest_dedup_run(conn, row.id)
            if latest is not None:
                keys = (entry.a_digest or "", entry.b_digest or "")
                pair = dedup_run_pair_no(conn, latest.id, keys)
        return {"seq": entry.seq, "undoes": seq, "pair": pair, "state": "waiting"}
