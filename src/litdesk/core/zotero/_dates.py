"""Zotero-like date parsing (pure).

Zotero stores an item's ``date`` field as a *multipart* value: an SQL date with zeros for
unknown parts, a space, then the date as the user typed it (``"2020-03-00 March 2020"``).
Dates typed elsewhere (``Extra``, imports) are free text that Zotero's ``strToDate`` reads:
ISO dates, ``M/D/Y`` (US order) or ``D.M.Y`` / ``D-M-Y`` numeric dates, month names in
English, a four-digit year anywhere, and a two-digit year only in a numeric date.
:func:`parse_zotero_date` does the same for the parts litdesk uses (year, month, day).
Every pattern here is linear: no nested or overlapping quantifiers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["ZoteroDate", "parse_zotero_date"]

#: A date longer than this is not a date (only its head is read).
MAX_DATE_CHARS: Final = 200

_MULTIPART: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?: |$)")
_ISO: Final = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?!\d)")
# month/day/year (slashes: US order, as Zotero's default) or day.month.year / day-month-year
_NUMERIC: Final = re.compile(r"(?<!\d)(\d{1,2})([/.\-])(\d{1,2})\2(\d{4}|\d{2})(?!\d)")
_YEAR: Final = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_DAY: Final = re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th)?(?!\d)")
_WORD: Final = re.compile(r"[^\W\d_]+")
_MONTHS: Final = {
    name: i + 1
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        )
    )
    for name in names
}


@dataclass(frozen=True, slots=True)
class ZoteroDate:
    """The parts of a date Zotero would read (``None``: not given); ``text`` as typed."""

    year: int | None
    month: int | None
    day: int | None
    text: str

    def sql(self) -> str:
        """Zotero's SQL form with zeros for unknown parts (``2020-03-00``); empty without
        a year."""
        if self.year is None:
            return ""
        return f"{self.year:04d}-{self.month or 0:02d}-{self.day or 0:02d}"


def _valid(
    year: int | None, month: int | None, day: int | None
) -> tuple[int | None, int | None, int | None]:
    if month is not None and not 1 <= month <= 12:
        month = day = None
    if day is not None and not 1 <= day <= 31:
        day = None
    if year is not None and not 1 <= year <= 9999:
        year = None
    return year, month, day


def _two_digit(year: int) -> int:
    # Zotero: a two-digit year is this century up to 30 years ahead, else the last one
    return 2000 + year if year <= 30 else 1900 + year


def parse_zotero_date(value: str | None) -> ZoteroDate:
    """The year, month and day Zotero reads from ``value`` (see the module docstring)."""
    text = (value or "").strip()[:MAX_DATE_CHARS]
    if not text:
        return ZoteroDate(None, None, None, "")
    m = _MULTIPART.match(text)
    if m:
        shown = text[11:].strip() or text[:10]
        y, mo, d = (int(g) for g in m.groups())
        year, month, day = _valid(y or None, mo or None, d or None)
        return ZoteroDate(year, month, day, shown)
    m = _ISO.search(text)
    if m:
        d_text = m.group(3)
        year, month, day = _valid(int(m.group(1)), int(m.group(2)), int(d_text) if d_text else None)
        return ZoteroDate(year, month, day, text)
    m = _NUMERIC.search(text)
    if m:
        a, sep, b, y_text = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        year_n = int(y_text) if len(y_text) == 4 else _two_digit(int(y_text))
        month_n, day_n = (a, b) if sep == "/" else (b, a)
        if month_n > 12 >= day_n:  # an impossible month: the other order
            month_n, day_n = day_n, month_n
        year, month, day = _valid(year_n, month_n, day_n)
        return ZoteroDate(year, month, day, text)
    year_m = _YEAR.search(text)
    year_v = int(year_m.group(1)) if year_m else None
    month_v: int | None = None
    for word in _WORD.finditer(text):
        month_v = _MONTHS.get(word.group(0).lower())
        if month_v is not None:
            break
    day_v: int | None = None
    if month_v is not None:
        rest = text if year_m is None else text[: year_m.start()] + " " + text[year_m.end() :]
        day_m = _DAY.search(rest)
        day_v = int(day_m.group(1)) if day_m else None
    year, month, day = _valid(year_v, month_v, day_v)
    return ZoteroDate(year, month, day, text)
