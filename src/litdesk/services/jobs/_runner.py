"""The job runner: worker threads of one process that claim jobs from the store and run
their handlers, heartbeating while a handler runs.

Handlers are registered by kind in a plain dict (``{"library.index": index_handler}``);
a handler is a synchronous callable taking a :class:`JobContext` and returning the
job's result (a JSON object) or ``None``. It reports progress through
:meth:`JobContext.progress`, which returns ``False`` when it must stop (a cancel was
requested, the runner is stopping, or another worker took the job over); the handler then
returns promptly. The runner records what happened:

* the handler returned and no stop was asked: the job is ``done`` with its result — or,
  a shared job a request reused after the handler last called
  :meth:`JobContext.listing`, ``queued`` again (:meth:`Jobs.finish`);
* a cancel was asked: ``cancelled`` (with the result, if any, of the work done so far);
* the runner is stopping (server shutdown): the job goes back to the queue and the next
  claim — in this process after a restart, or in any other — resumes it;
* the handler raised: ``failed`` with the error's message; for a
  :class:`~litdesk.LitdeskError` the result is ``{"error": ...}`` (:func:`failure`: its
  class, code, category and ``retry_after``), so a face shows it as it would the error,
  with the work done before (the error's ``result=`` detail, a JSON object) beside it.

A process killed outright stops heartbeating; its job's lease expires and another claim
resumes it (see :mod:`._jobs`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import (
    ConfigError,
    ExternalError,
    InputError,
    IntegrityError,
    LitdeskError,
    NotFoundError,
    RefusedError,
)

from ._jobs import ClaimedJob, JobLeaseLost, Jobs

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "Handler",
    "JobContext",
    "JobFailure",
    "JobRunner",
    "failure",
    "worker_name",
]

_log = logging.getLogger("litdesk.jobs")

DEFAULT_LEASE_SECONDS: Final = 30.0
DEFAULT_POLL_SECONDS: Final = 1.0
#: How long after a running job's lease ends an idle worker looks again (seconds).
_AFTER_LEASE: Final = 0.02
#: An idle worker's own look comes every this many polls: the queue's look (one for every
#: runner of its :class:`Jobs`, every ``poll_s``) wakes it when there is work; its own is
#: the safety net should that look fail or miss.
_OWN_LOOK_POLLS: Final = 10
_CATEGORIES: Final[tuple[tuple[type[LitdeskError], str], ...]] = (
    (InputError, "input"),
    (RefusedError, "refused"),
    (NotFoundError, "not_found"),
    (ExternalError, "external"),
    (ConfigError, "config"),
    (IntegrityError, "integrity"),
)


@dataclass(frozen=True, slots=True)
class JobFailure:
    """A failed job's error as its result records it (never a credential)."""

    #: the error's class name and stable code
    error: str
    code: str
    #: ``input``, ``refused``, ``not_found``, ``external``, ``config``, ``integrity`` or ``error``
    category: str
    message: str
    #: the seconds after which trying again may help (``None``: not said)
    retry_after: int | None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The job's result: ``{"error": {error, code, category, message, retry_after,
        warnings}}``."""
        return {
            "error": {
                "error": self.error,
                "code": self.code,
                "category": self.category,
                "message": self.message,
                "retry_after": self.retry_after,
                "warnings": list(self.warnings),
            }
        }


def failure(exc: LitdeskError) -> JobFailure:
    """A failed job's error (see :class:`JobFailure`): the error's class name, code,
    category, message, ``retry_after`` when it is a non-negative int, and at most 50
    warnings of at most 500 characters each."""
    category = next((name for cls, name in _CATEGORIES if isinstance(exc, cls)), "error")
    retry = exc.details.get("retry_after")
    warnings = exc.details.get("warnings")
    return JobFailure(
        error=type(exc).__name__,
        code=exc.code,
        category=category,
        message=exc.message,
        retry_after=retry if isinstance(retry, int) and retry >= 0 else None,
        warnings=tuple(str(w)[:500] for w in warnings)[:50]
        if isinstance(warnings, (list, tuple))
        else (),
    )


def _work_done(exc: LitdeskError) -> dict[str, Any]:
    """What a handler did before it failed, when its error carries it (``result=``, a JSON
    object: e.g. a whole search's lanes, each with why it failed); kept beside ``error``."""
    done = exc.details.get("result")
    return {k: v for k, v in done.items() if k != "error"} if isinstance(done, dict) else {}


class JobContext:
    """What a running handler sees: its job's parameters and checkpoint, and the way to
    report progress (and learn that it must stop)."""

    def __init__(self, jobs: Jobs, job: ClaimedJob, stopping: threading.Event) -> None:
        self.jobs = jobs
        self.job = job
        self._stopping = stopping
        self._cancelled = threading.Event()
        self._lost = threading.Event()

    @property
    def params(self) -> dict[str, Any]:
        return self.job.params

    @property
    def checkpoint(self) -> dict[str, Any] | None:
        """What the previous attempt recorded (``None`` on the first attempt)."""
        return self.job.checkpoint

    @property
    def attempt(self) -> int:
        return self.job.attempt

    @property
    def should_stop(self) -> bool:
        """A cancel was requested, the runner is stopping, or the job was taken over."""
        return self._cancelled.is_set() or self._lost.is_set() or self._stopping.is_set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancelled.is_set()

    def pause(self, seconds: float) -> bool:
        """Wait ``seconds`` unless the runner stops meanwhile (a stopping server does not
        wait out a handler's pause); whether it is stopping."""
        return self._stopping.wait(seconds)

    def listing(self) -> bool:
        """Call just before listing the work to do (each pass's): a request that reuses
        this job after it (a shared job) makes the job run again once it finishes, so no
        request goes unread. ``False`` when the handler must stop."""
        if self._lost.is_set():
            return False
        if not self.jobs.listing(self.job):
            self._lost.set()
        return not self.should_stop

    @property
    def lease_lost(self) -> bool:
        return self._lost.is_set()

    def progress(
        self,
        done: int,
        total: int | None,
        current: str | None = None,
        *,
        rate: float | None = None,
        message: str | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> bool:
        """Record progress; ``False`` when the handler must stop."""
        if self._lost.is_set():
            return False
        keep = self.jobs.progress(
            self.job, done, total, current, rate=rate, message=message, checkpoint=checkpoint
        )
        if not keep:
            self._mark_stop()
        return not self.should_stop

    def beat(self) -> None:
        """Renew the lease (the runner's heartbeat thread calls this)."""
        if self._lost.is_set():
            return
        if not self.jobs.heartbeat(self.job):
            self._mark_stop()

    def _mark_stop(self) -> None:
        """Learn why the store said stop: a cancel request, or the job is no longer ours."""
        try:
            view = self.jobs.get(self.job.id, owner=self.job.owner)
        except LitdeskError:
            self._lost.set()
            return
        if view.status == "running" and view.cancel_requested:
            self._cancelled.set()
        else:
            self._lost.set()


#: A job handler: runs the job, returns its result (or ``None``).
Handler = Callable[[JobContext], dict[str, Any] | None]


def worker_name() -> str:
    """A worker id unique across hosts, processes and runners: ``host:pid:random``."""
    return f"{socket.gethostname()[:100]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class JobRunner:
    """Worker threads (``slots`` of them) running the jobs of ``handlers``' kinds."""

    def __init__(
        self,
        jobs: Jobs,
        handlers: Mapping[str, Handler],
        *,
        slots: int = 1,
        lease_s: float = DEFAULT_LEASE_SECONDS,
        poll_s: float = DEFAULT_POLL_SECONDS,
        worker_id: str | None = None,
        beat_s: float | None = None,
    ) -> None:
        """``beat_s``: seconds between heartbeats while a handler runs (by default a third
        of the lease, at least half a second); the lease itself is read from the clock of
        ``jobs``."""
        if slots < 1:
            raise ValueError("a job runner has at least one slot")
        self.jobs = jobs
        self.handlers = dict(handlers)
        self.slots = slots
        self.lease_s = lease_s
        self.poll_s = poll_s
        self.beat_s = max(0.5, lease_s / 3) if beat_s is None else beat_s
        self.worker_id = worker_id or worker_name()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._unlisten: Callable[[], None] | None = None

    @property
    def running(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def start(self) -> None:
        """Start the worker threads (idempotent)."""
        if self._threads or not self.handlers:
            return
        self._stopping.clear()
        self._unlisten = self.jobs.listen(self.handlers, self.wake, poll_s=self.poll_s)
        for n in range(self.slots):
            t = threading.Thread(
                target=self._loop, args=(f"{self.worker_id}/{n}",), name=f"litdesk-jobs-{n}"
            )
            t.daemon = True
            t.start()
            self._threads.append(t)

    def wake(self) -> None:
        """Look for work now (a job was just submitted in this process: :class:`Jobs` calls
        this for every job of this runner's kinds queued through it)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask running handlers to stop, hand their jobs back to the queue, end the threads."""
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._stopping.set()
        self._wake.set()
        for t in self._threads:
            t.join(timeout)
        self._threads = [t for t in self._threads if t.is_alive()]

    def run_once(self, worker_id: str | None = None) -> bool:
        """Claim and run one job here (tests, a one-shot worker); whether one ran."""
        job = self.jobs.claim(list(self.handlers), worker_id or self.worker_id, self.lease_s)
        if job is None:
            return False
        self._run(job)
        return True

    def run_claimed(self, job: ClaimedJob) -> None:
        """Run a job already claimed (by a test holding it first, a one-shot worker) here,
        heartbeating and recording its outcome as the worker threads do."""
        if job.kind not in self.handlers:
            raise ValueError(f"no handler for {job.kind!r} jobs in this runner")
        self._run(job)

    def _loop(self, worker_id: str) -> None:
        """Claim and run jobs until stopped. Idle, a worker waits until woken — by a job
        queued in this process, or by the queue's look every ``poll_s`` (a job queued by
        another process, a lease that ran out, a job another process runs: one look for
        every runner of the process, see :meth:`Jobs.listen`) — or until the first running
        job's lease runs out (its worker may have died), or ten polls (its own look) —
        whichever comes first. The wake-up is cleared before the claim, so one arriving
        during it is not lost."""
        kinds = list(self.handlers)
        waited_for: float | None = None  # the lease end the last wait was for
        while not self._stopping.is_set():
            self._wake.clear()
            lease_end: float | None = None
            try:
                job, lease_end = self.jobs.claim_or_lease_end(kinds, worker_id, self.lease_s)
            except LitdeskError as exc:  # the store is unreachable: try again later
                _log.warning("job claim failed: %s", exc.message)
                job = None
            if job is None:
                wait = self.poll_s * _OWN_LOOK_POLLS
                # just after that lease ends, read on the queue's clock; the same end twice
                # (a clock that does not move, a test's) waits for the queue's look instead
                if lease_end is not None and lease_end != waited_for:
                    left = max(0.0, lease_end - self.jobs.clock.now())
                    wait = min(wait, left + _AFTER_LEASE)
                waited_for = lease_end
                self._wake.wait(wait)
                continue
            waited_for = None
            self._run(job)

    def _run(self, job: ClaimedJob) -> None:
        ctx = JobContext(self.jobs, job, self._stopping)
        done = threading.Event()
        beat = threading.Thread(
            target=self._heartbeat, args=(ctx, done), name="litdesk-jobs-beat", daemon=True
        )
        beat.start()
        try:
            self._outcome(ctx, job)
        finally:
            done.set()
            beat.join()

    def _heartbeat(self, ctx: JobContext, done: threading.Event) -> None:
        while not done.wait(self.beat_s):
            try:
                ctx.beat()
            except LitdeskError as exc:
                _log.warning("job %s heartbeat failed: %s", ctx.job.id, exc.message)

    def _outcome(self, ctx: JobContext, job: ClaimedJob) -> None:
        handler = self.handlers[job.kind]
        try:
            try:
                result = handler(ctx)
            except LitdeskError as exc:
                self.jobs.fail(job, exc.message, failure(exc).to_dict() | _work_done(exc))
                return
            except Exception as exc:  # noqa: BLE001 - a handler bug fails its job, not the runner
                _log.exception("job %s (%s) raised", job.id, job.kind)
                self.jobs.fail(job, f"internal error in the {job.kind} job: {type(exc).__name__}")
                return
            if ctx.lease_lost:
                _log.warning("job %s was taken over while running here", job.id)
            elif ctx.cancel_requested:
                self.jobs.stopped(job, result)
            elif self._stopping.is_set():
                self.jobs.release(job)
            else:
                self.jobs.finish(job, result)
        except JobLeaseLost:
            _log.warning("job %s was taken over before it could be recorded here", job.id)
        except LitdeskError as exc:
            _log.warning("job %s could not be recorded: %s", job.id, exc.message)
