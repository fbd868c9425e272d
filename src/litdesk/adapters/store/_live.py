"""Live search state and citation listings in the store (issue 17), so that every worker of
a team server sees what another worker started or showed.

A **live search** row holds its owner, state (``running``, ``done``, ``failed``,
``cancelled``), lanes (JSON, one object per lane with at least ``lane`` and ``status``),
message, code, run id, a small context document (what the result view needs), a version
that grows on every change, the cancel request and its times (epoch seconds). The worker
running the search writes each lane and the end state and beats while its lanes run; any
worker reads it. A ``running`` row whose last beat is older than ``stale`` seconds is ended
as ``failed`` by the next reader (its worker stopped). Bounded: at most ``limit`` rows per
owner (the oldest finished make room; running ones are never dropped) and finished (or
long-silent) rows are deleted ``keep`` seconds after they last changed, lazily on writes.

A **citation listing** row holds the papers a page showed (their JSON documents) under an
unguessable id: at most ``keep`` per owner (the oldest dropped), ``max_age`` seconds each,
``MAX_LISTING_BYTES`` at most.

Reads never return another owner's row: it is answered as not found.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError, RefusedError

from ._engine import Store, StoredDataInvalid, dump_json, load_json
from ._recent import _epoch, _key  # the same owner-key check and clock as the recent runs
from ._schema import citation_listings, live_searches

__all__ = [
    "LISTING_MAX_AGE",
    "LISTINGS_PER_OWNER",
    "LIVE_KEEP_SECONDS",
    "LIVE_PER_OWNER",
    "LIVE_STALE_SECONDS",
    "LIVE_STOPPED",
    "MAX_LISTING_BYTES",
    "LiveRow",
    "LiveState",
    "count_listings",
    "count_live",
    "get_listing",
    "live_beat",
    "live_cancel",
    "live_create",
    "live_finish",
    "live_lane",
    "live_read",
    "live_should_stop",
    "remember_listing",
]

LiveState = Literal["running", "done", "failed", "cancelled"]
_STATES: Final = frozenset({"running", "done", "failed", "cancelled"})

#: live searches kept per owner (running and finished)
LIVE_PER_OWNER: Final = 100
#: a finished live search is deleted this long after it finished (seconds)
LIVE_KEEP_SECONDS: Final = 600.0
#: a running search whose worker has not beaten for this long is reported failed
LIVE_STALE_SECONDS: Final = 30.0
#: the message of a search whose worker stopped
LIVE_STOPPED: Final = "the server handling this search stopped; search again"
#: citation listings kept per owner
LISTINGS_PER_OWNER: Final = 200
#: a citation listing is dropped this long after it was shown (seconds)
LISTING_MAX_AGE: Final = 86_400.0
#: largest stored citation listing (bytes of JSON)
MAX_LISTING_BYTES: Final = 5_000_000
_MAX_LANES_BYTES: Final = 200_000
_LIVE_LOCK: Final = 1909102051
_LISTING_LOCK: Final = 1909102052
_CANCELLED: Final = "The search was cancelled; its lanes were stopped."


def _not_found() -> NotFoundError:
    return NotFoundError(
        "that live search is not open here (finished long ago, or never started)",
        code="live_not_found",
    )


@dataclass(frozen=True, slots=True)
class LiveRow:
    """One live search as stored."""

    id: str
    owner: str
    state: LiveState
    lanes: list[dict[str, Any]]
    message: str
    code: str
    run_id: str | None
    context: dict[str, Any] = field(default_factory=dict)
    version: int = 0
    cancel_requested: bool = False
    started_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None

    @property
    def final(self) -> bool:
        return self.state != "running"


def _lanes_text(lanes: Sequence[Mapping[str, Any]]) -> str:
    text = dump_json([dict(lane) for lane in lanes])
    if len(text.encode("utf-8")) > _MAX_LANES_BYTES:
        raise InputError("a live search's lanes are too large to keep", code="too_large")
    return text


def _object_list(text: object, what: str) -> list[dict[str, Any]]:
    value = load_json(text, what=what)
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise StoredDataInvalid(f"stored {what} is not a list of objects")
    return cast(list[dict[str, Any]], value)


def _row(r: Any) -> LiveRow:
    context = load_json(r.context, what="live search context")
    if not isinstance(context, dict):
        raise StoredDataInvalid("stored live search context is not an object")
    if r.state not in _STATES:
        raise StoredDataInvalid(f"stored live search state {str(r.state)[:20]!r} is unknown")
    return LiveRow(
        id=r.id,
        owner=r.owner,
        state=r.state,
        lanes=_object_list(r.lanes, "live search lanes"),
        message=r.message,
        code=r.code,
        run_id=r.run_id,
        context=context,
        version=int(r.version),
        cancel_requested=bool(r.cancel_requested),
        started_at=float(r.started_at),
        updated_at=float(r.updated_at),
        finished_at=None if r.finished_at is None else float(r.finished_at),
    )


def _select(conn: Connection, live_id: str, *, lock: bool = False) -> Any:
    query = sa.select(live_searches).where(live_searches.c.id == live_id)
    if lock:
        query = query.with_for_update()
    return conn.execute(query).first()


def _expire(conn: Connection, t: float, keep: float, stale: float) -> None:
    """Delete every finished row older than ``keep`` and every row silent for as long
    beyond the stale bound (a dead worker's)."""
    conn.execute(
        sa.delete(live_searches).where(
            live_searches.c.state != "running", live_searches.c.updated_at < t - keep
        )
    )
    conn.execute(
        sa.delete(live_searches).where(
            live_searches.c.state == "running",
            live_searches.c.updated_at < t - keep - stale,
        )
    )


def live_create(
    store: Store,
    owner: str,
    lanes: Sequence[Mapping[str, Any]],
    *,
    context: Mapping[str, Any] | None = None,
    now: float | None = None,
    limit: int = LIVE_PER_OWNER,
    keep: float = LIVE_KEEP_SECONDS,
    stale: float = LIVE_STALE_SECONDS,
) -> LiveRow:
    """Start ``owner``'s live search (state ``running``, under a new unguessable id). When
    the owner has ``limit`` searches the oldest finished one (or silent beyond ``stale``)
    makes room; when all are running: :class:`RefusedError` ``live_full``."""
    _key(owner, "owner", 200)
    if limit < 1:
        raise InputError("keep at least one live search", code="bad_argument")
    t = _epoch(now)
    lanes_text = _lanes_text(lanes)
    context_text = dump_json(dict(context or {}))
    with store.write() as conn:
        store.lock(conn, _LIVE_LOCK, owner)  # concurrent workers keep the bound exact
        _expire(conn, t, keep, stale)
        rows = conn.execute(
            sa.select(live_searches.c.id, live_searches.c.state, live_searches.c.updated_at)
            .where(live_searches.c.owner == owner)
            .order_by(live_searches.c.started_at, live_searches.c.id)
        ).all()
        excess = len(rows) - limit + 1
        if excess > 0:
            droppable = [r.id for r in rows if r.state != "running" or r.updated_at < t - stale][
                :excess
            ]
            if len(droppable) < excess:
                raise RefusedError(
                    f"{limit} searches are running already; wait for one or cancel one",
                    code="live_full",
                )
            conn.execute(sa.delete(live_searches).where(live_searches.c.id.in_(droppable)))
        live_id = secrets.token_urlsafe(24)
        conn.execute(
            sa.insert(live_searches).values(
                id=live_id,
                owner=owner,
                state="running",
                lanes=lanes_text,
                message="",
                code="",
                run_id=None,
                context=context_text,
                version=0,
                cancel_requested=False,
                started_at=t,
                updated_at=t,
                finished_at=None,
            )
        )
    return LiveRow(
        live_id,
        owner,
        "running",
        _object_list(lanes_text, "live search lanes"),
        "",
        "",
        None,
        dict(context or {}),
        started_at=t,
        updated_at=t,
    )


def live_read(
    store: Store,
    live_id: str,
    owner: str,
    *,
    now: float | None = None,
    stale: float = LIVE_STALE_SECONDS,
) -> LiveRow:
    """``owner``'s live search ``live_id``; another owner's or an unknown one is not found
    (``live_not_found``). A running search whose worker has been silent for ``stale``
    seconds is ended as failed first (``live_stopped``)."""
    with store.read() as conn:
        r = _select(conn, live_id)
    if r is None or not secrets.compare_digest(str(r.owner), owner):
        raise _not_found()
    row = _row(r)
    t = _epoch(now)
    if row.state == "running" and row.updated_at < t - stale:
        with store.write() as conn:
            conn.execute(
                sa.update(live_searches)
                .where(
                    live_searches.c.id == live_id,
                    live_searches.c.state == "running",
                    live_searches.c.updated_at < t - stale,
                )
                .values(
                    state="failed",
                    message=LIVE_STOPPED,
                    code="live_stopped",
                    lanes=_lanes_text(_end_lanes(row.lanes, "failed", LIVE_STOPPED)),
                    version=live_searches.c.version + 1,
                    updated_at=t,
                    finished_at=t,
                )
            )
            r = _select(conn, live_id)
        if r is None:
            raise _not_found()
        row = _row(r)
    return row


def _end_lanes(lanes: list[dict[str, Any]], state: str, message: str) -> list[dict[str, Any]]:
    """Lanes still ``running`` when a search ends take its end (``cancelled``/``failed``)."""
    if state == "done":
        return lanes
    out = []
    for lane in lanes:
        if lane.get("status") == "running":
            lane = lane | {
                "status": state,
                "message": "stopped: the search was cancelled" if state == "cancelled" else message,
            }
        out.append(lane)
    return out


def live_lane(
    store: Store, live_id: str, lane: Mapping[str, Any], *, now: float | None = None
) -> bool:
    """A lane of a running search finished: its row (matched by ``lane``) takes the result.
    Answers whether the search should stop (cancel requested, ended or gone)."""
    name = lane.get("lane")
    if not isinstance(name, str):
        raise InputError("a lane needs its name", code="bad_argument")
    with store.write() as conn:
        r = _select(conn, live_id, lock=True)
        if r is None:
            return True
        if r.state != "running" or r.cancel_requested:
            return True
        lanes = _object_list(r.lanes, "live search lanes")
        for i, old in enumerate(lanes):
            if old.get("lane") == name:
                lanes[i] = dict(lane)
                break
        else:
            lanes.append(dict(lane))
        conn.execute(
            sa.update(live_searches)
            .where(live_searches.c.id == live_id)
            .values(
                lanes=_lanes_text(lanes),
                version=live_searches.c.version + 1,
                updated_at=_epoch(now),
            )
        )
    return False


def live_beat(store: Store, live_id: str, *, now: float | None = None) -> bool:
    """The running worker is alive (its lanes still run). Answers whether to stop."""
    with store.write() as conn:
        done = conn.execute(
            sa.update(live_searches)
            .where(
                live_searches.c.id == live_id,
                live_searches.c.state == "running",
                live_searches.c.cancel_requested == sa.false(),
            )
            .values(updated_at=_epoch(now))
        )
    return done.rowcount == 0


def live_should_stop(store: Store, live_id: str) -> bool:
    """Whether the running worker should stop the search (cancel requested, ended, gone)."""
    with store.read() as conn:
        r = conn.execute(
            sa.select(live_searches.c.state, live_searches.c.cancel_requested).where(
                live_searches.c.id == live_id
            )
        ).first()
    return r is None or r.state != "running" or bool(r.cancel_requested)


def live_finish(
    store: Store,
    live_id: str,
    state: LiveState,
    *,
    message: str = "",
    code: str = "",
    run_id: str | None = None,
    lanes: Sequence[Mapping[str, Any]] | None = None,
    now: float | None = None,
) -> LiveRow | None:
    """End a running search (a finished one is left as it is): its state, message, code,
    run id and (when given) lanes; lanes still running take the end. ``None`` when the
    row is gone."""
    if state == "running":
        raise InputError("a search ends done, failed or cancelled", code="bad_argument")
    t = _epoch(now)
    with store.write() as conn:
        r = _select(conn, live_id, lock=True)
        if r is None:
            return None
        if r.state == "running":
            stored = _object_list(r.lanes, "live search lanes")
            if lanes is not None:
                by_name = {lane.get("lane"): dict(lane) for lane in lanes}
                stored = [by_name.pop(old.get("lane"), old) for old in stored]
                stored.extend(by_name.values())
            conn.execute(
                sa.update(live_searches)
                .where(live_searches.c.id == live_id)
                .values(
                    state=state,
                    message=message[:2_000],
                    code=code[:80],
                    run_id=run_id,
                    lanes=_lanes_text(_end_lanes(stored, state, message)),
                    version=live_searches.c.version + 1,
                    updated_at=t,
                    finished_at=t,
                )
            )
            r = _select(conn, live_id)
    return None if r is None else _row(r)


def live_cancel(store: Store, live_id: str, owner: str, *, now: float | None = None) -> LiveRow:
    """Cancel ``owner``'s running search: it shows ``cancelled`` at once and the worker
    running it stops its lanes when it sees the request. A finished one is left as it is;
    another owner's is not found."""
    t = _epoch(now)
    with store.write() as conn:
        r = _select(conn, live_id, lock=True)
        if r is None or not secrets.compare_digest(str(r.owner), owner):
            raise _not_found()
        if r.state == "running":
            lanes = _end_lanes(_object_list(r.lanes, "live search lanes"), "cancelled", "")
            conn.execute(
                sa.update(live_searches)
                .where(live_searches.c.id == live_id)
                .values(
                    state="cancelled",
                    message=_CANCELLED,
                    code="",
                    cancel_requested=True,
                    lanes=_lanes_text(lanes),
                    version=live_searches.c.version + 1,
                    updated_at=t,
                    finished_at=t,
                )
            )
            r = _select(conn, live_id)
    if r is None:
        raise _not_found()
    return _row(r)


def count_live(store: Store, owner: str) -> int:
    """How many live searches ``owner`` has stored (expired ones not yet deleted included)."""
    with store.read() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count())
                .select_from(live_searches)
                .where(live_searches.c.owner == owner)
            ).scalar_one()
        )


