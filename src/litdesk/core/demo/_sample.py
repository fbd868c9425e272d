"""The demo sample's search engine (pure): bundled records, an inverted index over their
title, abstract and authors, and the litdesk query language evaluated on it.

A term matches a word of the field (case and accents folded; a trailing ``*`` matches
words starting with it); a phrase — or a term that folds to several words — matches
those words in a row. ``AND``/``OR``/``NOT`` are set operations over the whole sample, so
a query costs one pass over its nodes (each term one index lookup, memoised), never a
scan of every record per node. Hits are ranked by the query's positive terms found in the
title (3 each) and the abstract (1 each), then newest first.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from litdesk.core.query import DEMO_MIN_STEM, And, Node, Not, Or, Query, Term

__all__ = [
    "MIN_STEM",
    "SampleHits",
    "SampleIndex",
    "SampleRecord",
    "fold_words",
    "search_sample",
]

IndexField = Literal["title", "abstract", "author", "author_last"]
_ALL: Final[tuple[IndexField, ...]] = ("title", "abstract", "author")
_WORD: Final = re.compile(r"[^\W_]+")
#: combining marks (accents) left by NFKD decomposition
_COMBINING: Final = re.compile(
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
)
#: positions skipped between two authors, so that a phrase never spans two names
_AUTHOR_GAP: Final = 2
_SEP: Final = "\x1f"  # never in a folded word (letters and digits only)
#: the shortest stem a trailing ``*`` truncates (the compiler refuses shorter ones; here
#: they match the word itself)
MIN_STEM: Final = DEMO_MIN_STEM
_TITLE_WEIGHT: Final = 3
_ABSTRACT_WEIGHT: Final = 1


@dataclass(frozen=True, slots=True)
class SampleRecord:
    """One bundled record (an OpenAlex work of a SYNERGY dataset)."""

    id: str  # the OpenAlex work id (W…)
    title: str
    abstract: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    journal: str = ""
    doi: str | None = None
    pmid: str | None = None
    dataset: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "abstract": self.abstract,
            "authors": list(self.authors),
            "year": self.year,
            "journal": self.journal,
            "doi": self.doi,
            "pmid": self.pmid,
            "dataset": self.dataset,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> SampleRecord:
        year = d.get("year")
        authors = d.get("authors") or ()
        return cls(
            id=str(d["id"]),
            title=str(d.get("title") or ""),
            abstract=str(d.get("abstract") or ""),
            authors=tuple(str(a) for a in authors) if isinstance(authors, (list, tuple)) else (),
            year=year if isinstance(year, int) and not isinstance(year, bool) else None,
            journal=str(d.get("journal") or ""),
            doi=str(d["doi"]) if d.get("doi") else None,
            pmid=str(d["pmid"]) if d.get("pmid") else None,
            dataset=str(d.get("dataset") or ""),
        )


def fold_words(text: str) -> list[str]:
    """The words of ``text``, case-folded and without accents."""
    if text.isascii():
        return _WORD.findall(text.lower())
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _WORD.findall(_COMBINING.sub("", decomposed))


@dataclass(slots=True)
class _Postings:
    """One field: word → the records holding it, the sorted vocabulary, and each record's
    words in order (for phrases)."""

    words: dict[str, set[int]] = field(default_factory=dict)
    vocabulary: list[str] = field(default_factory=list)
    #: each record's words joined by a separator no word holds, for phrase searches
    streams: list[str] = field(default_factory=list)


def _author_words(authors: Sequence[str]) -> list[str]:
    out: list[str] = []
    for name in authors:
        if out:
            out.extend([""] * _AUTHOR_GAP)  # empty words never match a folded term
        out.extend(fold_words(name))
    return out


def _joined(words: Sequence[str]) -> str:
    """Words as one string, each between separators (a phrase is then a substring: the
    string search is linear in practice, never words × positions)."""
    return _SEP + _SEP.join(words) + _SEP


class SampleIndex:
    """The bundled records and their inverted index (built once, read-only after)."""

    def __init__(self, records: Iterable[SampleRecord]) -> None:
        self.records: tuple[SampleRecord, ...] = tuple(records)
        self.universe: frozenset[int] = frozenset(range(len(self.records)))
        self._fields: dict[IndexField, _Postings] = {
            name: _Postings() for name in ("title", "abstract", "author", "author_last")
        }
        self._ids: dict[tuple[str, str], int] = {}
        for i, rec in enumerate(self.records):
            streams: dict[IndexField, list[str]] = {
                "title": fold_words(rec.title),
                "abstract": fold_words(rec.abstract),
                "author": _author_words(rec.authors),
                "author_last": fold_words(rec.authors[-1]) if rec.authors else [],
            }
            for name, words in streams.items():
                kept = self._fields[name]
                kept.streams.append(_joined(words))
                postings = kept.words
                for word in set(words):
                    if word:
                        postings.setdefault(word, set()).add(i)
            for namespace, value in (("openalex", rec.id), ("doi", rec.doi), ("pmid", rec.pmid)):
                if value:
                    self._ids.setdefault((namespace, value.lower()), i)
        for each in self._fields.values():
            each.vocabulary = sorted(each.words)

    def __len__(self) -> int:
        return len(self.records)

    def lookup(self, namespace: str, value: str) -> SampleRecord | None:
        """The record with that identifier (``doi``, ``pmid``, ``openalex``), if any."""
        i = self._ids.get((namespace, value.strip().lower()))
        return self.records[i] if i is not None else None

    # -- one term on one field ------------------------------------------------------------

    def _prefix(self, name: IndexField, stem: str) -> frozenset[int]:
        postings = self._fields[name]
        vocab = postings.vocabulary
        found: set[int] = set()
        at = bisect.bisect_left(vocab, stem)
        while at < len(vocab) and vocab[at].startswith(stem):
            found.update(postings.words[vocab[at]])
            at += 1
        return frozenset(found)

    def _sequence(self, name: IndexField, words: Sequence[str]) -> frozenset[int]:
        kept = self._fields[name]
        sets = [kept.words.get(w) for w in set(words)]
        present: list[set[int]] = [p for p in sets if p is not None]
        if len(present) < len(sets):
            return frozenset()
        present.sort(key=len)
        candidates = set(present[0])
        for p in present:
            candidates.intersection_update(p)
        needle = _joined(words)
        return frozenset(i for i in candidates if needle in kept.streams[i])

    def _truncated_sequence(self, name: IndexField, words: Sequence[str]) -> frozenset[int]:
        """Records holding ``words`` in a row, the last one only as a word's beginning."""
        kept = self._fields[name]
        candidates = set(self._prefix(name, words[-1]))
        for word in set(words[:-1]):
            candidates.intersection_update(kept.words.get(word, ()))
        needle = _SEP + _SEP.join(words)
        return frozenset(i for i in candidates if needle in kept.streams[i])

    def term_on(self, term: Term, name: IndexField) -> frozenset[int]:
        """The records whose field ``name`` matches ``term``: a truncated word
        (``therap*``) matches words it begins, a truncated compound (``covid-19*``) its
        words in a row with the last one truncated; a literal ``*`` is not a wildcard."""
        words = fold_words(term.stem if term.truncated else term.text)
        if not words:
            return frozenset()
        if term.truncated and len(words) > 1:
            return self._truncated_sequence(name, words)
        if term.truncated and len(words[0]) >= MIN_STEM:
            return self._prefix(name, words[0])
        if len(words) == 1:
            return frozenset(self._fields[name].words.get(words[0], ()))
        return self._sequence(name, words)


