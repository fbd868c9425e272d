"""Two-stage deduplication of bibliographic records (pure).

Stage 1 merges records that share an identifier (the identity graph of fused search;
conflicting identifiers are never merged). Stage 2 looks for duplicates among the
remaining groups by bibliographic similarity, with blocking so it scales, and decides
each candidate pair:

* ``merge`` — automatic, above the strict rule (see :data:`RULES`), reason recorded;
* ``review`` — the uncertain band, waiting for the reviewer;
* ``linked`` — a preprint and its published version: linked, never merged;
* ``distinct`` — conflicting identifiers or a contradiction (never merged).

Every decision can be overridden by a reviewer decision keyed by the pair of records;
nothing is lost: every input record ends in exactly one group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from rapidfuzz import fuzz

from litdesk.core.fusion import NAMESPACES, group_keys, identity_keys
from litdesk.core.records import Paper

from ._normalize import (
    author_surnames,
    first_author_surname,
    first_page,
    journal_key,
    journal_matches,
    normalize_title,
)

__all__ = [
    "DEDUP_VERSION",
    "RULES",
    "Decision",
    "DedupResult",
    "Pair",
    "deduplicate",
]

DEDUP_VERSION: Final = "litdesk-dedup-v1"
Decision = Literal["merge", "review", "linked", "distinct"]

#: The documented thresholds (title similarity is rapidfuzz's ratio on normalised titles, 0–1).
RULES: Final = {
    "auto_title": 0.95,  # automatic merge needs at least this title similarity …
    "auto_short_title_words": 4,  # … titles shorter than this need page or volume agreement too
    "fingerprint_title": 0.80,  # rule B: with author, year, volume and first page agreeing
    # (the title similarity there may be the containment of the shorter title, ≥ 5 words)
    "same_title": 0.98,  # rule C: identical long titles …
    "same_title_words": 6,  # … of at least this many words
    "review_title": 0.85,  # the uncertain band starts here (with author and year agreeing)
    "review_title_weak": 0.70,  # … or here when page and volume also agree
    "linked_title": 0.85,  # preprint ↔ published version
    "max_year_gap": 1,
    "max_block": 250,  # blocks larger than this are not paired (counted in the result)
}
_PREPRINT_VENUES: Final = (
    "arxiv",
    "biorxiv",
    "medrxiv",
    "ssrn",
    "research square",
    "preprints",
    "chemrxiv",
    "psyarxiv",
    "osf preprints",
    "authorea",
)


@dataclass(frozen=True, slots=True)
class Pair:
    """A candidate pair of records (input indices ``a < b``) with its evidence and decision."""

    a: int
    b: int
    score: float
    evidence: dict[str, Any]
    decision: Decision
    reason: str
    stage: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "score": round(self.score, 4),
            "evidence": self.evidence,
            "decision": self.decision,
            "reason": self.reason,
            "stage": self.stage,
        }


@dataclass(slots=True)
class DedupResult:
    groups: list[list[int]]
    pairs: list[Pair]
    counts: dict[str, int] = field(default_factory=dict)
    version: str = DEDUP_VERSION

    @property
    def removable(self) -> int:
        return sum(len(g) - 1 for g in self.groups)


@dataclass(slots=True)
class _Features:
    title: str
    words: int
    surname: str
    surnames: frozenset[str]
    year: int | None
    journal: tuple[str, ...]
    volume: str
    page: str
    ids: dict[str, set[str]]
    doi_prefix: str
    preprint: bool


def _features(
    papers: Sequence[Paper], keys: Sequence[dict[str, set[str]]] | None = None
) -> _Features:
    def first(name: str) -> Any:
        for p in papers:
            v = getattr(p, name)
            if v:
                return v
        return None

    title = normalize_title(first("title"))
    ids: dict[str, set[str]] = {}
    for k in keys if keys is not None else [identity_keys(p) for p in papers]:
        for ns, vals in k.items():
            if ns in NAMESPACES:
                ids.setdefault(ns, set()).update(vals)
    doi = next(iter(sorted(ids.get("doi", set()))), "")
    venue = (first("journal") or "").lower()
    types = " ".join(t.lower() for p in papers for t in p.publication_types)
    preprint = (
        "preprint" in types
        or "posted-content" in types
        or any(v in venue for v in _PREPRINT_VENUES)
        or bool(ids.get("arxiv"))
        and not venue
        or doi.startswith(("10.1101/", "10.48550/", "10.21203/", "10.2139/"))
    )
    return _Features(
        title=title,
        words=len(title.split()),
        surname=first_author_surname(first("authors") or ()),
        surnames=author_surnames(first("authors") or ()),
        year=first("year"),
        journal=journal_key(first("journal")),
        volume=(first("volume") or "").strip().lower().lstrip("0"),
        page=first_page(first("pages")),
        ids=ids,
        doi_prefix=doi.split("/", 1)[0] if doi else "",
        preprint=preprint,
    )


def _blocking_keys(f: _Features) -> list[str]:
    keys: list[str] = []
    words = f.title.split()
    if len(words) >= 3:
        keys.append("t:" + " ".join(words[:5]))
        keys.append("T:" + " ".join(words[-5:]))
        longest = sorted(set(words), key=lambda w: (-len(w), w))[:3]
        keys.append("w:" + " ".join(sorted(longest)))
    elif words:
        keys.append("t:" + " ".join(words))
    if f.surname and f.year:
        keys.append(f"a:{f.surname}:{f.year}")
    if f.page and f.volume:
        keys.append(f"p:{f.volume}:{f.page}")
    return keys


def _conflicts(a: _Features, b: _Features) -> list[str]:
    out = []
    for ns in NAMESPACES:
        va, vb = a.ids.get(ns), b.ids.get(ns)
        if va and vb and not (va & vb):
            out.append(ns)
    return out


def _agree(x: str | tuple[str, ...], y: str | tuple[str, ...]) -> bool | None:
    if not x or not y:
        return None
    return x == y


def _pages_agree(x: str, y: str) -> bool | None:
    if not x or not y:
        return None
    if x == y:
        return True
    dx, dy = "".join(c for c in x if c.isdigit()), "".join(c for c in y if c.isdigit())
    return bool(dx) and dx == dy  # "c37" ~ "37", "e1234" ~ "1234"


def _authors_agree(a: _Features, b: _Features) -> bool | None:
    if not a.surname or not b.surname:
        return None
    if a.surname == b.surname:
        return True
    shared = a.surnames & b.surnames
    smaller = min(len(a.surnames), len(b.surnames))
    # "Rubio, M. L." ~ "Lopez Rubio, M."; a first author parsed differently
    return bool(shared) and (len(shared) >= 2 or smaller == 1)


def _score(a: _Features, b: _Features) -> tuple[float, dict[str, Any]]:
    title = 0.0
    if a.title and b.title:
        title = fuzz.ratio(a.title, b.title) / 100
        if title < RULES["auto_title"]:
            title = max(title, fuzz.token_sort_ratio(a.title, b.title, score_cutoff=60) / 100)
    year_gap = abs(a.year - b.year) if a.year and b.year else None
    ev: dict[str, Any] = {
        "title": round(title, 4),
        "author": _authors_agree(a, b),
        "year_gap": year_gap,
        "journal": journal_matches(a.journal, b.journal) if a.journal and b.journal else None,
        "volume": _agree(a.volume, b.volume),
        "page": _pages_agree(a.page, b.page),
        "doi_prefix": _agree(a.doi_prefix, b.doi_prefix),
    }
    weights = {"author": 0.15, "journal": 0.08, "volume": 0.06, "page": 0.06, "doi_prefix": 0.03}
    score = 0.55 * title
    for name, w in weights.items():
        v = ev[name]
        score += w if v is True else (w / 2 if v is None else 0.0)
    score += 0.07 if year_gap == 0 else (0.035 if year_gap in (None, 1) else 0.0)
    return score, ev


def _contained(a: _Features, b: _Features) -> float:
    """How well the shorter title (≥ 5 words) is contained in the longer one (0–1)."""
    if min(a.words, b.words) < 5:
        return 0.0
    return fuzz.partial_ratio(a.title, b.title) / 100


def _decide(a: _Features, b: _Features, ev: dict[str, Any]) -> tuple[Decision, str] | None:
    conflicts = _conflicts(a, b)
    title = float(ev["title"])
    if conflicts:
        if title >= RULES["review_title"]:
            return "distinct", "conflicting identifiers: " + ", ".join(conflicts)
        return None
    if not a.title or not b.title:
        return None  # no title: never decided on the other fields alone
    gap = ev["year_gap"]
    author, page, volume, journal = ev["author"], ev["page"], ev["volume"], ev["journal"]
    if a.preprint != b.preprint:
        if title >= RULES["linked_title"] and author is not False:
            return "linked", "a preprint and a published version: linked, not merged"
        return None
    contradiction = [n for n in ("page", "volume", "journal") if ev[n] is False]
    year_ok = gap is None or gap <= RULES["max_year_gap"]
    agreed = [n for n in ("author", "journal", "volume", "page") if ev[n] is True]
    # rule A: near-identical titles with nothing contradicting and something agreeing
    if (
        title >= RULES["auto_title"]
        and year_ok
        and author is not False
        and not contradiction
        and (min(a.words, b.words) >= RULES["auto_short_title_words"] or page or volume)
        and agreed
    ):
        return "merge", f"rule A: title {title:.2f}, year gap {gap}, agree: {', '.join(agreed)}"
    # rule B: the bibliographic fingerprint (author, year, volume, first page) agrees and
    # the titles are close (a subtitle, a translation note, a typo)
    fingerprint = gap == 0 and a.surname == b.surname and volume and page
    if fingerprint and title < RULES["fingerprint_title"]:
        ev["title_contained"] = round(_contained(a, b), 4)
    if (
        fingerprint
        and max(title, float(ev.get("title_contained", 0.0))) >= RULES["fingerprint_title"]
        and (journal is not False or title >= RULES["auto_title"])
    ):
        return "merge", f"rule B: author, year, volume and first page agree; title {title:.2f}"
    # rule C: the same paper in the same journal volume with a page discrepancy (a typo,
    # or a supplement/meeting page): identical long title, author, year, journal, volume
    if (
        title >= RULES["same_title"]
        and min(a.words, b.words) >= RULES["same_title_words"]
        and gap == 0
        and a.surname == b.surname
        and journal
        and volume
    ):
        return "merge", f"rule C: same title, author, year, journal and volume; title {title:.2f}"
    if year_ok and (
        (title >= RULES["review_title"] and author is not False)
        or (title >= RULES["review_title_weak"] and author and page and volume)
    ):
        why = ", ".join(contradiction) if contradiction else "similarity below the automatic rule"
        return "review", f"uncertain: title {title:.2f}; {why}"
    return None


class _UF:
    def __init__(self, n: int) -> None:
        self.p = list(range(n))

    def find(self, x: int) -> int:
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x


def deduplicate(
    papers: Sequence[Paper],
    *,
    auto_only: bool = False,
    reviewed: Mapping[tuple[int, int], Decision] | None = None,
) -> DedupResult:
    """Find duplicate groups among ``papers`` (indices are positions in ``papers``).

    ``reviewed`` maps a pair ``(a, b)`` (a < b) to the reviewer's decision (``merge`` or
    ``distinct``), which overrides the automatic one; with ``auto_only`` reviewer
    decisions are ignored (automatic decisions only; review pairs are listed, not merged).
    """
    reviewed = {} if auto_only else dict(reviewed or {})
    n = len(papers)
    pairs: list[Pair] = []
    all_keys = [identity_keys(p) for p in papers]
    stage1 = group_keys(all_keys)
    for g in stage1:
        if len(g.members) > 1:
            root = g.members[0]
            for other in g.members[1:]:
                shared = sorted(
                    ns
                    for ns, vals in all_keys[root].items()
                    if ns != "record" and vals & all_keys[other].get(ns, set())
                )
                pairs.append(
                    Pair(root, other, 1.0, {"identifiers": shared}, "merge", "shared identifier", 1)
                )
    reps = [list(g.members) for g in stage1]
    feats = [
        _features([papers[i] for i in members], [all_keys[i] for i in members]) for members in reps
    ]

    blocks: dict[str, list[int]] = {}
    for gi, f in enumerate(feats):
        for block_key in _blocking_keys(f):
            blocks.setdefault(block_key, []).append(gi)
    skipped = 0
    seen: set[tuple[int, int]] = set()
    candidates: list[tuple[int, int]] = []
    for block in blocks.values():
        if len(block) < 2:
            continue
        if len(block) > RULES["max_block"]:
            skipped += 1
            continue
        for i, x in enumerate(block):
            for y in block[i + 1 :]:
                cand = (x, y) if x < y else (y, x)
                if cand not in seen:
                    seen.add(cand)
                    candidates.append(cand)

    uf = _UF(len(reps))
    group_ids = [dict(f.ids) for f in feats]
    stage2: list[tuple[float, int, int, Decision, str, dict[str, Any]]] = []
    for x, y in candidates:
        score, ev = _score(feats[x], feats[y])
        decided = _decide(feats[x], feats[y], ev)
        if decided is None:
            continue
        decision, reason = decided
        stage2.append((score, x, y, decision, reason, ev))
    stage2.sort(key=lambda t: (-t[0], t[1], t[2]))
    counts = {"records": n, "stage1_groups": len(reps), "stage1_merged": n - len(reps)}
    merged2 = review = linked = distinct = 0
    for score, x, y, decision, reason, ev in stage2:
        a, b = reps[x][0], reps[y][0]
        key = (min(a, b), max(a, b))
        if key in reviewed:
            decision = reviewed[key]
            reason = f"reviewer: {decision} (was: {reason})"
        if decision == "merge":
            rx, ry = uf.find(x), uf.find(y)
            if rx != ry:
                clash = [
                    ns
                    for ns in NAMESPACES
                    if group_ids[rx].get(ns)
                    and group_ids[ry].get(ns)
                    and not (group_ids[rx][ns] & group_ids[ry][ns])
                ]
                if clash:
                    decision, reason = (
                        "review",
                        "merge would join conflicting identifiers: " + ", ".join(clash),
                    )
                else:
                    uf.p[ry] = rx
                    for ns, vals in group_ids[ry].items():
                        group_ids[rx].setdefault(ns, set()).update(vals)
        merged2 += decision == "merge"
        review += decision == "review"
        linked += decision == "linked"
        distinct += decision == "distinct"
        pairs.append(Pair(key[0], key[1], score, ev, decision, reason, 2))

    final: dict[int, list[int]] = {}
    for gi, rep_members in enumerate(reps):
        final.setdefault(uf.find(gi), []).extend(rep_members)
    groups = sorted((sorted(g) for g in final.values()), key=lambda g: g[0])
    counts.update(
        {
            "candidate_pairs": len(candidates),
            "stage2_merge_pairs": merged2,
            "review_pairs": review,
            "linked_pairs": linked,
            "distinct_pairs": distinct,
            "skipped_blocks": skipped,
            "groups": len(groups),
            "removable": sum(len(g) - 1 for g in groups),
        }
    )
    return DedupResult(groups=groups, pairs=pairs, counts=counts)
