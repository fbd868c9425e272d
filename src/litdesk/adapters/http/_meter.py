"""The meter seam: every network call is reserved before it is sent.

There is one meter in production, :class:`~litdesk.adapters.http.StoreMeter`: the store's
allowance (per provider, per owner, per UTC day; shared by every process on the store).
Every accepted reservation counts, including calls that then fail upstream. Replays and
evidence-cache hits send nothing and are free.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["Meter"]


class Meter(Protocol):
    """Reserves one call before it is sent, or raises ``TransportRefused``
    (``budget_exhausted`` / ``rate_limited``)."""

    def reserve(self, provider: str, *, lane: str = "") -> None: ...
