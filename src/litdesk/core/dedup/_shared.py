"""Shared identifiers of imported records: strong evidence, not proof (pure).

Database exports give every abstract of a conference supplement the supplement's (or
the issue's) DOI, and book chapters the book's DOI. Records linked by a shared
identifier are therefore checked pairwise before stage 1 merges them: when the titles,
the pages or the authors of two of them clearly disagree, the shared identifier is a
:class:`~litdesk.core.fusion.Conflict` (kind ``shared``) and none of the group's records
is merged on it; stage 2 then judges them by their bibliographic fields like any other
records (identical copies still merge there, different abstracts do not).

"Clearly disagree" (documented in :data:`SHARED_RULES`):

* titles — both known, similarity (rapidfuzz ratio, or of the sorted words) below
  ``title``, and neither title (≥ ``prefix_words`` words) is contained in the other;
* pages — both first pages known with the same letter prefix ("S12" vs "S45"), different
  numbers, and the page ranges do not overlap;
* authors — both author lists known, no surname in common.

Pages and authors count only when the titles are not near-identical (``same_title``):
the same title under online-first and print pages is one article.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from rapidfuzz import fuzz

from litdesk.core.fusion import NAMESPACE_LABELS, NAMESPACES, Conflict
from litdesk.core.records import Paper

from ._cache import ContentCache
from ._normalize import (
    author_surnames,
    first_author_names,
    first_page,
    page_range,
    parse_title,
)
from ._vetoes import title_numbers

__all__ = ["SHARED_RULES", "SharedCheck", "check_shared"]

SHARED_RULES: Final = {
    "title": 0.80,  # titles below this similarity disagree …
    "prefix_words": 4,  # … unless the shorter (≥ this many words) is contained in the other
    "same_title": 0.95,  # pages and authors count as disagreeing only below this similarity
    "max_pairwise": 50,  # larger groups: every member is compared with the first only
}


#: Identifier keys by input index (the whole list, or a mapping of a few records).
Keys = Sequence[dict[str, set[str]]] | Mapping[int, dict[str, set[str]]]


@dataclass(frozen=True, slots=True)
class _Brief:
    title: str
    sorted_title: str
    words: int
    page: str
    prefix: str
    digits: str
    pages: tuple[int, int] | None
    surnames: frozenset[str]
    book: bool


#: the fields :func:`_brief` reads → their brief: a regrouping of a Study checks every
#: group of records sharing an identifier again (a 7,100-record Study's 2,000 such groups:
#: 43 ms of briefs each time, about a quarter of its deduplication), though most records
#: had not changed (content-keyed like the features, see ``_cache``)
BRIEF_CACHE: Final[
    ContentCache[tuple[str, str | None, tuple[str, ...], tuple[str, ...]], _Brief]
] = ContentCache(20_000)


def _brief(p: Paper) -> _Brief:
    """The fields of ``p`` the shared-identifier check compares (cached by their content)."""
    key = (p.title, p.pages, p.authors, p.publication_types)
    return BRIEF_CACHE.get(key, lambda: _make_brief(p))


def _make_brief(p: Paper) -> _Brief:
    title, _ = parse_title(p.title)
    words = title.split()
    page = first_page(p.pages)
    digits = "".join(c for c in page if c.isdigit())
    prefix = page[: len(page) - len(page.lstrip("abcdefghijklmnopqrstuvwxyz"))]
    surnames = author_surnames(p.authors) | first_author_names(p.authors)
    types = " ".join(t.lower() for t in p.publication_types)
    book = any(w in types for w in ("chapter", "incollection", "inbook", "book"))
    return _Brief(
        title, " ".join(sorted(words)), len(words), page, prefix, digits,
        page_range(p.pages), surnames, book,
    )  # fmt: skip


def _title_similarity(a: _Brief, b: _Brief) -> float:
    sim = fuzz.ratio(a.title, b.title) / 100
    if sim < SHARED_RULES["title"]:
        sim = max(sim, fuzz.ratio(a.sorted_title, b.sorted_title) / 100)
    return sim


def _contained(a: _Brief, b: _Brief) -> bool:
    short, long_ = (a, b) if a.words <= b.words else (b, a)
    if short.words < SHARED_RULES["prefix_words"]:
        return False
    return fuzz.partial_ratio(short.title, long_.title) >= 95


def disagreement(a: _Brief, b: _Brief) -> dict[str, Any] | None:
    """What clearly disagrees between two records sharing an identifier (None: nothing)."""
    out: dict[str, Any] = {}
    same_title = False
    if a.title and b.title:
        sim = _title_similarity(a, b)
        if sim < SHARED_RULES["title"] and not _contained(a, b):
            out["titles"] = round(sim, 4)
        same_title = sim >= SHARED_RULES["same_title"]
        na, nb = title_numbers(a.title), title_numbers(b.title)
        if na - nb and nb - na:  # "12 week" vs "24 week": near-identical, still two items
            out["title_numbers"] = [sorted(na - nb), sorted(nb - na)]
    if same_title:
        return out or None  # the same title: other fields differing is an export's slip
    if (
        a.digits
        and b.digits
        and a.prefix == b.prefix
        and a.digits.lstrip("0") != b.digits.lstrip("0")
        and not (a.pages and b.pages and a.pages[0] <= b.pages[1] and b.pages[0] <= a.pages[1])
    ):
        out["pages"] = [a.page, b.page]
    if a.surnames and b.surnames and not (a.surnames & b.surnames):
        out["authors"] = True
    return out or None


@dataclass(frozen=True, slots=True)
class SharedCheck:
    """The verdict on one group of records linked by shared identifiers."""

    conflict: Conflict | None
    pairs: tuple[tuple[int, int, dict[str, Any]], ...] = ()  # disagreeing pairs (input indices)


def _shared_ns(members: Sequence[int], keys: Keys) -> tuple[str, tuple[str, ...]]:
    """The namespace and value(s) most members share (DOI first)."""
    best: tuple[int, str, tuple[str, ...]] = (0, "doi", ())
    for ns in NAMESPACES:
        counts: dict[str, int] = {}
        for i in members:
            for v in keys[i].get(ns, ()):
                counts[v] = counts.get(v, 0) + 1
        shared = tuple(sorted(v for v, c in counts.items() if c > 1))
        n = max(counts.values(), default=0)
        if shared and n > best[0]:
            best = (n, ns, shared)
    return best[1], best[2]


def check_shared(papers: Sequence[Paper], members: Sequence[int], keys: Keys) -> SharedCheck:
    """Check a stage-1 group (records linked by identifiers) for clear disagreements.

    Every pair is compared (the first member against the others beyond
    ``max_pairwise`` members, so the check stays linear there).
    """
    if len(members) < 2:
        return SharedCheck(None)
    briefs = {i: _brief(papers[i]) for i in members}
    bad: list[tuple[int, int, dict[str, Any]]] = []
    if len(members) <= SHARED_RULES["max_pairwise"]:
        todo = [(x, y) for k, x in enumerate(members) for y in members[k + 1 :]]
    else:
        todo = [(members[0], y) for y in members[1:]]
    for x, y in todo:
        why = disagreement(briefs[x], briefs[y])
        if why is not None:
            bad.append((x, y, why))
    if not bad:
        return SharedCheck(None)
    ns, values = _shared_ns(members, keys)
    what = sorted({k for _, _, why in bad for k in why})
    label = NAMESPACE_LABELS.get(ns, ns)
    if any(b.book for b in briefs.values()):
        hint = "likely a book's DOI given to its chapters" if ns == "doi" else "likely a book's id"
    elif "titles" in what or "title_numbers" in what:
        hint = "likely a supplement or issue DOI" if ns == "doi" else "likely a wrong identifier"
    else:
        hint = "the identifier may be wrong in one export"
    message = (
        f"{label} shared by {len(members)} records with different "
        f"{' and '.join(w.replace('title_numbers', 'numbers in titles') for w in what)}: "
        f"{hint}; not merged on it (each record is compared on its other fields)"
    )
    evidence: dict[str, Any] = {
        "disagree": what,
        "pairs": [{"a": x, "b": y, **why} for x, y, why in bad[:20]],
        "disagreeing_pairs": len(bad),
    }
    conflict = Conflict("shared", ns, values, tuple(sorted(members)), message, evidence)
    return SharedCheck(conflict, tuple(bad))
