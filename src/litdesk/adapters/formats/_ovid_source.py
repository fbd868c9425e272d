"""Ovid's ``SO`` (source) string: journal, volume, issue, pages and year, as the real
exports show it (the shapes below are those of the sources named in :mod:`._ovid`):

* Journals@Ovid: ``Acta Biochimica et Biophysica Sinica August 2011;43(8):647-653``,
  ``Acta Chirurgica Belgica November/December 2010;6:611-613``;
* BIOSIS Previews, and Ovid's labelled layout: ``Forest Ecology & Management.
  201(2-3):327-334, November 15, 2004.``, ``Ecohydrology.   8(6):1048-1064, September 2015.``;
* International Political Science Abstracts: ``Journal of Political Studies 12, Winter 2007:
  7-14.`` (12 the volume), ``Journal of Current Southeast Asian Affairs, 2013(1): 3-28.``;
* Zoological Record: ``Hydrobiologia. 2007 15 June; 433-441.``;
* Embase: ``BMC Proceedings. Conference: …. Spain. 12 (Supplement 3) (no pagination), 2018.
  Date of Publication: 2018.``;
* PsycINFO (JabRef's pattern): ``Very Long Title. Vol 28(2) April 2015, 103-106.``;
* a book chapter (BIOSIS): the editors, ``[Editor]``, then the book's title ending ``.:371-397,
  2004.`` — the book's title is the container, never the editors.

Every pattern is linear: each starts at a position its look-behind pins (a digit not after
a digit, a space before a month) and its repeats are bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["SourceParts", "parse_source"]

_MONTH: Final = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
    r"|Winter|Spring|Summer|Autumn|Fall)\.?"
)
#: a date after the journal's name: a month (or two, ``January/February``, or a season),
#: maybe a day, then a year — the journal's name ends before it
_DATE: Final = re.compile(
    rf"(?<=\s){_MONTH}(?:/{_MONTH})?\s{{1,3}}(?:\d{{1,2}},?\s{{1,3}})?(?:1[5-9]|20)\d\d(?!\d)"
)
#: ``volume(issue)``, maybe ``:pages`` — ``201(2-3):327-334``, ``12 (Supplement 3)``,
#: ``2013(1): 3-28``
_VOL_ISSUE: Final = re.compile(
    r"(?<![\w.])(\d{1,6}) ?\(([A-Za-z0-9][A-Za-z0-9 ./-]{0,30})\)"
    r"(?: ?: ?([A-Za-z]{0,3}\d{1,7}(?: ?- ?[A-Za-z]{0,3}\d{1,7})?))?"
)
#: ``;volume:pages`` without an issue — ``2010;6:611-613``
_VOL_PAGES: Final = re.compile(
    r";\s{0,3}(\d{1,6})\s{0,3}:\s{0,3}([A-Za-z]{0,3}\d{1,7}(?: ?- ?[A-Za-z]{0,3}\d{1,7})?)"
)
#: ``Vol 28``, ``vol. 28, no. 3``
_VOL_WORD: Final = re.compile(
    r"(?<![A-Za-z])[Vv]ol\.? ?(\d{1,6})(?: ?\((\w{1,10})\)| ?, ?[Nn]o\.? ?(\w{1,10}))?"
)
#: a page range after a colon (``: 7-14``), ``;`` (``June; 433-441``), ``pp.``, or ``, ``
#: after a number (``2015, 103-106``)
_PAGES: Final = re.compile(r"(?::|;|pp\.|\d,) ?(\d{1,7} ?- ?\d{1,7})(?!\d)")
#: a year, not inside a longer number
_YEAR: Final = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
#: a year right before ``;`` (``August 2011;43(8)``): the issue's date
_YEAR_SEMI: Final = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d) ?;")
#: ``<name> <volume>,`` before a date: the volume (``Journal of Political Studies 12,``)
_TRAILING_VOLUME: Final = re.compile(r"(?<=\D) (\d{1,5}),$")
#: the year after PsycINFO's editors: ``(2012).``
_YEAR_PAREN: Final = re.compile(r"\(\d{4}\)")
#: an editors' list: ``Kamp, Roza Maria [Editor, Reprint Author], …``
_EDITOR_MARK: Final = ("[Editor", "[Ed.", "[Ed]")


@dataclass(frozen=True, slots=True)
class SourceParts:
    journal: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    year: int | None = None


def _clean_pages(value: str | None) -> str | None:
    return value.replace(" ", "") if value else None


def _book_title(value: str) -> str | None:
    """The book's title after an editors' list: the text after the last ``[Editor…]``'s
    closing bracket, to the next period (``Methods in proteome and protein analysis``)."""
    at = max(value.rfind(mark) for mark in _EDITOR_MARK)
    if at < 0:
        return None
    close = value.find("]", at)
    if close < 0:
        return None
    rest = value[close + 1 :].lstrip(".; ")
    if (year := _YEAR_PAREN.match(rest)) is not None:  # PsycINFO: ``[Ed]. (2012). Title.``
        rest = rest[year.end() :].lstrip(". ")
    title = rest.split(".", 1)[0].strip(" ,;:")
    return title or None


def _journal(value: str, cut: int) -> str | None:
    """The journal: ``value`` up to the first period ending a word, ``;`` or ``cut``
    (where the volume, a date or the pages start)."""
    end = cut
    for sep in (". ", ";"):
        i = value.find(sep, 0, end)
        if i >= 0:
            end = i
    name = value[:end]
    if end == len(value):
        name = name.rstrip()
        name = name[:-1] if name.endswith(".") else name
    name = " ".join(name.split()).strip(" ,:")
    return name or None


def parse_source(value: str, *, chapter: bool = False) -> SourceParts:
    """The parts of one ``SO`` value that it states; ``chapter``: the record is a book
    chapter (its ``SO`` names the editors and the book)."""
    text = " ".join(value.split())
    if not text:
        return SourceParts()
    volume = issue = pages = None
    cut = len(text)
    if m := _VOL_ISSUE.search(text):
        volume, issue, pages = m.group(1), m.group(2).strip(), m.group(3)
        cut = m.start()
    elif m := _VOL_PAGES.search(text):
        volume, pages = m.group(1), m.group(2)
        cut = m.start()
    if m := _VOL_WORD.search(text):
        volume, issue = m.group(1), m.group(2) or m.group(3) or issue
        cut = min(cut, m.start())
    if pages is None and (p := _PAGES.search(text)):
        pages = p.group(1)
    if d := _DATE.search(text):
        cut = min(cut, d.start())
    if m := _YEAR_SEMI.search(text):
        year: int | None = int(m.group(1))
        cut = min(cut, m.start())
    else:
        years = _YEAR.findall(text)
        year = int(years[-1]) if years else None
    if chapter:
        journal = _book_title(text)
    else:
        journal = _journal(text, cut)
        if journal is not None and volume is None and d is not None and d.start() <= cut:
            head = " ".join(text[: d.start()].split())
            if (tv := _TRAILING_VOLUME.search(head)) is not None:
                volume = tv.group(1)
                journal = head[: tv.start()].strip(" ,") or journal
    return SourceParts(journal, volume, issue or None, _clean_pages(pages), year)
