"""HTTP status → lane status, and Retry-After parsing."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

from litdesk.core.search import LaneStatus

__all__ = ["MAX_RETRY_AFTER", "lane_status_for", "parse_retry_after"]

MAX_RETRY_AFTER: Final = 3_600.0


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Retry-After as seconds (delta-seconds or an HTTP date), clamped to 0–3,600."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    seconds: float
    if text.isascii() and text.isdigit():
        seconds = float(int(text[:12]))
    else:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - now).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def lane_status_for(status: int, operation: str) -> tuple[LaneStatus, str]:
    """The lane status and a short reason for a non-2xx HTTP status."""
    if status == 404 and operation == "lookup":
        return "ok", "not found (an empty result for an exact lookup)"
    if status == 429:
        return "rate_limited", "the provider is rate limiting (HTTP 429)"
    if status in {400, 422}:
        return "unsupported", f"the provider rejected the request (HTTP {status})"
    if status in {401, 403}:
        return "unavailable", f"credentials or allowance refused (HTTP {status})"
    if 300 <= status < 400:
        return (
            "unavailable",
            f"the provider answered with a redirect (HTTP {status}); redirects are refused",
        )
    if status >= 500:
        return "unavailable", f"the provider failed (HTTP {status})"
    return "unavailable", f"unexpected HTTP status {status}"
