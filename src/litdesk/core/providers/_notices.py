"""A failed lane told to a person: what happened and what to do, in plain words.

Built from a lane's fields (its status, its name, the seconds to wait, and the technical
message the transport wrote, whose wording litdesk controls): ``Europe PMC did not answer
in 20 seconds. Try again, or search the other databases.`` The technical message stays
beside it for the folded details and the JSON API."""

from __future__ import annotations

import re
from typing import Final

from ._registry import LANE_PROVIDER, display_name, lane_label

__all__ = ["lane_notice", "status_words", "wait_words"]

_OTHERS: Final = "search the other databases"
_SECONDS: Final = re.compile(r"within (\d+(?:\.\d+)?) s\b")
_HTTP: Final = re.compile(r"\(HTTP (\d{3})\)")


_STATUS_WORDS: Final = {
    "ok": "answered",
    "running": "searching…",
    "cancelled": "cancelled",
    "rate_limited": "too many searches",
    "budget_exhausted": "allowance used up",
    "timeout": "no answer in time",
    "unavailable": "not available",
    "unsupported": "cannot run this query",
    "parse_error": "answer not readable",
}


def status_words(status: str) -> str:
    """A lane's status in a few words (``timeout`` → ``no answer in time``)."""
    return _STATUS_WORDS.get(status, status.replace("_", " "))


def wait_words(seconds: float | None) -> str:
    """``in 30 seconds``, ``in 2 minutes``, ``in 3 hours``; ``later`` when not known."""
    if seconds is None or seconds <= 0:
        return "later"
    if seconds < 90:
        n = max(1, round(seconds))
        return f"in {n} second{'s' if n != 1 else ''}"
    if seconds < 90 * 60:
        n = round(seconds / 60)
        return f"in {n} minute{'s' if n != 1 else ''}"
    n = round(seconds / 3600)
    return f"in {n} hour{'s' if n != 1 else ''}"


def _without_prefix(message: str, provider: str) -> str:
    """The transport's message without its ``provider:`` prefix, as a clause."""
    text = message.strip()
    for prefix in (f"{provider}:", f"{provider} :"):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    return text.rstrip(".")


def lane_notice(
    status: str, lane: str, *, message: str = "", retry_after: float | None = None
) -> str:
    """One sentence (two at most) for a lane that did not answer with results; ``""`` for
    a lane that answered (its warnings say the rest), runs or was cancelled."""
    if status in ("ok", "running", "cancelled"):
        return ""
    provider = LANE_PROVIDER.get(lane, lane.split("-", 1)[0])
    name = display_name(provider)
    detail = _without_prefix(message, provider)
    if status == "timeout":
        found = _SECONDS.search(message)
        limit = f"in {found.group(1).removesuffix('.0')} seconds" if found else "in time"
        return f"{name} did not answer {limit}. Try again, or {_OTHERS}."
    if status == "rate_limited":
        return (
            f"{name} is receiving too many searches just now. "
            f"Try again {wait_words(retry_after)}, or {_OTHERS}."
        )
    if status == "budget_exhausted":
        if "could not be checked" in message:
            return (
                f"{name} was not asked: litdesk could not check how many searches are left "
                f"today. Try again {wait_words(retry_after)}, or {_OTHERS}."
            )
        return (
            f"Today's allowance of searches for {name} is used up. "
            f"Try again {wait_words(retry_after)}, or {_OTHERS}."
        )
    if status == "unsupported":
        label = lane_label(lane) if lane in LANE_PROVIDER else name
        if detail and _HTTP.search(detail) is None:
            return f"{label} cannot run this query: {detail}. Change the query, or {_OTHERS}."
        return f"{name} did not accept this query. Change the query, or {_OTHERS}."
    if status == "parse_error":
        return (
            f"{name} answered, but litdesk could not read the answer. "
            f"Try again later, or {_OTHERS}."
        )
    code = _HTTP.search(message)
    http = int(code.group(1)) if code else None
    if http in (401, 403):
        return (
            f"{name} refused the request: its key or allowance was not accepted. "
            f"Check the key in the settings, or {_OTHERS}."
        )
    if http is not None and http >= 500:
        return (
            f"{name} is not working just now (it reported an error). Try again later, or {_OTHERS}."
        )
    if "network error" in message:
        return (
            f"{name} could not be reached. Check the internet connection and try again, "
            f"or {_OTHERS}."
        )
    if "key" in detail.lower():
        return f"{detail[:1].upper()}{detail[1:]}. Meanwhile, {_OTHERS}."
    return f"{name} did not answer with results. Try again later, or {_OTHERS}."
