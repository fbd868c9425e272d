"""Background jobs kept in the store: submit, watch, cancel; claim, progress, finish.

Every state lives in the ``jobs`` table (:mod:`litdesk.adapters.store._jobs`), so any
process on the same store sees a job's progress and any worker can take it over: a job
whose worker stopped heartbeating (its lease expired) is claimed again and *resumes* from
the checkpoint its handler last recorded. Handlers must therefore be idempotent: work a
previous attempt finished is found finished (the PDF indexer's entries) or named in the
checkpoint, and is not redone.

Faces call :meth:`Jobs.submit`, :meth:`Jobs.get`, :meth:`Jobs.list`, :meth:`Jobs.cancel`
with the owner of the request; workers (:class:`litdesk.services.jobs.JobRunner`) call
:meth:`Jobs.claim`, :meth:`Jobs.progress`, :meth:`Jobs.finish`, :meth:`Jobs.fail`.

A shared job (one at a time for every account: the PDF library's index) reused by a
request while it is active is marked to run again; its handler clears the mark with
:meth:`Jobs.listing` just before it lists its work, and :meth:`Jobs.finish` of a job still
marked puts it back in the queue (the same id, resumed from its checkpoint) instead of
ending it. So a request that arrives after the job's last listing — a PDF uploaded while
the index job builds its vector index — is read by another pass, on any host or process.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.store import JobRow, JobsRepo, Store

__all__ = [
    "MAX_ACTIVE_JOBS",
    "MAX_ATTEMPTS",
    "MAX_PARAMS_BYTES",
    "ClaimedJob",
    "JobInputInvalid",
    "JobLeaseLost",
    "JobNotFound",
    "JobStatus",
    "JobView",
    "Jobs",
    "TooManyJobs",
    "new_job_id",
]

_log = logging.getLogger("litdesk.jobs")

JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
#: Active (queued or running) jobs one owner may have at once.
MAX_ACTIVE_JOBS: Final = 20
#: A job whose worker stopped this many times without finishing it is failed.
MAX_ATTEMPTS: Final = 5
#: Largest parameters, result or checkpoint document of a job (JSON characters).
MAX_PARAMS_BYTES: Final = 64_000
MAX_RESULT_BYTES: Final = 2_000_000
MAX_MESSAGE_CHARS: Final = 2_000
MAX_LIST: Final = 200
#: how long stopping the last polling listener waits for the queue's look in flight (one
#: read statement)
_LOOK_JOIN_S: Final = 10.0
_KIND: Final = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
_JOB_ID: Final = re.compile(r"^[0-9a-f]{32}$")


def new_job_id() -> str:
    """A fresh job id (32 hexadecimal digits)."""
    return uuid.uuid4().hex


class JobNotFound(NotFoundError):
    """No such job for this owner (another owner's job is not found either)."""

    default_code = "job_not_found"


class JobInputInvalid(InputError):
    """A job's kind, parameters or progress figures are not acceptable."""

    default_code = "job_input"


class TooManyJobs(RefusedError):
    """The account already has the most active (queued or running) jobs allowed."""

    default_code = "too_many_jobs"


class JobLeaseLost(RefusedError):
    """The worker no longer holds the job (its lease expired and another worker took it,
    or it was cancelled while the worker was gone)."""

    default_code = "job_lease_lost"


@dataclass(frozen=True, slots=True)
class JobView:
    """One job as faces show it."""

    id: str
    kind: str
    owner: str
    status: JobStatus
    done: int
    total: int | None
    current: str | None
    #: units per second (the handler says which units, e.g. pages/s)
    rate: float | None
    message: str
    result: dict[str, Any] | None
    created: str
    started: str | None
    finished: str | None
    heartbeat: str | None
    params: dict[str, Any]
    attempts: int
    cancel_requested: bool

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "owner": self.owner,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "current": self.current,
            "rate": self.rate,
            "message": self.message,
            "result": self.result,
            "created": self.created,
            "started": self.started,
            "finished": self.finished,
            "heartbeat": self.heartbeat,
            "params": self.params,
            "attempts": self.attempts,
            "cancel_requested": self.cancel_requested,
            "active": self.active,
        }


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    """A job held by one worker: what its handler needs, and the lease it holds."""

    id: str
    kind: str
    owner: str
    params: dict[str, Any]
    #: what a previous attempt recorded with :meth:`Jobs.progress` (``None`` on the first)
    checkpoint: dict[str, Any] | None
    attempt: int
    worker_id: str
    lease_s: float
    done: int
    total: int | None
    #: the message the job fails with should this worker be gone (a job bound to the
    #: process that submitted it: :meth:`Jobs.submit_held`); ``None`` for any other
    bound: str | None = None
    #: what to run again should the process holding it be stopped (a job submitted held:
    #: :meth:`Jobs.interrupt_held`), e.g. "run `litdesk study update` for the Study 'X' again"
    again: str | None = None


