"""Deduplication history rows of a Study (append-only; see ``_schema.dedup_history``) and
its finished runs with their review queue (``_schema.dedup_runs``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._engine import StoredDataInvalid, dump_json, load_json
from ._schema import dedup_history, dedup_run_pairs, dedup_runs

__all__ = [
    "KEEP_RUNS",
    "DedupEntry",
    "DedupPairRow",
    "DedupRunRow",
    "add_dedup_entry",
    "add_dedup_run",
    "dedup_run_exists",
    "dedup_run_pair",
    "dedup_run_pair_no",
    "get_dedup_run",
    "latest_dedup_run",
    "list_dedup_entries",
    "list_dedup_run_pairs",
]

#: Finished runs kept per Study (the newest); the review shows the latest one.
KEEP_RUNS: Final = 3

_KINDS = frozenset({"decision", "run"})
_DECISIONS = frozenset({"merge", "distinct", "undone"})


@dataclass(frozen=True, slots=True)
class DedupEntry:
    seq: int
    kind: str
    a_digest: str | None
    b_digest: str | None
    decision: str | None
    data: dict[str, Any]
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "a": self.a_digest,
            "b": self.b_digest,
            "decision": self.decision,
            "data": self.data,
            "created_at": self.created_at,
        }


def add_dedup_entry(
    conn: Connection,
    study_id: str,
    kind: str,
    data: dict[str, Any],
    now: str,
    *,
    a_digest: str | None = None,
    b_digest: str | None = None,
    decision: str | None = None,
) -> int:
    """Append one history entry; returns its sequence number."""
    if kind not in _KINDS:
        raise ValueError(f"unknown dedup history kind {kind!r}")
    if kind == "decision" and (decision not in _DECISIONS or not a_digest or not b_digest):
        raise ValueError("a decision entry names two record digests and merge|distinct|undone")
    result = conn.execute(
        sa.insert(dedup_history).values(
            study_id=study_id,
            kind=kind,
            a_digest=a_digest,
            b_digest=b_digest,
            decision=decision,
            data=dump_json(data),
            created_at=now,
        )
    )
    key = result.inserted_primary_key
    return int(key[0]) if key else 0


def list_dedup_entries(conn: Connection, study_id: str) -> list[DedupEntry]:
    """Every history entry of the Study, oldest first (validated on read)."""
    rows = conn.execute(
        sa.select(dedup_history)
        .where(dedup_history.c.study_id == study_id)
        .order_by(dedup_history.c.seq)
    )
    out = []
    for r in rows:
        data = load_json(r.data, what="dedup history entry")
        if not isinstance(data, dict) or r.kind not in _KINDS:
            raise StoredDataInvalid(f"dedup history entry {r.seq} is malformed")
        out.append(
            DedupEntry(r.seq, r.kind, r.a_digest, r.b_digest, r.decision, data, r.created_at)
        )
    return out


@dataclass(frozen=True, slots=True)
class DedupRunRow:
    """A finished run of a Study: its id (its job's), who started it, when, its data."""

    id: str
    study_id: str
    owner: str
    data: dict[str, Any]
    created_at: str


@dataclass(frozen=True, slots=True)
class DedupPairRow:
    """One pair of a stored run's review queue: its place, its key, its document."""

    no: int
    keys: tuple[str, str]
    data: dict[str, Any]


def dedup_run_exists(conn: Connection, run_id: str) -> bool:
    q = sa.select(dedup_runs.c.id).where(dedup_runs.c.id == run_id)
    return conn.execute(q).first() is not None


def add_dedup_run(
    conn: Connection,
    run_id: str,
    study_id: str,
    owner: str,
    data: dict[str, Any],
    pairs: Sequence[DedupPairRow] = (),
    *,
    keep: int = KEEP_RUNS,
) -> None:
    """Store a finished run and its review queue, stamped now to the microsecond (the
    newest is the Study's latest); the Study's runs beyond the newest ``keep`` are dropped
    (their pairs with them). The caller holds the Study's lock and has checked that
    ``run_id`` is not stored yet."""
    now = datetime.now(UTC).isoformat(timespec="microseconds")
    conn.execute(
        sa.insert(dedup_runs).values(
            id=run_id, study_id=study_id, owner=owner, data=dump_json(data), created_at=now
        )
    )
    if pairs:
        conn.execute(
            sa.insert(dedup_run_pairs),
            [
                {
                    "run_id": run_id,
                    "no": p.no,
                    "a_key": p.keys[0],
                    "b_key": p.keys[1],
                    "data": dump_json(p.data),
                }
                for p in pairs
            ],
        )
    t = dedup_runs
    kept = (
        sa.select(t.c.id)
        .where(t.c.study_id == study_id)
        .order_by(t.c.created_at.desc(), t.c.id.desc())
        .limit(keep)
    )
    gone = sa.select(t.c.id).where(t.c.study_id == study_id, t.c.id.not_in(kept))
    conn.execute(sa.delete(dedup_run_pairs).where(dedup_run_pairs.c.run_id.in_(gone)))
    conn.execute(sa.delete(t).where(t.c.study_id == study_id, t.c.id.not_in(kept)))


def _run_row(r: sa.Row[Any]) -> DedupRunRow:
    data = load_json(r.data, what="dedup run")
    if not isinstance(data, dict):
        raise StoredDataInvalid(f"dedup run {r.id} is malformed")
    return DedupRunRow(r.id, r.study_id, r.owner, data, r.created_at)


def get_dedup_run(conn: Connection, run_id: str) -> DedupRunRow | None:
    """The stored run ``run_id``, or ``None``."""
    r = conn.execute(sa.select(dedup_runs).where(dedup_runs.c.id == run_id)).first()
    return None if r is None else _run_row(r)


def latest_dedup_run(conn: Connection, study_id: str) -> DedupRunRow | None:
    """The Study's newest finished run (whoever started it), or ``None``."""
    t = dedup_runs
    r = conn.execute(
        sa.select(t)
        .where(t.c.study_id == study_id)
        .order_by(t.c.created_at.desc(), t.c.id.desc())
        .limit(1)
    ).first()
    return None if r is None else _run_row(r)


def _pair_row(r: sa.Row[Any]) -> DedupPairRow:
    data = load_json(r.data, what="dedup run pair")
    if not isinstance(data, dict):
        raise StoredDataInvalid(f"pair {r.no} of dedup run {r.run_id} is malformed")
    return DedupPairRow(int(r.no), (r.a_key, r.b_key), data)


def list_dedup_run_pairs(conn: Connection, run_id: str) -> list[DedupPairRow]:
    """The run's review queue in its order."""
    t = dedup_run_pairs
    rows = conn.execute(sa.select(t).where(t.c.run_id == run_id).order_by(t.c.no))
    return [_pair_row(r) for r in rows]


def dedup_run_pair(conn: Connection, run_id: str, no: int) -> DedupPairRow | None:
    """Pair ``no`` of the run's review queue, or ``None``."""
    t = dedup_run_pairs
    r = conn.execute(sa.select(t).where(t.c.run_id == run_id, t.c.no == no)).first()
    return None if r is None else _pair_row(r)


def dedup_run_pair_no(conn: Connection, run_id: str, keys: tuple[str, str]) -> int | None:
    """The place in the run's queue of the pair of the records ``keys`` (sorted)."""
    t = dedup_run_pairs
    q = sa.select(t.c.no).where(t.c.run_id == run_id, t.c.a_key == keys[0], t.c.b_key == keys[1])
    found = conn.execute(q.order_by(t.c.no).limit(1)).first()
    return None if found is None else int(found[0])