# --- citation listings ------------------------------------------------------------------------


def remember_listing(
    store: Store,
    owner: str,
    papers: Sequence[Mapping[str, Any]],
    *,
    now: float | None = None,
    keep: int = LISTINGS_PER_OWNER,
    max_age: float = LISTING_MAX_AGE,
    max_bytes: int = MAX_LISTING_BYTES,
) -> str:
    """Keep the paper documents a page showed ``owner`` under a new unguessable id; then
    drop the owner's listings beyond the newest ``keep`` and everyone's older than
    ``max_age`` — one transaction."""
    _key(owner, "owner", 200)
    if keep < 1:
        raise InputError("keep at least one citation listing", code="bad_argument")
    text = dump_json([dict(p) for p in papers])
    if len(text.encode("utf-8")) > max_bytes:
        raise InputError(f"a citation list is over {max_bytes:,} bytes", code="too_large")
    t = _epoch(now)
    key = secrets.token_urlsafe(18)
    with store.write() as conn:
        store.lock(conn, _LISTING_LOCK, owner)
        conn.execute(
            sa.insert(citation_listings).values(id=key, owner=owner, papers=text, created_at=t)
        )
        conn.execute(
            sa.delete(citation_listings).where(citation_listings.c.created_at < t - max_age)
        )
        newest = (
            sa.select(citation_listings.c.id)
            .where(citation_listings.c.owner == owner)
            .order_by(citation_listings.c.created_at.desc(), citation_listings.c.id.desc())
            .limit(keep)
        )
        conn.execute(
            sa.delete(citation_listings).where(
                citation_listings.c.owner == owner,
                citation_listings.c.id.not_in(newest.scalar_subquery()),
            )
        )
    return key


def get_listing(
    store: Store,
    owner: str,
    key: str,
    *,
    now: float | None = None,
    max_age: float = LISTING_MAX_AGE,
) -> list[dict[str, Any]]:
    """The paper documents of ``owner``'s listing ``key``; another owner's, an expired or
    an unknown one is not open (``listing_not_open``)."""
    with store.read() as conn:
        r = conn.execute(
            sa.select(citation_listings.c.owner, citation_listings.c.papers).where(
                citation_listings.c.id == key,
                citation_listings.c.created_at >= _epoch(now) - max_age,
            )
        ).first()
    if r is None or not secrets.compare_digest(str(r.owner), owner):
        raise NotFoundError(
            "that citation list is no longer open here; show it again", code="listing_not_open"
        )
    return _object_list(r.papers, "citation listing")


def count_listings(store: Store, owner: str) -> int:
    """How many citation listings ``owner`` has stored."""
    with store.read() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count())
                .select_from(citation_listings)
                .where(citation_listings.c.owner == owner)
            ).scalar_one()
        )
