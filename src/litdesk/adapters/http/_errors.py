"""Typed transport errors. Each carries the lane status it maps to; messages are built
from sanitised values only (never a credential)."""

from __future__ import annotations

from typing import Any

from litdesk._errors import ExternalError, NotFoundError, RefusedError
from litdesk.core.search import LaneStatus

__all__ = ["CassetteMiss", "TransportFailed", "TransportRefused"]


class TransportRefused(RefusedError):
    """The transport refused before sending (host, scheme, size, credentials, missing key)."""

    default_code = "transport_refused"

    def __init__(self, message: str, *, lane_status: LaneStatus = "unsupported", **details: Any):
        super().__init__(message, **details)
        self.lane_status: LaneStatus = lane_status


class TransportFailed(ExternalError):
    """The exchange failed: network error, timeout, redirect, oversize body."""

    default_code = "transport_failed"

    def __init__(
        self,
        message: str,
        *,
        lane_status: LaneStatus = "unavailable",
        http_status: int | None = None,
        **details: Any,
    ):
        super().__init__(message, **details)
        self.lane_status: LaneStatus = lane_status
        self.http_status = http_status


class CassetteMiss(NotFoundError):
    """Replay mode: the cassette holds no exchange for this request (nothing is sent)."""

    default_code = "cassette_miss"