@dataclass(frozen=True, slots=True)
class SampleHits:
    """One page of hits: the total, the records in rank order, and the offset given."""

    total: int
    records: tuple[SampleRecord, ...]
    start: int


Sort = Literal["relevance", "newest"]


class _Evaluation:
    """One query on one index: term results memoised, so a repeated term costs once."""

    def __init__(self, index: SampleIndex, default_field: str) -> None:
        self.index = index
        self.default_field = default_field
        self.memo: dict[tuple[str, bool, bool, str], frozenset[int]] = {}

    def fields_of(self, term: Term) -> tuple[IndexField, ...]:
        name = term.field or self.default_field
        if name == "title":
            return ("title",)
        if name == "abstract":
            return ("abstract",)
        if name == "author":
            return ("author",)
        if name == "author_last":
            return ("author_last",)
        if name == "mesh":
            return ()  # the sample has no MeSH headings (the compiler refuses them)
        return _ALL

    def on(self, term: Term, name: IndexField) -> frozenset[int]:
        key = (term.text, term.phrase, term.truncated, name)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.index.term_on(term, name)
            self.memo[key] = hit
        return hit

    def term(self, term: Term) -> frozenset[int]:
        found: set[int] = set()
        for name in self.fields_of(term):
            found.update(self.on(term, name))
        return frozenset(found)

    def node(self, root: Node) -> frozenset[int]:
        # iterative post-order walk: the query's nesting never reaches Python's stack limit
        results: dict[int, frozenset[int]] = {}
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            cur, ready = stack.pop()
            if isinstance(cur, Term):
                results[id(cur)] = self.term(cur)
            elif not ready:
                stack.append((cur, True))
                kids = (cur.child,) if isinstance(cur, Not) else cur.children
                stack.extend((k, False) for k in kids)
            elif isinstance(cur, Not):
                results[id(cur)] = self.index.universe - results[id(cur.child)]
            elif isinstance(cur, And):
                sets = sorted((results[id(k)] for k in cur.children), key=len)
                acc = set(sets[0])
                for s in sets[1:]:
                    acc.intersection_update(s)
                results[id(cur)] = frozenset(acc)
            elif isinstance(cur, Or):
                union: set[int] = set()
                for k in cur.children:
                    union.update(results[id(k)])
                results[id(cur)] = frozenset(union)
        return results[id(root)]


