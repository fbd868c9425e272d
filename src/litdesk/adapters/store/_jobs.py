"""The jobs table (migration 0005_jobs): a store-backed queue shared by every process.

:class:`JobsRepo` is the one place that reads and writes it, on SQLite or PostgreSQL.
A worker *claims* a job with one conditional ``UPDATE … RETURNING`` whose target is the
oldest claimable row (queued, or running with an expired lease): on PostgreSQL the row is
chosen ``FOR UPDATE SKIP LOCKED`` so concurrent claimers never wait on or take the same
row; on SQLite the write transaction (``BEGIN IMMEDIATE``) already serialises writers.
Every later write by the worker (progress, finish) is conditional on the worker still
holding the job, so a worker that lost its lease cannot overwrite the new holder's state.

Leases are epoch seconds from the calling process's clock (the processes of one
deployment share a host clock or NTP; a lease is many seconds long); the timestamps the
repository writes itself (created, heartbeat, finished) come from the ``clock`` it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection, RowMapping

from litdesk._clock import SYSTEM_CLOCK, Clock

from ._engine import Store, StoredDataInvalid, dump_json, load_json

__all__ = ["ACTIVE", "FINAL", "JobRow", "JobsRepo", "job_held", "jobs"]

_JOBS_LOCK: Final = 1909102035
#: Statuses of a job that has not ended.
ACTIVE: Final = ("queued", "running")
#: Statuses of a job that has ended.
FINAL: Final = ("done", "failed", "cancelled")

_meta = sa.MetaData()

jobs = sa.Table(
    "jobs",
    _meta,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(80), nullable=False),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("done", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer),
    sa.Column("current", sa.Text),
    sa.Column("rate", sa.Float),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("result", sa.Text),
    sa.Column("checkpoint", sa.Text),
    sa.Column("cancel_requested", sa.Boolean, nullable=False),
    sa.Column("worker", sa.String(200)),
    sa.Column("lease_until", sa.Float),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("started_at", sa.String(40)),
    sa.Column("finished_at", sa.String(40)),
    sa.Column("heartbeat_at", sa.String(40)),
    # the account charged for the job (migration 0023): the per-account cap counts these
    sa.Column("account", sa.String(200)),
    # a request reused the job after its handler last listed its work (migration 0032): the
    # finish puts it back in the queue instead of ending it
    sa.Column("rerun_requested", sa.Boolean, nullable=False, server_default=sa.false()),
    # the job may run only in the process that claimed it at submission (migration 0033:
    # a CLI run bound to its cassette); the message it fails with when that process is gone
    sa.Column("bound", sa.Text),
)


@dataclass(frozen=True, slots=True)
class JobRow:
    """One stored job, JSON columns parsed."""

    id: str
    kind: str
    owner: str
    status: str
    params: dict[str, Any]
    done: int
    total: int | None
    current: str | None
    rate: float | None
    message: str
    result: dict[str, Any] | None
    checkpoint: dict[str, Any] | None
    cancel_requested: bool
    worker: str | None
    lease_until: float | None
    attempts: int
    created_at: str
    started_at: str | None
    finished_at: str | None
    heartbeat_at: str | None
    rerun_requested: bool = False
    bound: str | None = None


def now_iso(clock: Clock = SYSTEM_CLOCK) -> str:
    """The current UTC time, ISO 8601 with microseconds (sorts in creation order)."""
    return clock.utcnow().astimezone(UTC).isoformat(timespec="microseconds")


def _document(text: object, what: str) -> dict[str, Any] | None:
    if text is None:
        return None
    value = load_json(text, what=what)
    if not isinstance(value, dict):
        raise StoredDataInvalid(f"stored {what} is not a JSON object")
    return value


def _row(m: RowMapping) -> JobRow:
    return JobRow(
        id=m["id"],
        kind=m["kind"],
        owner=m["owner"],
        status=m["status"],
        params=_document(m["params"], "job parameters") or {},
        done=int(m["done"]),
        total=None if m["total"] is None else int(m["total"]),
        current=m["current"],
        rate=None if m["rate"] is None else float(m["rate"]),
        message=m["message"] or "",
        result=_document(m["result"], "job result"),
        checkpoint=_document(m["checkpoint"], "job checkpoint"),
        cancel_requested=bool(m["cancel_requested"]),
        worker=m["worker"],
        lease_until=None if m["lease_until"] is None else float(m["lease_until"]),
        attempts=int(m["attempts"]),
        created_at=m["created_at"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
        heartbeat_at=m["heartbeat_at"],
        rerun_requested=bool(m["rerun_requested"]),
        bound=m["bound"],
    )


#: when a job of the ``kinds`` may be claimed: -1 when one is queued, else the end of the
#: first running one's lease (NULL: none is active). Built once (an idle worker's poll
#: reads it every ``jobs_poll_seconds``): its cache key is worked out once, not per poll.
_WHEN: Final = sa.func.min(sa.case((jobs.c.status == "queued", -1.0), else_=jobs.c.lease_until))
_ACTIVE_OF_KINDS: Final = sa.and_(
    jobs.c.kind.in_(sa.bindparam("kinds", expanding=True)), jobs.c.status.in_(ACTIVE)
)
_SOONEST: Final = sa.select(_WHEN).where(_ACTIVE_OF_KINDS)


#: :data:`_SOONEST` per kind of the ``kinds`` that have an active job: one idle look for
#: every job runner of a process (:meth:`JobsRepo.soonest`).
_SOONEST_BY_KIND: Final = (
    sa.select(jobs.c.kind, _WHEN).where(_ACTIVE_OF_KINDS).group_by(jobs.c.kind)
)


def _claimable(kinds: Sequence[str], now: float) -> sa.ColumnElement[bool]:
    t = jobs
    return sa.and_(
        t.c.kind.in_(list(kinds)),
        t.c.bound.is_(None),  # a bound job is run by its own process only
        sa.or_(
            t.c.status == "queued",
            sa.and_(t.c.status == "running", t.c.lease_until < now),
        ),
    )


def _running_of_account(kinds: Sequence[str]) -> sa.ScalarSelect[int]:
    """How many jobs of ``kinds`` the candidate's account has running: a claim takes the
    oldest job of the accounts with fewest running first, so an account keeping its queue
    full (at its cap) delays another's next job by one job at most, not by its whole queue
    (first come, first served across accounts let one account's queue run before
    anyone else's)."""
    running = jobs.alias("running")
    return (
        sa.select(sa.func.count())
        .select_from(running)
        .where(
            running.c.account == jobs.c.account,
            running.c.status == "running",
            running.c.kind.in_(list(kinds)),
        )
        .scalar_subquery()
    )


def _held(job_id: str, worker: str) -> sa.ColumnElement[bool]:
    t = jobs
    return sa.and_(t.c.id == job_id, t.c.worker == worker, t.c.status == "running")


def job_held(conn: Connection, job_id: str, worker: str) -> bool:
    """Whether ``worker`` still holds the running job ``job_id``, read in the caller's
    write transaction (on PostgreSQL the row stays locked until it ends): a handler's
    last write can be kept from committing once its job was ended under it (interrupted,
    taken over)."""
    t = jobs
    q = sa.select(t.c.id).where(_held(job_id, worker))
    if conn.dialect.name == "postgresql":
        q = q.with_for_update()
    return conn.execute(q).first() is not None


def _same_active(shared: bool) -> sa.Select[Any]:
    """The oldest active job of the kind (``:kind``), of the owner (``:owner``) unless
    ``shared``."""
    t = jobs
    same = [t.c.kind == sa.bindparam("kind"), t.c.status.in_(ACTIVE)]
    if not shared:
        same.append(t.c.owner == sa.bindparam("owner"))
    return sa.select(t).where(*same).order_by(t.c.created_at, t.c.id).limit(1)


def _active_of() -> sa.Select[Any]:
    """How many jobs charged to ``:account`` are active at ``:now``."""
    t = jobs
    # a bound job whose holder is gone (its lease ran out) has ended, though no read has
    # recorded it yet (:meth:`JobsRepo.abandon`): not an active job of the account
    gone = sa.and_(
        t.c.bound.is_not(None),
        t.c.status == "running",
        t.c.lease_until.is_not(None),
        t.c.lease_until < sa.bindparam("now"),
    )
    return (
        sa.select(sa.func.count())
        .select_from(t)
        .where(t.c.account == sa.bindparam("account"), t.c.status.in_(ACTIVE), sa.not_(gone))
    )


#: what queueing a job runs, built once and bound at execution (constructing a statement
#: and its cache key cost more than running it); the insert returns the row it made
_SAME_ACTIVE: Final = {shared: _same_active(shared) for shared in (False, True)}
_ACTIVE_OF: Final = _active_of()
_MARK_RERUN: Final = (
    sa.update(jobs)
    .where(jobs.c.id == sa.bindparam("job_id"), jobs.c.status.in_(ACTIVE))
    .values(rerun_requested=True)
    .returning(*jobs.c)
)
_INSERT: Final = sa.insert(jobs).returning(*jobs.c)
_BY_ID: Final = sa.select(jobs).where(jobs.c.id == sa.bindparam("id"))


class JobsRepo:
    """The jobs table of one store."""

    def __init__(self, store: Store, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.store = store
        self.clock = clock

    def insert(
        self,
        *,
        job_id: str,
        kind: str,
        owner: str,
        params: dict[str, Any],
        reuse_active: bool,
        max_active: int,
        shared: bool = False,
        account: str | None = None,
        hold: tuple[str, float, str | None] | None = None,
        rerun_reused: bool = False,
    ) -> tuple[JobRow | None, int]:
        """Queue a job: ``(row, active)`` with the owner's count of active jobs before.
        With ``reuse_active`` an active job of the same kind and owner is returned instead
        of a new one; with ``shared`` too, an active job of the same kind of *any* owner (one
        such job at a time across the deployment: a resource every account shares). An
        owner with ``max_active`` active jobs gets ``(None, active)``. ``account`` (default:
        the owner) is who the job is charged to: the cap counts the active jobs charged to
        it, whatever their owner (a chat session's, a Study's). One transaction,
        serialised per owner and account (and per kind when ``shared``), so both hold
        across processes.

        A ``shared`` job reused (or any job reused with ``rerun_reused``) is marked
        ``rerun_requested`` in the same transaction: the
        request may bring work its handler has already listed past, so its finish puts it
        back in the queue (:meth:`end`) unless the handler lists again first
        (:meth:`listing`). Should the job end between this transaction's read and its mark
        (PostgreSQL: the mark's update re-reads the row), a new job is queued instead.

        ``hold`` (``worker, lease_until, bound``): the new job is inserted already
        ``running``, held by ``worker`` (its first attempt) — claimed in this transaction,
        so no other worker can take it first; ``bound`` (a message) keeps every other
        worker from ever taking it over (:meth:`abandon` ends it)."""
        account = account or owner
        with self.store.write() as conn:
            if shared:  # the kind's lock first, then the owner's: one order, no deadlock
                self.store.lock(conn, _JOBS_LOCK, f"kind:{kind}")
            for key in sorted({owner, f"account:{account}"}):
                self.store.lock(conn, _JOBS_LOCK, key)
            found = None
            if reuse_active or shared:
                same = {"kind": kind} if shared else {"kind": kind, "owner": owner}
                found = conn.execute(_SAME_ACTIVE[shared], same).mappings().first()
            active = int(
                conn.execute(_ACTIVE_OF, {"account": account, "now": self.clock.now()}).scalar_one()
            )
            if found is not None and (shared or rerun_reused):
                marked = conn.execute(_MARK_RERUN, {"job_id": found["id"]})
                found = marked.mappings().first()  # None: it ended meanwhile
            if found is not None:
                return _row(found), active
            if active >= max_active:
                return None, active
            values = {
                "id": job_id,
                "kind": kind,
                "owner": owner,
                "account": account,
                "status": "queued",
                "params": dump_json(params),
                "done": 0,
                "message": "",
                "cancel_requested": False,
                "attempts": 0,
                "created_at": now_iso(self.clock),
            }
            if hold is not None:
                worker, lease_until, bound = hold
                iso = values["created_at"]
                values |= {
                    "status": "running",
                    "worker": worker,
                    "lease_until": lease_until,
                    "attempts": 1,
                    "started_at": iso,
                    "heartbeat_at": iso,
                    "bound": bound,
                }
            return _row(conn.execute(_INSERT, values).mappings().one()), active

    def _get(self, conn: Connection, job_id: str) -> JobRow:
        m = conn.execute(_BY_ID, {"id": job_id}).mappings().one()
        return _row(m)

    def get(self, job_id: str) -> JobRow | None:
        with self.store.read() as conn:
            m = conn.execute(_BY_ID, {"id": job_id}).mappings().first()
            return None if m is None else _row(m)

    def list(self, owner: str, kinds: Sequence[str] | None, limit: int) -> list[JobRow]:
        t = jobs
        q = sa.select(t).where(t.c.owner == owner)
        if kinds is not None:
            q = q.where(t.c.kind.in_(list(kinds)))
        q = q.order_by(t.c.created_at.desc(), t.c.id.desc()).limit(limit)
        with self.store.read() as conn:
            return [_row(m) for m in conn.execute(q).mappings()]

    def active(self, kind: str) -> JobRow | None:
        """The oldest queued or running job of ``kind``, whoever owns it."""
        t = jobs
        q = sa.select(t).where(t.c.kind == kind, t.c.status.in_(ACTIVE))
        with self.store.read() as conn:
            m = conn.execute(q.order_by(t.c.created_at, t.c.id).limit(1)).mappings().first()
            return None if m is None else _row(m)

    def any_active(self, kinds: Sequence[str]) -> bool:
        """Whether a job of ``kinds`` is queued or running, whoever owns it."""
        t = jobs
        q = sa.select(t.c.id).where(
            t.c.kind.in_(list(kinds)), t.c.status.in_(["queued", "running"])
        )
        with self.store.read() as conn:
            return conn.execute(q.limit(1)).first() is not None

    def abandoned(self, kinds: Sequence[str] | None, now: float) -> tuple[JobRow, ...]:
        """Bound jobs (of ``kinds``; ``None``: any) still ``running`` whose lease ran out
        before ``now``: their process is gone, and no other may take them over."""
        t = jobs
        q = sa.select(t).where(
            t.c.bound.is_not(None), t.c.status == "running", t.c.lease_until < now
        )
        if kinds is not None:
            q = q.where(t.c.kind.in_(list(kinds)))
        with self.store.read() as conn:
            return tuple(_row(m) for m in conn.execute(q.order_by(t.c.created_at)).mappings())

    def abandon(
        self, job_id: str, worker: str, now: float, values: dict[str, Any]
    ) -> JobRow | None:
        """End a bound job whose holder ``worker`` let its lease run out (``values``: its
        final state); ``None`` when it is no longer so (renewed, ended, taken)."""
        t = jobs
        with self.store.write() as conn:
            m = (
                conn.execute(
                    sa.update(t)
                    .where(_held(job_id, worker), t.c.bound.is_not(None), t.c.lease_until < now)
                    .values(
                        finished_at=now_iso(self.clock), lease_until=None, current=None, **values
                    )
                    .returning(*t.c)
                )
                .mappings()
                .first()
            )
            return None if m is None else _row(m)

    def end_all(self, ends: Sequence[tuple[str, str, dict[str, Any]]]) -> tuple[JobRow, ...]:
        """Several :meth:`end` of jobs (``job id, worker, values`` each) in ONE transaction:
        each while its worker holds it; the rows ended (a job no longer held is left)."""
        t = jobs
        stamp = {"heartbeat_at": now_iso(self.clock), "lease_until": None}
        out: tuple[JobRow, ...] = ()
        with self.store.write() as conn:
            for job_id, worker, values in ends:
                m = (
                    conn.execute(
                        sa.update(t)
                        .where(_held(job_id, worker))
                        .values(**stamp, **values)
                        .returning(*t.c)
                    )
                    .mappings()
                    .first()
                )
                if m is not None:
                    out += (_row(m),)
        return out

    def request_cancel(self, job_id: str, owner: str, now: float) -> JobRow | None:
        """Cancel a queued job (or a running one whose worker is gone) at once; ask a live
        running job to stop. ``None`` when no such job of ``owner`` exists."""
        t = jobs
        mine = sa.and_(t.c.id == job_id, t.c.owner == owner)
        ended = {"status": "cancelled", "finished_at": now_iso(self.clock), "lease_until": None}
        with self.store.write() as conn:
            conn.execute(
                sa.update(t)
                .where(
                    mine,
                    sa.or_(
                        t.c.status == "queued",
                        sa.and_(t.c.status == "running", t.c.lease_until < now),
                    ),
                )
                .values(cancel_requested=True, **ended)
            )
            conn.execute(
                sa.update(t).where(mine, t.c.status == "running").values(cancel_requested=True)
            )
            m = conn.execute(sa.select(t).where(mine)).mappings().first()
            return None if m is None else _row(m)

    def claim(
        self, kinds: Sequence[str], worker: str, lease_s: float, now: float, max_attempts: int
    ) -> JobRow | None:
        """The oldest claimable job of ``kinds`` (of the accounts with the fewest of them
        running: :func:`_running_of_account`), now held by ``worker`` until
        ``now + lease_s``; ``None`` when there is none. A job whose worker died more than
        ``max_attempts`` times is failed (and one whose cancel was requested is cancelled)
        instead of being handed out again."""
        return self.claim_or_lease_end(kinds, worker, lease_s, now, max_attempts)[0]

    def claim_or_lease_end(
        self, kinds: Sequence[str], worker: str, lease_s: float, now: float, max_attempts: int
    ) -> tuple[JobRow | None, float | None]:
        """As :meth:`claim`, and when no job is claimable now, the earliest time (clock
        seconds) a running job's lease of ``kinds`` runs out (``None``: no job is running)
        — when a worker should look again, short of a job being queued meanwhile. A time
        already past: a lease ran out but no job could be taken (a bound job's, whose
        process is gone: see :meth:`abandoned`)."""
        # an idle queue costs one read statement (on PostgreSQL one round trip, without
        # BEGIN and COMMIT), not the write lock; every idle worker runs it once a poll
        with self.store.read_one() as conn:
            soonest = conn.execute(_SOONEST, {"kinds": list(kinds)}).scalar()
        if soonest is None:
            return None, None
        if float(soonest) >= now:
            return None, float(soonest)
        row = self._claim(kinds, worker, lease_s, now, max_attempts)
        return row, None if row is not None or soonest < 0 else float(soonest)

    def soonest(self, kinds: Sequence[str]) -> dict[str, float]:
        """For each of ``kinds`` with an active job, when one may be claimed: ``-1`` when
        one is queued, else the end of the first running one's lease (clock seconds; a
        kind with no active job is left out). One read statement, as an idle claim's."""
        with self.store.read_one() as conn:
            found = conn.execute(_SOONEST_BY_KIND, {"kinds": list(kinds)}).all()
        return {str(kind): float(when) for kind, when in found if when is not None}

    def _claim(
        self, kinds: Sequence[str], worker: str, lease_s: float, now: float, max_attempts: int
    ) -> JobRow | None:
        t = jobs
        iso = now_iso(self.clock)
        while True:
            with self.store.write() as conn:
                pick = (
                    sa.select(t.c.id)
                    .where(_claimable(kinds, now))
                    .order_by(_running_of_account(kinds), t.c.created_at, t.c.id)
                    .limit(1)
                )
                if self.store.is_postgres:
                    pick = pick.with_for_update(skip_locked=True)
                m = (
                    conn.execute(
                        sa.update(t)
                        .where(t.c.id == pick.scalar_subquery(), _claimable(kinds, now))
                        .values(
                            status="running",
                            worker=worker,
                            lease_until=now + lease_s,
                            attempts=t.c.attempts + 1,
                            started_at=sa.func.coalesce(t.c.started_at, iso),
                            heartbeat_at=iso,
                        )
                        .returning(*t.c)
                    )
                    .mappings()
                    .first()
                )
                if m is None:
                    return None
                row = _row(m)
                if row.cancel_requested:
                    end: dict[str, Any] = {"status": "cancelled"}
                elif row.attempts > max_attempts:
                    end = {
                        "status": "failed",
                        "message": f"the job's worker stopped {row.attempts - 1} times "
                        "without finishing it; not tried again",
                    }
                else:
                    return row
                conn.execute(
                    sa.update(t)
                    .where(t.c.id == row.id)
                    .values(finished_at=iso, lease_until=None, **end)
                )

    def progress(
        self, job_id: str, worker: str, values: dict[str, Any], lease_until: float
    ) -> bool | None:
        """Record progress and renew the lease; ``None`` when ``worker`` no longer holds
        the job, else whether a cancel was requested."""
        t = jobs
        with self.store.write() as conn:
            m = conn.execute(
                sa.update(t)
                .where(_held(job_id, worker))
                .values(heartbeat_at=now_iso(self.clock), lease_until=lease_until, **values)
                .returning(t.c.cancel_requested)
            ).first()
            return None if m is None else bool(m[0])

    def listing(self, job_id: str, worker: str) -> bool:
        """The handler of ``job_id`` is about to list its work: clear its rerun mark (the
        listing sees what the requests before it brought). Whether ``worker`` holds it."""
        t = jobs
        with self.store.write() as conn:
            done = conn.execute(
                sa.update(t).where(_held(job_id, worker)).values(rerun_requested=False)
            )
            return bool(done.rowcount)

    def end(
        self, job_id: str, worker: str, values: dict[str, Any], *, unless_rerun: bool = False
    ) -> JobRow | None:
        """Set a final (or released: ``status="queued"``) state while ``worker`` holds the
        job; ``None`` when it no longer does. With ``unless_rerun`` (a finish), a job marked
        ``rerun_requested`` goes back to the queue instead, unmarked, its attempt not
        counted (its checkpoint kept for the next claim): one transaction, and the mark is
        set only under the row's lock too, so a request either is seen here or finds the
        job ended (:meth:`insert`)."""
        t = jobs
        stamp = {"heartbeat_at": now_iso(self.clock), "lease_until": None}
        with self.store.write() as conn:
            held = _held(job_id, worker)
            if unless_rerun:
                held = sa.and_(held, t.c.rerun_requested == sa.false())
            m = (
                conn.execute(sa.update(t).where(held).values(**stamp, **values).returning(*t.c))
                .mappings()
                .first()
            )
            if m is None and unless_rerun:
                again = {
                    "status": "queued",
                    "worker": None,
                    "current": None,
                    "rerun_requested": False,
                    "attempts": t.c.attempts - 1,
                }
                m = (
                    conn.execute(
                        sa.update(t)
                        .where(_held(job_id, worker), t.c.rerun_requested == sa.true())
                        .values(**stamp, **again)
                        .returning(*t.c)
                    )
                    .mappings()
                    .first()
                )
            return None if m is None else _row(m)
