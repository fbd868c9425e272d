"""Conflict rules that veto an automatic merge whatever the similarity (issue 30).

Two records may look alike in every field the score weighs and still be different items:
a journal's recurring column ("Editor's comments") in two issues of one volume, two
conference abstracts of one group in one supplement, two parts of a series. Each rule
below names a field whose values show two different items when both records carry it;
a pair with a veto is never merged automatically (it waits for review, the veto's reason
in its reason and evidence). The rules are pure functions of the two records' features.

* ``issue`` — the same volume, different issue numbers (unless the same numbered first
  page: then the issue is the typo; front-matter pages such as "iii" recur in every issue);
* ``article number`` — different article numbers (``e0123456``; single numbers, no range);
* ``pages`` — page ranges that do not overlap (both present and well formed: a range
  ending before it starts, "2297-2108", is a typo and vetoes nothing);
* ``title`` — titles sharing too little after normalisation: fewer than half of the
  shorter title's content words in the other (every recorded variant compared: a
  translated title too), or each title holding a number the other lacks ("part 1" vs
  "part 2", "12 weeks" vs "24 weeks");

Different identifiers (DOIs, PMIDs, trial registry numbers …) are vetoed before these rules:
such pairs are ``distinct`` (see ``_conflicts`` in ``_match``), except a DOI and the DOI
of one of its own components (``….s001``, ``…/suppl``), which name the same work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final, Protocol

__all__ = ["TITLE_RULES", "VetoView", "doi_component", "title_numbers", "title_words", "vetoes"]

#: Thresholds of the title veto.
TITLE_RULES: Final = {
    "min_shared_words": 0.5,  # share of the shorter title's content words found in the other
}
_STOP: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "of",
        "on",
        "or",
        "the",
        "to",
        "vs",
        "versus",
        "with",
        "without",
        "its",
        "their",
        "our",
    ]
)
#: Roman numerals read as numbers in titles ("type ii" ~ "type 2"); "i", "v", "x" are
#: words or letters too often to count.
_ROMAN: Final = {
    "ii": "2",
    "iii": "3",
    "iv": "4",
    "vi": "6",
    "vii": "7",
    "viii": "8",
    "ix": "9",
    "xi": "11",
    "xii": "12",
}
_ARTICLE_NO: Final = re.compile(r"^[a-z]{1,2}\d+$|^\d{5,}$")
_DOI_PART: Final = re.compile(r"^(?:[./_-](?:s|suppl|supp|sup|g|t|f|m)?\d{0,4}|/suppl.*)$")


class VetoView(Protocol):
    """The features a veto reads (``_Features`` of ``_match`` has them)."""

    @property
    def title(self) -> str: ...
    @property
    def alt_titles(self) -> tuple[str, ...]: ...
    @property
    def volume(self) -> str: ...
    @property
    def issue(self) -> str: ...
    @property
    def page(self) -> str: ...
    @property
    def page_span(self) -> tuple[int, int] | None: ...


def title_words(title: str) -> frozenset[str]:
    """The content words of a normalised title (stop words left out)."""
    return frozenset(w for w in title.split() if w not in _STOP)


def title_numbers(title: str) -> frozenset[str]:
    """The numbers of a normalised title, Roman numerals from ii on read as numbers."""
    out: set[str] = set()
    for w in title.split():
        if w.isdigit():
            out.add(w.lstrip("0") or "0")
        elif w in _ROMAN:
            out.add(_ROMAN[w])
    return frozenset(out)


def _shared_words(a: str, b: str) -> float:
    wa, wb = title_words(a), title_words(b)
    if not wa or not wb:
        return 1.0  # nothing to compare: no veto on empty or stop-word-only titles
    return len(wa & wb) / min(len(wa), len(wb))


def _variants(x: VetoView) -> Iterable[str]:
    yield x.title
    yield from x.alt_titles


def _title_veto(a: VetoView, b: VetoView) -> str | None:
    best = 0.0
    numbers_differ: tuple[frozenset[str], frozenset[str]] | None = None
    numbers_agree = False
    for ta in _variants(a):
        for tb in _variants(b):
            if not ta or not tb:
                continue
            best = max(best, _shared_words(ta, tb))
            na, nb = title_numbers(ta), title_numbers(tb)
            if na - nb and nb - na:
                numbers_differ = numbers_differ or (na, nb)
            else:
                numbers_agree = True
    if best < TITLE_RULES["min_shared_words"]:
        return f"titles share too little ({best:.2f} of the shorter title's words)"
    if numbers_differ is not None and not numbers_agree:
        na, nb = numbers_differ
        return f"numbers in the titles differ ({', '.join(sorted(na - nb))} vs " + (
            f"{', '.join(sorted(nb - na))})"
        )
    return None


def doi_component(x: str, y: str) -> bool:
    """True when one DOI is the other's component (a supplement file, figure or table:
    ``10.1371/journal.pone.0123456.s001``, ``…/suppl_file``): the same work."""
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    return long_.startswith(short) and bool(_DOI_PART.match(long_[len(short) :]))


def vetoes(a: VetoView, b: VetoView, ev: dict[str, Any]) -> list[str]:
    """Every veto on merging ``a`` and ``b`` (``ev``: the pair's evidence), each a reason."""
    out: list[str] = []
    shifted = bool(ev.get("fields_shifted"))
    same_volume = bool(a.volume) and a.volume == b.volume
    # the same numbered first page: a typo in the issue, not another item (front-matter
    # pages, "iii", recur in every issue: they prove nothing)
    pages_agree = ev.get("page") is True and a.page_span is not None and b.page_span is not None
    if (
        not shifted
        and same_volume
        and a.issue
        and b.issue
        and a.issue != b.issue
        and not pages_agree
    ):
        out.append(f"different issues of volume {a.volume} ({a.issue} vs {b.issue})")
    if not shifted and a.page_span and b.page_span:
        (s1, e1), (s2, e2) = a.page_span, b.page_span
        if e1 < s2 or e2 < s1:
            single = s1 == e1 and s2 == e2
            if single and _ARTICLE_NO.match(a.page) and _ARTICLE_NO.match(b.page):
                out.append(f"different article numbers ({a.page} vs {b.page})")
            else:
                out.append(f"page ranges do not overlap ({s1}-{e1} vs {s2}-{e2})")
    if (why := _title_veto(a, b)) is not None:
        out.append(why)
    return out
