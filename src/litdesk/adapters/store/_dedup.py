"""Deduplication history rows of a Study (append-only; see ``_schema.dedup_history``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._engine import dump_json, load_json
from ._schema import dedup_history

__all__ = ["DedupEntry", "add_dedup_entry", "list_dedup_entries"]

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
            from ._engine import StoredDataInvalid

            raise StoredDataInvalid(f"dedup history entry {r.seq} is malformed")
        out.append(
            DedupEntry(r.seq, r.kind, r.a_digest, r.b_digest, r.decision, data, r.created_at)
        )
    return out