def _positive_terms(root: Node) -> list[Term]:
    """The terms a hit is ranked by: every term not under a NOT."""
    out: list[Term] = []
    stack: list[Node] = [root]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Term):
            out.append(cur)
        elif isinstance(cur, (And, Or)):
            stack.extend(cur.children)
    return out


def search_sample(
    index: SampleIndex,
    query: Query,
    *,
    sort: Sort = "relevance",
    year_from: int | None = None,
    year_to: int | None = None,
    start: int = 0,
    limit: int = 20,
) -> SampleHits:
    """The hits of ``query`` (parsed for its default field) in the sample, ranked, and
    the page ``start``..``start + limit`` of them."""
    run = _Evaluation(index, query.default_field)
    hits = run.node(query.root)
    records = index.records
    if year_from is not None or year_to is not None:
        lo = year_from if year_from is not None else -(10**9)
        hi = year_to if year_to is not None else 10**9
        hits = frozenset(i for i in hits if (y := records[i].year) is not None and lo <= y <= hi)
    score = dict.fromkeys(hits, 0)
    seen: set[tuple[str, bool]] = set()
    weights: tuple[tuple[IndexField, int], ...] = (
        ("title", _TITLE_WEIGHT),
        ("abstract", _ABSTRACT_WEIGHT),
    )
    for term in _positive_terms(query.root):
        if (term.text, term.phrase) in seen or term.field in ("author", "author_last"):
            continue
        seen.add((term.text, term.phrase))
        for name, weight in weights:
            for i in run.on(term, name) & hits:
                score[i] += weight

    def year(i: int) -> int:
        return records[i].year or 0

    if sort == "newest":
        order = sorted(hits, key=lambda i: (-year(i), -score[i], records[i].id))
    else:
        order = sorted(hits, key=lambda i: (-score[i], -year(i), records[i].id))
    page = order[max(0, start) : max(0, start) + max(0, limit)]
    return SampleHits(total=len(order), records=tuple(records[i] for i in page), start=start)
