"""Store gates (migration 0003): a minimum gap between calls, atomic across processes.

``take_gate`` opens the gate for one call when the last one is at least ``gap`` seconds
ago and records the call; ``give_back`` restores the previous time when the call was not
made after all (a refused daily allowance must not close the gate, reference defect 10).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Final

import sqlalchemy as sa

from litdesk._errors import LitdeskError

from ._engine import Store

__all__ = ["GateAnswer", "give_back", "search_gates", "take_gate"]

_GATE_LOCK: Final = 1909102029

search_gates = sa.Table(
    "search_gates",
    sa.MetaData(),
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("last_at", sa.Float, nullable=False),
)


@dataclass(frozen=True, slots=True)
class GateAnswer:
    """``allowed``; else ``retry_after`` seconds (``None`` with ``store_unavailable``)."""

    allowed: bool
    reason: str
    taken_at: float | None = None
    previous: float | None = None
    retry_after: int | None = None


def take_gate(store: Store, name: str, gap: float, *, now: float | None = None) -> GateAnswer:
    t = time.time() if now is None else now
    try:
        with store.write() as conn:
            store.lock(conn, _GATE_LOCK, name)
            row = conn.execute(
                sa.select(search_gates.c.last_at).where(search_gates.c.name == name)
            ).first()
            previous = None if row is None else float(row.last_at)
            if previous is not None and t - previous < gap:
                wait = max(1, math.ceil(gap - (t - previous)))
                return GateAnswer(False, "rate_limited", retry_after=wait)
            if row is None:
                conn.execute(sa.insert(search_gates).values(name=name, last_at=t))
            else:
                conn.execute(
                    sa.update(search_gates).where(search_gates.c.name == name).values(last_at=t)
                )
    except (LitdeskError, sa.exc.SQLAlchemyError):
        return GateAnswer(False, "store_unavailable")
    return GateAnswer(True, "ok", taken_at=t, previous=previous)


def give_back(store: Store, name: str, answer: GateAnswer) -> None:
    """Undo ``answer`` if the gate still holds its time (nobody took it since)."""
    if not answer.allowed or answer.taken_at is None:
        return
    with store.write() as conn:
        store.lock(conn, _GATE_LOCK, name)
        where = (search_gates.c.name == name, search_gates.c.last_at == answer.taken_at)
        if answer.previous is None:
            conn.execute(sa.delete(search_gates).where(*where))
        else:
            conn.execute(sa.update(search_gates).where(*where).values(last_at=answer.previous))