def _view(row: JobRow) -> JobView:
    status: JobStatus = row.status  # type: ignore[assignment]  # the table holds only these
    return JobView(
        id=row.id,
        kind=row.kind,
        owner=row.owner,
        status=status,
        done=row.done,
        total=row.total,
        current=row.current,
        rate=row.rate,
        message=row.message,
        result=row.result,
        created=row.created_at,
        started=row.started_at,
        finished=row.finished_at,
        heartbeat=row.heartbeat_at,
        params=row.params,
        attempts=row.attempts,
        cancel_requested=row.cancel_requested,
    )


def _progress_only(view: JobView) -> JobView:
    """Another account's job of a shared kind: its state and progress, nothing else (no
    owner, parameters, message or result)."""
    return replace(view, owner="", message="", result=None, params={})


def _document(value: dict[str, Any], what: str, limit: int) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise JobInputInvalid(f"the job's {what} must be a JSON object")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise JobInputInvalid(f"the job's {what} are not JSON: {exc}") from None
    if len(text) > limit:
        raise JobInputInvalid(f"the job's {what} exceed {limit:,} characters")
    return value


def _owner(owner: str) -> str:
    if not isinstance(owner, str) or not owner or len(owner) > 200:
        raise JobInputInvalid("a job's owner is a non-empty name of at most 200 characters")
    return owner


def _abandoned_result(
    message: str, error: str = "JobAbandoned", code: str = "job_abandoned"
) -> dict[str, Any]:
    """A bound job's result once its process is gone, or a held job's once its process
    was stopped (``JobInterrupted``) — as a failed handler's: see
    :class:`litdesk.services.jobs.JobFailure`."""
    return {
        "error": {
            "error": error,
            "code": code,
            "category": "external",
            "message": message,
            "retry_after": None,
            "warnings": [],
        }
    }


def _clip(text: str | None) -> str | None:
    return None if text is None else text[:MAX_MESSAGE_CHARS]


