"""The deduplication area (``app.dedup``): every deduplication use case of both faces, one
method each, over the app's store and job queue.

* ``run`` — ``litdesk dedup FILE…``: read the files, apply earlier reviewer decisions (a
  decisions file and, with ``study``, the Study's history), ask the reviewer, record the
  new decisions and the run in the Study's history (one transaction), write the decisions
  file and the merged records;
* ``explain`` — ``litdesk dedup --explain A B``: why two records did or did not merge;
* ``history`` / ``undo`` — ``litdesk dedup-history`` and the web's withdrawal: a Study's
  history, a decision withdrawn (an ``undone`` entry; nothing erased);
* ``start`` / ``job`` / ``cancel`` — the web's run of a Study's records (imports, searches) as a job
  of the store's queue (progress, cancellable, resumed by another worker when its own
  died; see :mod:`._job`), its handler given by ``handlers()``;
* ``review`` / ``decide`` — the review queue of uncertain pairs and the reviewer's
  decisions into the Study's history (the same entries ``run`` with a Study reuses).

Every state is in the store, so any worker of a team server shows a Study's running job
and latest run (the newest finished run, whoever started it) to the Study's members and
accepts the decisions of its editors. Access: a Study is read by its members and changed
by its editors (``local``, the single-user owner, owns every Study).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.files import check_output, write_output
from litdesk.adapters.formats import dumps
from litdesk.adapters.store import (
    Store,
    add_dedup_entry,
    dedup_run_pair,
    dedup_run_pair_no,
    latest_dedup_run,
    list_dedup_entries,
    list_dedup_run_pairs,
    repo,
)
from litdesk.core.dedup import Decision, explain_pair
from litdesk.services.jobs import Handler, JobNotFound, JobRunner, Jobs, JobView, new_job_id
from litdesk.services.workspace import now_iso

from ._history import in_force, record_report, undo_decision
from ._job import DEDUP_KIND, DedupRun, StoredPair, dedup_handler, run_study, study_owner
from ._requests import DecideRequest, DedupRequest, ExplainRequest
from ._review import history_rows, queue_rows, resolve_record, run_row
from ._service import Reviewer, dedup_files, load_decisions, save_decisions
from ._views import (
    DecisionView,
    DedupExplanation,
    DedupJob,
    DedupOutcome,
    HistoryView,
    ReviewView,
    UndoView,
)
from ._working_set import keep_working_sets, regroup

__all__ = ["DedupArea"]

_Need = Literal["read", "write"]


class DedupArea:
    """The deduplication use cases over the app's ``store`` and job queue ``jobs``
    (``wake``: tell this process's job runner that a job was queued)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        jobs: Jobs,
        *,
        wake: Callable[[], None] | None = None,
    ) -> None:
        self._settings = settings
        self._store = store
        self._jobs = jobs
        self._wake = wake
        keep_working_sets(store)  # writes keep the Studies' records in step; reads never write

    def handlers(self) -> dict[str, Handler]:
        """The job handlers this area runs, by kind (the app registers them)."""
        step = self._settings.dedup_test_step_seconds
        return {DEDUP_KIND: dedup_handler(self._store, step_seconds=step)}

    # --- access ------------------------------------------------------------------------

    def _study(self, ref: str, owner: str, need: _Need = "read") -> repo.StudyRow:
        """The Study ``ref`` (id, or name as ``owner`` sees them) if ``owner`` may ``need``
        it (else not found, or refused when its role is too low)."""
        with self._store.read() as conn:
            row, _ = repo.study_with_role(conn, ref, account=owner, need=need)
        return row

    # --- files: ``litdesk dedup`` --------------------------------------------------------

    def run(
        self, request: DedupRequest, *, owner: str, reviewer: Reviewer | None = None
    ) -> DedupOutcome:
        """Deduplicate ``request.files`` with stored and file decisions, record the history.

        Reads the Study's decisions in force (one read), runs the deduplication (asking
        ``reviewer`` about each pair still waiting, unless ``auto_only``), then writes in
        one transaction the new decisions and the run summary (``owner`` recorded with
        it); the decisions file and the merged records are written last."""
        for path in (request.out, request.versions_out):
            if path is not None:
                check_output(path, force=request.force)  # a bad -o fails before the work
        if not request.files:
            return self._run_study(request, owner=owner, reviewer=reviewer)
        study_id = self._study(request.study, owner, "write").id if request.study else None
        earlier = load_decisions(request.decisions_file) if request.decisions_file else {}
        stored: dict[tuple[str, str], Decision] = {}
        if study_id is not None:
            stored = self._decisions(study_id)
        earlier = {**stored, **earlier}
        report = dedup_files(
            list(request.files),
            format=request.format,
            auto_only=request.auto_only,
            decisions=earlier,
            reviewer=reviewer if not request.auto_only else None,
            merge_corrections=request.merge_corrections,
        )
        new = 0
        if study_id is not None:
            new = record_report(self._store, study_id, report, before=stored, owner=owner)
            regroup(self._store, study_id)  # the decisions apply to the Study's working set
        if request.decisions_file and report.decisions != earlier:
            save_decisions(request.decisions_file, report.decisions)
        written = None
        if request.out is not None:
            body = dumps(report.merged_papers(), request.to)
            write_output(request.out, body, force=request.force)
            written = request.out
        if request.versions_out is not None:
            write_output(request.versions_out, report.versions_csv(), force=request.force)
        return DedupOutcome(report, request.study, new, written)

    def _run_study(
        self, request: DedupRequest, *, owner: str, reviewer: Reviewer | None
    ) -> DedupOutcome:
        """``litdesk dedup --study NAME``: the Study's records deduplicated into its working
        set (a run like the web's, its review queue stored); ``out`` gets the working set."""
        row = self._study(request.study or "", owner, "write")
        report, _run, new = run_study(
            self._store, row.id, run_id=new_job_id(), by=owner,
            reviewer=reviewer if not request.auto_only else None,
            auto_only=request.auto_only, merge_corrections=request.merge_corrections,
        )  # fmt: skip
        written = None
        if request.out is not None:
            body = dumps(report.merged_papers(), request.to)
            write_output(request.out, body, force=request.force)
            written = request.out
        if request.versions_out is not None:
            write_output(request.versions_out, report.versions_csv(), force=request.force)
        return DedupOutcome(report, request.study, new, written)

    def _decisions(self, study_id: str) -> dict[tuple[str, str], Decision]:
        """The reviewer decisions in force in the Study's history."""
        with self._store.read() as conn:
            entries = list_dedup_entries(conn, study_id)
        return {
            key: "merge" if entry.decision == "merge" else "distinct"
            for key, entry in in_force(entries).items()
        }

    def explain(self, request: ExplainRequest, *, owner: str) -> DedupExplanation:
        """Run the deduplication of ``request.files`` (automatic decisions and the
        decisions file; nothing written, nothing of ``owner``'s read) and explain why
        records ``a`` and ``b`` did or did not merge."""
        earlier = load_decisions(request.decisions_file) if request.decisions_file else {}
        report = dedup_files(
            list(request.files),
            format=request.format,
            auto_only=request.auto_only,
            decisions=earlier,
            merge_corrections=request.merge_corrections,
        )
        ia, ib = resolve_record(report.refs, request.a), resolve_record(report.refs, request.b)
        if ia == ib:
            raise InputError("--explain needs two different records", code="same_record")
        why = explain_pair(
            report.papers, report.result, ia, ib, merge_corrections=request.merge_corrections
        )
        first, second = min(ia, ib), max(ia, ib)
        papers = (report.papers[first], report.papers[second])
        return DedupExplanation(
            report.refs[first], report.refs[second], papers, why, tuple(report.refs)
        )

    # --- a Study's history -------------------------------------------------------------

    def history(self, study: str, *, owner: str) -> HistoryView:
        """Every entry of the Study's deduplication history, oldest first."""
        row = self._study(study, owner)
        with self._store.read() as conn:
            entries = list_dedup_entries(conn, row.id)
        return HistoryView(study, tuple(entries))

    def undo(
        self, study: str, seq: int, *, owner: str, via: Literal["web", "cli"] = "web"
    ) -> UndoView:
        """Withdraw decision ``seq`` (an ``undone`` entry saying who and from which face;
        nothing erased). Only a decision still in force can be withdrawn, by an editor."""
        row = self._study(study, owner, "write")
        entry = undo_decision(self._store, row.id, seq, by=owner, via=via, owner=owner)
        regroup(self._store, row.id)  # the working set without the withdrawn decision
        pair = None
        with self._store.read() as conn:
            latest = latest_dedup_run(conn, row.id)
            if latest is not None:
                keys = (entry.a_digest or "", entry.b_digest or "")
                pair = dedup_run_pair_no(conn, latest.id, keys)
        return UndoView(entry.seq, seq, pair)

    # --- a Study's records: runs as jobs --------------------------------------------------

    def start(self, study: str, *, owner: str) -> DedupJob:
        """Queue deduplicating the Study's records (its working set) for the job runners of every
        process (an editor may); watch it with :meth:`job`. While a run of the Study is
        active, that run is returned (one per Study, kept by the store)."""
        row = self._study(study, owner, "write")
        params: dict[str, object] = {"study_id": row.id, "study_name": row.name, "by": owner}
        view = self._jobs.submit(
            DEDUP_KIND, params, owner=study_owner(row.id), reuse_active=True, account=owner
        )
        if self._wake is not None:
            self._wake()
        return DedupJob.from_view(view)

    def _find(self, job_id: str, owner: str) -> JobView:
        """The job, if its Study is one ``owner`` may read (else not found)."""
        try:
            view = self._jobs.find(job_id, kind=DEDUP_KIND)
            self._study(str(view.params.get("study_id", "")), owner)
        except NotFoundError:
            raise JobNotFound(
                f"no deduplication job {job_id[:40]!r}", code="job_not_found"
            ) from None
        return view

    def job(self, job_id: str, *, owner: str) -> DedupJob:
        """A run's progress and outcome (for the Study's members)."""
        return DedupJob.from_view(self._find(job_id, owner))

    def cancel(self, job_id: str, *, owner: str) -> DedupJob:
        """Ask a running job to stop at its next step (nothing is recorded then); a queued
        one is cancelled at once. Only the Study's editors may."""
        view = self._find(job_id, owner)
        self._study(str(view.params["study_id"]), owner, "write")
        if view.active:
            view = self._jobs.cancel(job_id, owner=view.owner)
        return DedupJob.from_view(view)

    def work(self, job_id: str, *, owner: str) -> DedupJob:
        """Run queued deduplication jobs in this thread until ``job_id`` has ended or none
        can be claimed here (tests, benchmarks; a server's runner does this itself)."""
        runner = JobRunner(self._jobs, self.handlers(), lease_s=self._settings.jobs_lease_seconds)
        while self.job(job_id, owner=owner).state == "running" and runner.run_once():
            pass
        return self.job(job_id, owner=owner)

    # --- the review ----------------------------------------------------------------------

    def _latest_run(self, study_id: str) -> DedupRun | None:
        with self._store.read() as conn:
            row = latest_dedup_run(conn, study_id)
            if row is None:
                return None
            return DedupRun.from_row(row, list_dedup_run_pairs(conn, row.id))

    def _running(self, study_id: str) -> DedupJob | None:
        views = self._jobs.list(owner=study_owner(study_id), kinds=[DEDUP_KIND], limit=1)
        return DedupJob.from_view(views[0]) if views and views[0].active else None

    def review(self, study: str, *, owner: str) -> ReviewView:
        """The Study's latest run with every queued pair's decision in force, the running
        job (if any) and the history, newest first."""
        row = self._study(study, owner)
        with self._store.read() as conn:
            entries = list_dedup_entries(conn, row.id)
        live = in_force(entries)
        run = self._latest_run(row.id)
        pairs = queue_rows(run, live) if run is not None else []
        return ReviewView(
            row.id,
            row.name,
            run_row(run, pairs) if run is not None else None,
            self._running(row.id),
            tuple(pairs),
            tuple(history_rows(entries, run, live)),
            len(entries),
        )

    def _pair(self, study_id: str, run_id: str, no: int) -> StoredPair:
        with self._store.read() as conn:
            latest = latest_dedup_run(conn, study_id)
            if latest is None or latest.id != run_id:
                raise RefusedError(
                    "this review belongs to an earlier run; reload the page", code="stale_run"
                )
            row = dedup_run_pair(conn, run_id, no)
        if row is None:
            raise NotFoundError(f"no pair {no} in this run's review queue", code="pair_not_found")
        return DedupRun.stored_pair(row, run_id)

    def decide(self, request: DecideRequest, *, owner: str) -> DecisionView:
        """Record the reviewer's ``merge`` or ``distinct`` for a pair of the latest run: one
        history entry (who, when, both records). A pair with conflicting identifiers is
        never merged. Repeating the decision in force records nothing new."""
        row = self._study(request.study, owner, "write")
        rp = self._pair(row.id, request.run_id, request.pair)
        if request.decision == "merge" and not rp.mergeable:
            raise RefusedError(
                f"this pair is never merged: {rp.body['not_mergeable']}",
                code="conflicting_identifiers",
            )
        with self._store.read() as conn:
            current = in_force(list_dedup_entries(conn, row.id)).get(rp.keys)
        if current is not None and current.decision == request.decision:
            return DecisionView(current.seq, request.pair, request.decision, new=False)
        data = {"by": owner, "via": "web", "a": rp.body["a"], "b": rp.body["b"]}
        with self._store.write() as conn:
            study_id = repo.get_study(conn, row.id, account=owner).id
            seq = add_dedup_entry(
                conn, study_id, "decision", data, now_iso(),
                a_digest=rp.keys[0], b_digest=rp.keys[1], decision=request.decision,
            )  # fmt: skip
        regroup(self._store, row.id)  # the decision applies to the working set
        return DecisionView(seq, request.pair, request.decision, new=True)
