"""Dates, numbers, plurals and lane names for people (see :mod:`litdesk.core.words`).

Stored times are ISO 8601 in UTC; people read them in the machine's local time as
``5 Dec 2026, 01:14`` (and, for the last day, ``3 minutes ago``). Numbers carry thousands
separators; a count and its noun agree (``1 saved search``, ``2 saved searches``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

from litdesk.core.providers import lane_label

__all__ = ["dates", "day", "lane_label", "num", "plural", "when"]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _parse(value: object) -> datetime | date | None:
    if isinstance(value, datetime | date):
        return value
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if len(text) == 10:  # a bare date (2026-12-05) stays a date, not midnight UTC
        try:
            return date.fromisoformat(text)
        except ValueError:
            return None
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        try:
            return date.fromisoformat(text[:10])
        except ValueError:
            return None


def _local(moment: datetime) -> datetime:
    if moment.tzinfo is None:  # litdesk stores UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone()


def day(value: object) -> str:
    """``5 Dec 2026``; text that is not a date is returned as it is ("" for nothing)."""
    parsed = _parse(value)
    if parsed is None:
        return "" if value is None else str(value)
    if isinstance(parsed, datetime):
        parsed = _local(parsed)
    return f"{parsed.day} {_MONTHS[parsed.month - 1]} {parsed.year}"


def when(value: object, *, now: datetime | None = None, relative: bool = True) -> str:
    """``5 Dec 2026, 01:14`` in local time; within the last day ``3 minutes ago``.

    A bare date gives :func:`day`; text that is not a date is returned as it is."""
    parsed = _parse(value)
    if parsed is None:
        return "" if value is None else str(value)
    if not isinstance(parsed, datetime):
        return day(parsed)
    moment = _local(parsed)
    if relative:
        current = (now or datetime.now(UTC)).astimezone()
        age = current - moment
        if timedelta(0) <= age < timedelta(minutes=1):
            return "just now"
        if timedelta(0) <= age < timedelta(hours=1):
            return plural(int(age.total_seconds() // 60), "minute") + " ago"
        if timedelta(0) <= age < timedelta(hours=24):
            return plural(int(age.total_seconds() // 3600), "hour") + " ago"
    return f"{day(moment)}, {moment:%H:%M}"


def dates(values: Sequence[object]) -> list[str]:
    """The dates of a list of moments (a report's searches): each as :func:`day`
    (``5 Dec 2026``), with the time (``5 Dec 2026, 10:14``) where two different moments of
    the list fall on the same day, so that they can be told apart. Never relative (a
    report is read later); text that is not a date is returned as it is."""
    parsed = [_parse(v) for v in values]
    moments: dict[date, set[datetime]] = {}
    for p in parsed:
        if isinstance(p, datetime):
            local = _local(p)
            moments.setdefault(local.date(), set()).add(local)
    return [
        when(v, relative=False)
        if isinstance(p, datetime) and len(moments[_local(p).date()]) > 1
        else day(v)
        for v, p in zip(values, parsed, strict=True)
    ]


def num(value: object) -> str:
    """``12,345`` for a whole number, ``0.73`` kept as it is; other values as text."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}"
    return str(value)


def _plural_of(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def plural(count: object, singular: str, plural_form: str | None = None) -> str:
    """``1 saved search``, ``2 saved searches``, ``1,204 records`` (the count as :func:`num`)."""
    n = count if isinstance(count, int) and not isinstance(count, bool) else None
    if n is None:
        try:
            n = int(str(count))
        except ValueError:
            return f"{count} {plural_form or _plural_of(singular)}"
    noun = singular if n == 1 else (plural_form or _plural_of(singular))
    return f"{num(n)} {noun}"
