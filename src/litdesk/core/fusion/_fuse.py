"""Merging grouped sightings into hits, and reciprocal rank fusion (pure).

A :class:`Sighting` is one record as one lane returned it, at a 1-based rank. Fusion
groups sightings by identity (:func:`group_identities`), orders each group's records
canonically, merges their fields exactly as the reference says, and scores hits with
reciprocal rank fusion: ``score = Σ over lanes 1 / (k + best rank in that lane)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from litdesk.core.records import AbstractSource, Paper

from ._graph import group_identities

__all__ = [
    "PROVIDER_ORDER_VERSION",
    "RANKING_VERSION",
    "RRF_K",
    "Contribution",
    "Hit",
    "Sighting",
    "canonical_order",
    "fuse",
    "merge_records",
    "provider_order",
]

RRF_K: Final = 60
RANKING_VERSION: Final = "rrf-60-v1"
PROVIDER_ORDER_VERSION: Final = "provider-order-v1"


@dataclass(frozen=True, slots=True)
class Sighting:
    """One record as one lane returned it."""

    lane: str
    provider: str
    rank: int  # 1-based, in the lane's own order
    paper: Paper


@dataclass(frozen=True, slots=True)
class Contribution:
    """A lane that retrieved the hit, at its best rank there ("why this paper")."""

    lane: str
    provider: str
    rank: int

    def to_dict(self) -> dict[str, Any]:
        return {"lane": self.lane, "provider": self.provider, "rank": self.rank}


@dataclass(frozen=True, slots=True)
class Hit:
    """One paper after fusion: the merged record, its sources and why it ranks where it does."""

    paper: Paper
    records: tuple[Sighting, ...]
    contributions: tuple[Contribution, ...]
    score: float
    conflicts: tuple[str, ...] = ()
    field_sources: dict[str, dict[str, str | None]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paper": self.paper.to_dict(),
            "score": self.score,
            "contributions": [c.to_dict() for c in self.contributions],
            "conflicts": list(self.conflicts),
            "field_sources": self.field_sources,
            "records": [
                {"lane": s.lane, "provider": s.provider, "rank": s.rank, "id": s.paper.id}
                for s in self.records
            ],
        }


_EPMC: Final = frozenset({"europepmc", "Europe PMC"})
_OPENALEX: Final = frozenset({"openalex", "OpenAlex"})


def _source_rank(s: Sighting) -> int:
    pid = s.paper.id
    if pid.startswith("MED-") and s.provider in _EPMC:
        return 0
    if pid.startswith("MED-") and s.provider in _OPENALEX:
        return 1
    if pid.startswith("MED-"):
        return 2
    if pid.startswith("PMC-"):
        return 3
    if s.provider in _EPMC:
        return 4
    if s.provider in _OPENALEX:
        return 5
    return 6


def _completeness(p: Paper) -> int:
    return sum(
        (
            bool(p.title),
            bool(p.journal),
            p.year is not None,
            bool(p.authors),
            bool(p.abstract),
            bool(p.full_text_url),
        )
    )


def _stable(p: Paper) -> str:
    return p.model_dump_json()


def canonical_order(records: Sequence[Sighting]) -> list[Sighting]:
    """MED- from Europe PMC, MED- from OpenAlex, other MED-, PMC-, other Europe PMC,
    OpenAlex, the rest; ties by completeness, then a stable key."""
    if len(records) < 2:  # nothing to order (the stable key is a whole record's JSON)
        return list(records)
    return sorted(
        records,
        key=lambda s: (_source_rank(s), -_completeness(s.paper), _stable(s.paper), s.lane, s.rank),
    )


def merge_records(
    ordered: Sequence[Sighting],
) -> tuple[Paper, dict[str, dict[str, str | None]]]:
    """Merge canonically ordered records of one paper into one Paper plus field sources."""
    papers = [s.paper for s in ordered]
    primary = papers[0]

    def first(name: str) -> Any:
        for p in papers:
            value = getattr(p, name)
            if value:
                return value
        return None

    best_abstract: Sighting | None = None
    for s in ordered:
        if s.paper.abstract and (
            best_abstract is None or len(s.paper.abstract) > len(best_abstract.paper.abstract or "")
        ):
            best_abstract = s
    text_source = next((s for s in ordered if s.paper.full_text_url), ordered[0])
    types: list[str] = []
    for p in papers:
        for t in p.publication_types:
            if t not in types:
                types.append(t)
    keywords: list[str] = []
    for p in papers:
        for k in p.keywords:
            if k not in keywords:
                keywords.append(k)
    cited = [p.cited_by for p in papers if p.cited_by is not None]
    abstract_source = None
    if best_abstract is not None:
        ap = best_abstract.paper
        abstract_source = AbstractSource(
            provider=best_abstract.provider,
            source_url=ap.source_url,
            retrieved_at=ap.retrieved_at,
        )
    # every value comes from an already validated Paper of the same group, so the
    # merged record is a copy of the primary with validated values (no re-validation)
    merged = primary.model_copy(
        update=dict(
            title=first("title") or "",
            authors=first("authors") or (),
            journal=first("journal"),
            year=first("year"),
            volume=first("volume"),
            issue=first("issue"),
            pages=first("pages"),
            doi=first("doi"),
            pmid=first("pmid"),
            pmcid=first("pmcid"),
            openalex_id=first("openalex_id"),
            arxiv_id=first("arxiv_id"),
            arxiv_version=first("arxiv_version"),
            abstract=best_abstract.paper.abstract if best_abstract else None,
            keywords=tuple(keywords),
            publication_types=tuple(types),
            open_access=text_source.paper.open_access,
            retracted=any(p.retracted for p in papers),
            cited_by=max(cited) if cited else None,
            source_url=primary.source_url,
            full_text_url=text_source.paper.full_text_url,
            licence=text_source.paper.licence,
            retrieved_at=primary.retrieved_at,
            provider=primary.provider,
            abstract_source=abstract_source,
        )
    )
    sources: dict[str, dict[str, str | None]] = {}
    if best_abstract is not None:
        sources["abstract"] = {
            "provider": best_abstract.provider,
            "source_url": best_abstract.paper.source_url,
            "licence": best_abstract.paper.licence,
        }
    if text_source.paper.full_text_url:
        sources["full_text"] = {
            "provider": text_source.provider,
            "source_url": text_source.paper.full_text_url,
            "licence": text_source.paper.licence,
        }
    return merged, sources


def _best_contributions(records: Sequence[Sighting]) -> tuple[Contribution, ...]:
    best: dict[str, Contribution] = {}
    for s in records:
        cur = best.get(s.lane)
        if cur is None or s.rank < cur.rank:
            best[s.lane] = Contribution(s.lane, s.provider, s.rank)
    return tuple(sorted(best.values(), key=lambda c: (c.rank, c.lane)))


def _hits(sightings: Sequence[Sighting]) -> list[Hit]:
    groups = group_identities(s.paper for s in sightings)
    hits: list[Hit] = []
    for g in groups:
        ordered = canonical_order([sightings[i] for i in g.members])
        merged, sources = merge_records(ordered)
        contributions = _best_contributions(ordered)
        score = sum(1.0 / (RRF_K + c.rank) for c in contributions)
        hits.append(Hit(merged, tuple(ordered), contributions, score, g.conflicts, sources))
    return hits


def _tiebreak(h: Hit) -> tuple[float, str, str]:
    contrib = json.dumps([c.to_dict() for c in h.contributions], sort_keys=True)
    return (-h.score, h.paper.id, _stable(h.paper) + contrib)


def fuse(sightings: Sequence[Sighting]) -> list[Hit]:
    """Group, merge and rank by reciprocal rank fusion (k = 60), deterministically."""
    return _tie_sorted(_hits(sightings), lambda h: (-h.score, h.paper.id))


def _tie_sorted(hits: list[Hit], head: Callable[[Hit], tuple[Any, ...]]) -> list[Hit]:
    """``hits`` sorted by ``head`` then :func:`_tiebreak`'s record key — the order of
    sorting by both at once, with the record key (a whole record's JSON) made only for
    hits whose ``head`` ties."""
    ordered = sorted(hits, key=head)
    out: list[Hit] = []
    i = 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and head(ordered[j]) == head(ordered[i]):
            j += 1
        run = ordered[i:j]
        out += sorted(run, key=lambda h: _tiebreak(h)[2]) if len(run) > 1 else run
        i = j
    return out


def provider_order(sightings: Sequence[Sighting]) -> list[Hit]:
    """Group and merge, keeping the provider's own order (best native rank first)."""
    hits = _hits(sightings)
    return _tie_sorted(hits, lambda h: (min(c.rank for c in h.contributions), h.paper.id))