class Jobs:
    """The jobs of one store (any number of processes may share it)."""

    def __init__(
        self,
        store: Store,
        *,
        max_active: int = MAX_ACTIVE_JOBS,
        max_attempts: int = MAX_ATTEMPTS,
        shared_kinds: Collection[str] = (),
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``shared_kinds``: kinds of job on a resource every account shares (the PDF
        library's index): any account may watch such a job's progress (:meth:`get`).
        ``clock``: what leases, heartbeats and timestamps read (a test's
        :class:`~litdesk.ManualClock` lets a lease run out without waiting)."""
        self.store = store
        self.clock = clock
        self.shared_kinds = set(shared_kinds)
        self.repo = JobsRepo(store, clock=clock)
        self.max_active = max_active
        self.max_attempts = max_attempts
        self._bells: dict[int, tuple[frozenset[str], Callable[[], None], float | None]] = {}
        self._bells_lock = threading.Lock()
        #: the thread looking at the queue for the listeners that poll (``None``: none runs)
        self._looker: threading.Thread | None = None
        self._listeners_changed = threading.Event()
        #: the jobs submitted held through this object and not ended through it yet
        self._holding: dict[str, ClaimedJob] = {}

    # --- this process's workers, told of new work ----------------------------------------
    def listen(
        self, kinds: Collection[str], wake: Callable[[], None], *, poll_s: float | None = None
    ) -> Callable[[], None]:
        """Call ``wake`` whenever a job of ``kinds`` is queued through this object (submitted,
        or handed back by a stopping worker) — a worker of this process then looks at once
        instead of at its next poll. With ``poll_s``, also for what another process did:
        one thread looks at the queue every ``poll_s`` (the shortest of the listeners') for
        every listener together — one read statement, not one per worker — and calls the
        ``wake`` of each listener one of whose kinds has a job to claim (queued, or a lease
        that ran out) or whose kinds' active jobs changed since the look before (a job
        another process runs: the worker learns when its lease ends). Returns the call that
        stops listening."""
        key = id(wake)
        with self._bells_lock:
            self._bells[key] = (frozenset(kinds), wake, poll_s)
            if poll_s is not None and self._looker is None:
                self._looker = threading.Thread(
                    target=self._look, name="litdesk-jobs-look", daemon=True
                )
                self._looker.start()
        self._listeners_changed.set()

        def stop() -> None:
            with self._bells_lock:
                self._bells.pop(key, None)
                looker = self._looker
                last = all(p is None for _, _, p in self._bells.values())
            self._listeners_changed.set()
            if last and looker is not None and looker is not threading.current_thread():
                # the look in flight ends before the caller goes on (an app closes its
                # store next: a read after that would open a connection nobody closes)
                looker.join(_LOOK_JOIN_S)

        return stop

    def _ring(self, kind: str) -> None:
        with self._bells_lock:
            bells = [wake for kinds, wake, _ in self._bells.values() if kind in kinds]
        for wake in bells:
            wake()

    def _look(self) -> None:
        """The polling listeners' look at the queue (see :meth:`listen`), until none is
        left."""
        seen: dict[str, float] = {}
        while True:
            with self._bells_lock:
                polled = [(k, w, p) for k, w, p in self._bells.values() if p is not None]
                if not polled:
                    self._looker = None
                    return
                self._listeners_changed.clear()
            if self._listeners_changed.wait(min(p for _, _, p in polled)):
                continue  # a listener came or went: look again with the listeners now
            kinds = sorted(set().union(*(k for k, _, _ in polled)))
            try:
                soonest = self.repo.soonest(kinds)
            except LitdeskError as exc:  # the store is unreachable: try again later
                _log.warning("job queue look failed: %s", exc.message)
                continue
            now = self.clock.now()
            due = {k for k, when in soonest.items() if when < now}
            moved = {k for k in set(soonest) | set(seen) if soonest.get(k) != seen.get(k)}
            seen = soonest
            for mine, wake, _ in polled:
                if mine & (due | moved):
                    wake()

    # --- faces ---------------------------------------------------------------------
    def submit(
        self,
        kind: str,
        params: dict[str, Any],
        *,
        owner: str,
        reuse_active: bool = False,
        shared: bool = False,
        job_id: str | None = None,
        account: str | None = None,
        rerun_reused: bool = False,
    ) -> JobView:
        """Queue a job of ``kind``. With ``reuse_active`` an active job of the same kind
        and owner is returned instead (with ``rerun_reused`` too, it is marked to run again
        as a shared one is: a request that came after its handler's last :meth:`listing`
        is not lost); with ``shared`` an active job of the same kind of
        any owner (one at a time across every account and process, enforced in the
        store's transaction), another account's shown by its progress only. ``job_id``
        (from :func:`new_job_id`): the id, when the caller stored the job's data under it
        first. ``account``: the account the job is charged to when ``owner`` is not one (a
        chat session, a Study): every account has at most ``max_active`` active jobs of
        every kind together, else :class:`TooManyJobs` (429 on the web). A shared job
        returned is marked to run again unless its handler lists its work after this call
        (see :meth:`listing`, :meth:`finish`)."""
        row = self._insert(
            kind, params, owner, job_id, account, reuse_active=reuse_active, shared=shared,
            rerun_reused=rerun_reused,
        )  # fmt: skip
        view = _view(row)
        if view.status == "queued":
            self._ring(kind)
        return view if row.owner == _owner(owner) else _progress_only(view)

    def submit_held(
        self,
        kind: str,
        params: dict[str, Any],
        *,
        owner: str,
        worker_id: str,
        lease_s: float,
        bound: str | None = None,
        again: str | None = None,
        job_id: str | None = None,
        account: str | None = None,
    ) -> tuple[JobView, ClaimedJob]:
        """Submit a job the caller runs itself (the CLI without a server): it is inserted
        already claimed by ``worker_id`` — in the insert's transaction, so no other worker
        (a ``litdesk serve`` on the same store) can take it first. Run it with
        :meth:`JobRunner.run_claimed`. Should the caller stop heartbeating, the job is
        taken over as any other job is — unless ``bound``: the message the job then fails
        with (saying how to run it again), for a job no other process may run (a CLI run
        replaying or recording a cassette: another would page the network instead). No
        other worker ever claims a bound job. ``again``: what to run again should the
        caller be stopped (:meth:`interrupt_held`). Limits as :meth:`submit`."""
        if not 1 <= lease_s <= 3600:
            raise JobInputInvalid("a job lease lasts 1 to 3600 seconds")
        hold = (worker_id, self.clock.now() + lease_s, _clip(bound) if bound else None)
        row = self._insert(kind, params, owner, job_id, account, hold=hold)
        claimed = ClaimedJob(
            id=row.id, kind=row.kind, owner=row.owner, params=row.params, checkpoint=None,
            attempt=row.attempts, worker_id=worker_id, lease_s=lease_s, done=0, total=None,
            bound=row.bound, again=_clip(again),
        )  # fmt: skip
        with self._bells_lock:
            self._holding[row.id] = claimed
        return _view(row), claimed

    def interrupt_held(self, reason: str) -> list[JobView]:
        """End every job submitted held through this object (:meth:`submit_held`) that its
        holder still runs: failed, in one transaction, with the message "``reason`` at
        <time>; <what to run again>" — the caller is being stopped (Ctrl-C, SIGTERM) and
        the job must neither wait for its lease to run out (counted among the account's
        active jobs, shown running) nor be resumed by another worker. A job that has ended
        is left as it is; its handler, still running, stops at its next progress report
        (the job is no longer its worker's) and records nothing more. The jobs ended."""
        with self._bells_lock:
            held = list(self._holding.values())
            self._holding.clear()
        if not held:
            return []
        stamp = self.clock.utcnow().strftime("%Y-%m-%d %H:%M:%S UTC")
        ends: list[tuple[str, str, dict[str, Any]]] = []
        for job in held:
            said = f"{reason} at {stamp}" + (f"; {job.again}." if job.again else ".")
            message = said[:MAX_MESSAGE_CHARS]
            result = _abandoned_result(message, "JobInterrupted", "job_interrupted")
            values: dict[str, Any] = {
                "status": "failed",
                "finished_at": self.clock.utcnow().isoformat(timespec="microseconds"),
                "current": None,
                "message": message,
                "result": json.dumps(result, ensure_ascii=False),
            }
            ends.append((job.id, job.worker_id, values))
        return [_view(row) for row in self.repo.end_all(ends)]

    def _insert(
        self,
        kind: str,
        params: dict[str, Any],
        owner: str,
        job_id: str | None,
        account: str | None,
        *,
        reuse_active: bool = False,
        shared: bool = False,
        hold: tuple[str, float, str | None] | None = None,
        rerun_reused: bool = False,
    ) -> JobRow:
        if not isinstance(kind, str) or len(kind) > 80 or not _KIND.match(kind):
            raise JobInputInvalid(
                "a job kind is dotted lower-case words of at most 80 characters, e.g. library.index"
            )
        params = _document(params, "parameters", MAX_PARAMS_BYTES)
        if job_id is not None and not _JOB_ID.match(job_id):
            raise JobInputInvalid("a job id is 32 lower-case hexadecimal digits")
        row, active = self.repo.insert(
            job_id=job_id if job_id is not None else new_job_id(),
            kind=kind,
            owner=_owner(owner),
            params=params,
            reuse_active=reuse_active,
            max_active=self.max_active,
            shared=shared,
            account=_owner(account) if account is not None else None,
            hold=hold,
            rerun_reused=rerun_reused,
        )
        if row is None:
            raise TooManyJobs(
                f"{active} jobs of this account are already queued or running (at most "
                f"{self.max_active}); wait for one to finish or cancel one",
                active=active,
                limit=self.max_active,
            )
        return row

    def get(self, job_id: str, *, owner: str) -> JobView:
        """The job ``job_id`` of ``owner`` (:class:`JobNotFound` for any other, except a job
        of a shared kind: its progress only)."""
        row = self.repo.get(job_id) if isinstance(job_id, str) and len(job_id) <= 32 else None
        row = self._settled(row)
        if row is not None and row.owner != owner and row.kind in self.shared_kinds:
            return _progress_only(_view(row))
        if row is None or row.owner != owner:
            raise JobNotFound(f"no job {str(job_id)[:40]!r}", job=str(job_id)[:40])
        return _view(row)

    def find(self, job_id: str, *, kind: str) -> JobView:
        """The job ``job_id`` of ``kind`` whoever owns it (:class:`JobNotFound` else) — for a
        service that authorises access itself (a Study's jobs, seen by its members)."""
        row = self._settled(
            self.repo.get(job_id) if isinstance(job_id, str) and len(job_id) <= 32 else None
        )
        if row is None or row.kind != kind:
            raise JobNotFound(f"no job {str(job_id)[:40]!r}", job=str(job_id)[:40])
        return _view(row)

    def list(
        self, *, owner: str, kinds: Sequence[str] | None = None, limit: int = 50
    ) -> list[JobView]:
        """``owner``'s jobs, newest first (at most ``limit``, capped at 200)."""
        if not 1 <= limit <= MAX_LIST:
            raise JobInputInvalid(f"a job list holds 1 to {MAX_LIST} jobs")
        return [_view(self._settle(r)) for r in self.repo.list(owner, kinds, limit)]

    def share(self, kind: str) -> None:
        """Let every account watch the progress of ``kind``'s jobs (a shared resource)."""
        self.shared_kinds.add(kind)

    def active_of(self, kind: str, *, owner: str) -> JobView | None:
        """The active job of a shared ``kind`` (its progress only when not ``owner``'s), or
        ``None``; for a kind not shared, only ``owner``'s own."""
        row = self._settled(self.repo.active(kind))
        if row is None or row.status not in ("queued", "running"):
            return None
        if row.owner == owner:
            return _view(row)
        return _progress_only(_view(row)) if kind in self.shared_kinds else None

    def any_active(self, kinds: Sequence[str]) -> bool:
        """Whether a job of ``kinds`` is queued or running, whoever owns it (a resource
        shared by every account, such as the team's PDF library, is busy); no job's
        details are shown."""
        return self.repo.any_active(kinds)

    def cancel(self, job_id: str, *, owner: str) -> JobView:
        """Cancel a queued job at once; ask a running one to stop (its handler stops at its
        next progress report; the view says ``cancel_requested`` until then). A job that
        has ended is returned as it is."""
        self.get(job_id, owner=owner)
        row = self.repo.request_cancel(job_id, owner, self.clock.now())
        if row is None:
            raise JobNotFound(f"no job {job_id[:40]!r}", job=job_id[:40])
        return _view(row)

    # --- workers -------------------------------------------------------------------
    def claim(self, kinds: Sequence[str], worker_id: str, lease_s: float) -> ClaimedJob | None:
        """The oldest queued job of ``kinds`` (or one whose worker's lease expired) of the
        accounts with the fewest such jobs running — one account's full queue does not run
        before another's next job — now held by ``worker_id`` for ``lease_s`` seconds;
        ``None`` when there is none."""
        return self.claim_or_lease_end(kinds, worker_id, lease_s)[0]

    def claim_or_lease_end(
        self, kinds: Sequence[str], worker_id: str, lease_s: float
    ) -> tuple[ClaimedJob | None, float | None]:
        """As :meth:`claim`; when none is claimable, also the clock time at which the
        first running job of ``kinds`` may be taken over (its lease runs out), or ``None``
        when none is running."""
        if not kinds:
            return None, None
        if not 1 <= lease_s <= 3600:
            raise JobInputInvalid("a job lease lasts 1 to 3600 seconds")
        row, lease_end = self.repo.claim_or_lease_end(
            list(kinds), worker_id, lease_s, self.clock.now(), self.max_attempts
        )
        if row is None:
            now = self.clock.now()
            if lease_end is not None and lease_end < now:  # ran out, not taken: bound
                for gone in self.repo.abandoned(list(kinds), now):
                    self._settle(gone)
                return None, None
            return None, lease_end
        job = ClaimedJob(
            id=row.id,
            kind=row.kind,
            owner=row.owner,
            params=row.params,
            checkpoint=row.checkpoint,
            attempt=row.attempts,
            worker_id=worker_id,
            lease_s=lease_s,
            done=row.done,
            total=row.total,
            bound=row.bound,
        )
        return job, None

    def progress(
        self,
        job: ClaimedJob,
        done: int,
        total: int | None,
        current: str | None = None,
        *,
        rate: float | None = None,
        message: str | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> bool:
        """Record progress (and renew the lease). ``False`` when the handler must stop:
        a cancel was requested, or this worker no longer holds the job."""
        if done < 0 or (total is not None and total < 0):
            raise JobInputInvalid("job progress counts are not negative")
        values: dict[str, Any] = {"done": done, "total": total, "current": _clip(current)}
        if rate is not None:
            values["rate"] = float(rate) if rate >= 0 and rate < float("inf") else None
        if message is not None:
            values["message"] = _clip(message)
        if checkpoint is not None:
            values["checkpoint"] = json.dumps(
                _document(checkpoint, "checkpoint", MAX_RESULT_BYTES), ensure_ascii=False
            )
        cancel = self.repo.progress(job.id, job.worker_id, values, self.clock.now() + job.lease_s)
        return cancel is False

    def heartbeat(self, job: ClaimedJob) -> bool:
        """Renew the lease only; ``False`` as for :meth:`progress`."""
        cancel = self.repo.progress(job.id, job.worker_id, {}, self.clock.now() + job.lease_s)
        return cancel is False

    def listing(self, job: ClaimedJob) -> bool:
        """The handler is about to list its work (a pass's files): requests that reused the
        job before now are covered by that listing, so its rerun mark is cleared. ``False``
        when this worker no longer holds the job."""
        return self.repo.listing(job.id, job.worker_id)

    def finish(self, job: ClaimedJob, result: dict[str, Any] | None = None) -> JobView:
        """The job is done; ``result`` is what faces show. A job marked to run again (a
        request reused it after its handler's last :meth:`listing`) goes back to the queue
        instead, ``queued`` with its checkpoint, and is claimed again."""
        view = self._end(job, "done", result, None, unless_rerun=True)
        if view.status == "queued":
            self._ring(job.kind)
        return view

    def fail(self, job: ClaimedJob, message: str, result: dict[str, Any] | None = None) -> JobView:
        """The job failed; ``message`` says why (never a credential)."""
        return self._end(job, "failed", result, message)

    def stopped(self, job: ClaimedJob, result: dict[str, Any] | None = None) -> JobView:
        """The handler stopped on a cancel request: the job is cancelled."""
        return self._end(job, "cancelled", result, None)

    def release(self, job: ClaimedJob) -> JobView:
        """Hand the job back to the queue (its worker is shutting down); the next claim
        resumes it from its checkpoint. A bound job (:meth:`submit_held`), which no other
        process may run, fails instead with its message."""
        if job.bound is not None:
            return self.fail(job, job.bound, _abandoned_result(job.bound))
        self._let_go(job)
        row = self.repo.end(job.id, job.worker_id, {"status": "queued", "worker": None})
        if row is None:
            raise JobLeaseLost(f"job {job.id} is no longer held by this worker")
        self._ring(job.kind)
        return _view(row)

    def _let_go(self, job: ClaimedJob) -> None:
        """``job`` ends through this object: no longer one of its held jobs."""
        with self._bells_lock:
            self._holding.pop(job.id, None)

    def _settled(self, row: JobRow | None) -> JobRow | None:
        return None if row is None else self._settle(row)

    def _settle(self, row: JobRow) -> JobRow:
        """``row``, or — a bound job whose process let its lease run out (it died, or
        was stopped) — the job failed with its bound message, as no other worker may take
        it over (see :meth:`submit_held`)."""
        if (
            row.bound is None
            or row.status != "running"
            or row.worker is None
            or row.lease_until is None
        ):
            return row
        now = self.clock.now()
        if row.lease_until >= now:
            return row
        values: dict[str, Any] = {
            "status": "failed",
            "message": row.bound,
            "result": json.dumps(_abandoned_result(row.bound), ensure_ascii=False),
        }
        ended = self.repo.abandon(row.id, row.worker, now, values)
        if ended is None:  # renewed, ended or taken meanwhile: as it now stands
            ended = self.repo.get(row.id)
        return row if ended is None else ended

    def _end(
        self,
        job: ClaimedJob,
        status: JobStatus,
        result: dict[str, Any] | None,
        message: str | None,
        *,
        unless_rerun: bool = False,
    ) -> JobView:
        values: dict[str, Any] = {
            "status": status,
            "finished_at": self.clock.utcnow().isoformat(timespec="microseconds"),
            "current": None,
        }
        if result is not None:
            values["result"] = json.dumps(
                _document(result, "result", MAX_RESULT_BYTES), ensure_ascii=False
            )
        if message is not None:
            values["message"] = _clip(message)
        self._let_go(job)
        row = self.repo.end(job.id, job.worker_id, values, unless_rerun=unless_rerun)
        if row is None:
            raise JobLeaseLost(f"job {job.id} is no longer held by this worker")
        return _view(row)
