"""The SearchRun (pure): one fused or provider-order search, as run, without raw bodies.

A run records the validated definition, when it was retrieved and executed, the requested
cursor, coverage (``bounded-discovery`` for fused lanes, ``provider-order`` for one
provider lane), every lane's outcome without papers, the distinct count, the candidate
limit, the ranking and deduplication versions, and the hits with their "why this paper"
contributions and conflicts. ``read_run`` validates untrusted data fully.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from litdesk._errors import IntegrityError
from litdesk.core.fusion import (
    DEDUPLICATION_VERSION,
    PROVIDER_ORDER_VERSION,
    RANKING_VERSION,
    Contribution,
    Hit,
    identity_keys,
)
from litdesk.core.providers import DECLARED, LANE_PROVIDER
from litdesk.core.records import Paper, PaperError, read_paper
from litdesk.core.search import SearchFilters
from litdesk.core.vocab import Expansion, ExpansionInvalid, read_expansions

__all__ = [
    "COVERAGES",
    "DEFINITION_KEYS",
    "LANES",
    "LANE_PROVIDER",
    "LANE_STATUSES",
    "MODES",
    "RUN_VERSION",
    "Coverage",
    "LaneResult",
    "RunDefinition",
    "RunHit",
    "RunInvalid",
    "SearchRun",
    "build_run",
    "check_identifiers",
    "read_definition",
    "read_legacy_definition",
    "read_run",
    "reuse_run",
]

RUN_VERSION: Final = 2
Coverage = Literal["bounded-discovery", "provider-order"]
COVERAGES: Final = ("bounded-discovery", "provider-order")
MODES: Final = ("keyword", "semantic", "discovery", "identifier", "providers")
LANE_STATUSES: Final = (
    "ok",
    "rate_limited",
    "unsupported",
    "unavailable",
    "timeout",
    "parse_error",
    "budget_exhausted",
)

#: Every lane a run may hold (its provider: :data:`LANE_PROVIDER`, from the declarations).
LANES: Final = frozenset(LANE_PROVIDER)

_MAX_QUERY = 4096
_MAX_TEXT = 4000
_MAX_HITS = 5000
_MAX_LANES = 16


_RUN_KEYS: Final = frozenset(
    {
        "version",
        "id",
        "definition",
        "retrieved_at",
        "executed_at",
        "requested_cursor",
        "reused_from",
        "reuse",
        "coverage",
        "source",
        "lanes",
        "unique_retrieved",
        "total",
        "next_cursor",
        "candidate_limit",
        "ranking_version",
        "deduplication_version",
        "hits",
    }
)


class RunInvalid(IntegrityError):
    """A stored, recovered or imported search run (or manifest) failed validation."""

    default_code = "run_invalid"


def _fail(message: str) -> RunInvalid:
    return RunInvalid(message[:300])


def _str(value: object, label: str, limit: int = _MAX_TEXT, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise _fail(f"{label} must be text")
    if not empty and not value:
        raise _fail(f"{label} is empty")
    if len(value) > limit:
        raise _fail(f"{label} is longer than {limit:,} characters")
    return value


def _opt_str(value: object, label: str, limit: int = _MAX_TEXT) -> str | None:
    return None if value is None else _str(value, label, limit)


def _int(value: object, label: str, lo: int = 0, hi: int = 10**12) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(f"{label} must be an integer from {lo} to {hi}")
    return value


def _opt_int(value: object, label: str, lo: int = 0, hi: int = 10**12) -> int | None:
    return None if value is None else _int(value, label, lo, hi)


def _obj(value: object, label: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _fail(f"{label} must be an object")
    return value


def _list(value: object, label: str, limit: int) -> list[Any]:
    if not isinstance(value, list) or len(value) > limit:
        raise _fail(f"{label} must be a list of at most {limit} items")
    return value


@dataclass(frozen=True, slots=True)
class RunDefinition:
    """The validated search definition (what the user asked). ``expansions`` is
    provenance only — the subjects picked into the query from a vocabulary; no provider
    compiler reads it (a definition without any leaves it out of its document)."""

    query: str
    mode: str
    providers: tuple[str, ...]
    filters: SearchFilters = field(default_factory=SearchFilters)
    limit: int = 20
    expansions: tuple[Expansion, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "providers": list(self.providers),
            "filters": self.filters.to_dict(),
            "limit": self.limit,
        }
        if self.expansions:
            out["expansions"] = [e.to_dict() for e in self.expansions]
        return out

    def without_expansions(self) -> RunDefinition:
        """The definition as the providers see it (the search cache's identity)."""
        return replace(self, expansions=()) if self.expansions else self


#: The keys a search definition (the search plan a run records) may hold: the plan is
#: schema-closed — any other key is refused, never ignored.
DEFINITION_KEYS: Final = frozenset({"query", "mode", "providers", "filters", "limit", "expansions"})


def read_definition(data: object) -> RunDefinition:
    """A search definition from untrusted data, schema-closed: every key is known (an
    unknown one is refused, so a misspelt ``filter`` or ``provider`` never silently widens
    the search), every value within its rules. Plans written by other tools go through
    :func:`read_legacy_definition` instead."""
    d = _obj(data, "definition")
    unknown = set(d) - DEFINITION_KEYS
    if unknown:
        names = ", ".join(sorted(map(str, unknown)))[:80]
        raise _fail(f"definition has unknown keys: {names}")
    return _definition(d)


def read_legacy_definition(data: object) -> tuple[RunDefinition, tuple[str, ...]]:
    """The legacy import profile, kept apart from :func:`read_definition`: a plan written
    by another tool or an older export may carry keys litdesk does not know; they are
    dropped and named (the notices) instead of refused. The known keys follow the same
    rules as the schema-closed plan."""
    d = _obj(data, "definition")
    dropped = tuple(sorted(str(k)[:60] for k in set(d) - DEFINITION_KEYS))
    kept = {k: v for k, v in d.items() if k in DEFINITION_KEYS}
    notices = tuple(f"unknown key {k!r} dropped (legacy plan)" for k in dropped)
    return _definition(kept), notices


def _definition(d: Mapping[str, Any]) -> RunDefinition:
    query = _str(d.get("query"), "definition.query", _MAX_QUERY, empty=False)
    mode = d.get("mode")
    if mode not in MODES:
        raise _fail(f"definition.mode must be one of {', '.join(MODES)}")
    providers = _list(d.get("providers"), "definition.providers", len(DECLARED))
    if (
        not providers
        or any(p not in DECLARED for p in providers)
        or len(set(providers)) < len(providers)
    ):
        raise _fail("definition.providers must name distinct known providers")
    f = _obj(d.get("filters", {}), "definition.filters")
    allowed = {
        "field": ("all", "title", "abstract", "author"),
        "type": ("all", "review", "preprint", "journal"),
        "sort": ("relevance", "newest", "cited"),
    }
    for name, choices in allowed.items():
        if f.get(name, choices[0]) not in choices:
            raise _fail(f"definition.filters.{name} is not one of {', '.join(choices)}")
    for name in ("open_access", "include_retracted"):
        if not isinstance(f.get(name, False), bool):
            raise _fail(f"definition.filters.{name} must be true or false")
    if not isinstance(f.get("synonyms", False), bool):
        raise _fail("definition.filters.synonyms must be true or false")
    flags = {"open_access", "include_retracted", "synonyms"}
    unknown = set(f) - {*allowed, *flags, "year_from", "year_to"}
    if unknown:
        raise _fail(f"definition.filters has unknown keys: {', '.join(sorted(unknown))[:80]}")
    filters = SearchFilters(
        field=f.get("field", "all"),
        year_from=_opt_int(f.get("year_from"), "year_from", 1000, 2999),
        year_to=_opt_int(f.get("year_to"), "year_to", 1000, 2999),
        open_access=f.get("open_access", False),
        include_retracted=f.get("include_retracted", False),
        type=f.get("type", "all"),
        sort=f.get("sort", "relevance"),
        synonyms=f.get("synonyms"),
    )
    try:
        expansions = read_expansions(d.get("expansions", []))
    except ExpansionInvalid as exc:
        raise _fail(f"definition.{exc.message}") from None
    return RunDefinition(
        query=query,
        mode=str(mode),
        providers=tuple(str(p) for p in providers),
        filters=filters,
        limit=_int(d.get("limit", 20), "definition.limit", 1, 100),
        expansions=expansions,
    )


@dataclass(frozen=True, slots=True)
class LaneResult:
    """One lane's outcome, without papers: the executed expression, status and totals."""

    lane: str
    provider: str
    status: str
    executed_query: str = ""
    returned: int = 0
    total: int | None = None
    next_cursor: str | None = None
    message: str = ""
    warnings: tuple[str, ...] = ()
    retry_after: float | None = None
    reuse: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "lane": self.lane,
            "provider": self.provider,
            "status": self.status,
            "executed_query": self.executed_query,
            "returned": self.returned,
            "total": self.total,
            "next_cursor": self.next_cursor,
            "message": self.message,
            "warnings": list(self.warnings),
            "retry_after": self.retry_after,
            "reuse": self.reuse,
        }


def _read_lane(data: object, index: int) -> LaneResult:
    d = _obj(data, f"lanes[{index}]")
    lane = d.get("lane")
    if lane not in LANES:
        raise _fail(f"lanes[{index}]: unknown lane {str(lane)[:60]!r}")
    provider = d.get("provider")
    if provider != LANE_PROVIDER[str(lane)]:
        raise _fail(f"lanes[{index}]: lane {lane} does not belong to provider {provider!r}")
    status = d.get("status")
    if status not in LANE_STATUSES:
        raise _fail(f"lanes[{index}]: unknown status {str(status)[:40]!r}")
    retry = d.get("retry_after")
    if retry is not None and (
        isinstance(retry, bool)
        or not isinstance(retry, (int, float))
        or not math.isfinite(retry)
        or not 0 <= retry <= 86_400
    ):
        raise _fail(f"lanes[{index}].retry_after must be 0 to 86400 seconds")
    warnings = _list(d.get("warnings", []), f"lanes[{index}].warnings", 50)
    reuse = d.get("reuse")
    return LaneResult(
        lane=str(lane),
        provider=str(provider),
        status=str(status),
        executed_query=_str(d.get("executed_query", ""), "executed_query", 20_000),
        returned=_int(d.get("returned", 0), "returned", 0, 10_000),
        total=_opt_int(d.get("total"), "total"),
        next_cursor=_opt_str(d.get("next_cursor"), "next_cursor", 4096),
        message=_str(d.get("message", ""), "message"),
        warnings=tuple(_str(w, "warning") for w in warnings),
        retry_after=None if retry is None else float(retry),
        reuse=_opt_str(reuse, "reuse", 40),
    )


@dataclass(frozen=True, slots=True)
class RunHit:
    """One ranked paper: the merged record, its score, lanes and ranks, conflicts."""

    paper: Paper
    score: float
    contributions: tuple[Contribution, ...]
    conflicts: tuple[str, ...] = ()
    field_sources: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)

    @classmethod
    def from_hit(cls, hit: Hit) -> RunHit:
        return cls(hit.paper, hit.score, hit.contributions, hit.conflicts, hit.field_sources)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paper": self.paper.to_dict(),
            "score": self.score,
            "contributions": [c.to_dict() for c in self.contributions],
            "conflicts": list(self.conflicts),
            "field_sources": {k: dict(v) for k, v in self.field_sources.items()},
        }


def check_identifiers(paper: Paper, conflicts: Sequence[str], where: str) -> None:
    """A hit without flagged conflicts holds one value per identifier namespace, and
    its primary id agrees with its identifiers."""
    if conflicts:
        return
    for ns, values in identity_keys(paper).items():
        if ns != "record" and len(values) > 1:
            raise _fail(f"{where}: inconsistent {ns} identifiers without a flagged conflict")


def _read_hit(data: object, index: int, ok_lanes: set[str]) -> RunHit:
    where = f"hits[{index}]"
    d = _obj(data, where)
    try:
        paper = read_paper(d.get("paper"))
    except PaperError as exc:
        raise _fail(f"{where}.paper: {exc.message}") from None
    score = d.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise _fail(f"{where}.score must be a finite number")
    contributions: list[Contribution] = []
    for j, c in enumerate(_list(d.get("contributions"), f"{where}.contributions", _MAX_LANES)):
        cd = _obj(c, f"{where}.contributions[{j}]")
        lane = cd.get("lane")
        if lane not in ok_lanes:
            raise _fail(
                f"{where}: a contribution from lane {str(lane)[:60]!r}, not a successful lane"
            )
        if cd.get("provider") != LANE_PROVIDER[str(lane)]:
            raise _fail(f"{where}: contribution provider does not match lane {lane}")
        contributions.append(
            Contribution(str(lane), str(cd["provider"]), _int(cd.get("rank"), "rank", 1, 100_000))
        )
    if not contributions:
        raise _fail(f"{where}: a hit needs at least one contribution")
    if len({c.lane for c in contributions}) < len(contributions):
        raise _fail(f"{where}: one contribution per lane")
    conflicts = tuple(
        _str(c, "conflict") for c in _list(d.get("conflicts", []), f"{where}.conflicts", 20)
    )
    check_identifiers(paper, conflicts, where)
    sources_raw = _obj(d.get("field_sources", {}), f"{where}.field_sources")
    sources: dict[str, dict[str, str | None]] = {}
    for key, value in sources_raw.items():
        if key not in ("abstract", "full_text"):
            raise _fail(f"{where}.field_sources has an unknown field {str(key)[:40]!r}")
        sv = _obj(value, f"{where}.field_sources.{key}")
        sources[key] = {
            k: _opt_str(sv.get(k), f"field_sources.{key}.{k}", 2000)
            for k in ("provider", "source_url", "licence")
        }
    return RunHit(paper, float(score), tuple(contributions), conflicts, sources)


@dataclass(frozen=True, slots=True)
class SearchRun:
    """One search as run (version 2)."""

    id: str
    definition: RunDefinition
    retrieved_at: str
    executed_at: str
    coverage: Coverage
    lanes: tuple[LaneResult, ...]
    unique_retrieved: int
    candidate_limit: int
    ranking_version: str
    hits: tuple[RunHit, ...]
    requested_cursor: str | None = None
    next_cursor: str | None = None
    total: int | None = None
    deduplication_version: str = DEDUPLICATION_VERSION
    reused_from: str | None = None
    reuse: Literal["cache", "coalesced"] | None = None
    version: int = RUN_VERSION

    @property
    def source(self) -> str:
        return "Combined" if len(self.lanes) > 1 else self.lanes[0].provider

    @property
    def succeeded(self) -> bool:
        """Every lane succeeded (only such runs are cached)."""
        return all(lane.status == "ok" for lane in self.lanes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "id": self.id,
            "definition": self.definition.to_dict(),
            "retrieved_at": self.retrieved_at,
            "executed_at": self.executed_at,
            "requested_cursor": self.requested_cursor,
            "reused_from": self.reused_from,
            "reuse": self.reuse,
            "coverage": self.coverage,
            "source": self.source,
            "lanes": [lane.to_dict() for lane in self.lanes],
            "unique_retrieved": self.unique_retrieved,
            "total": self.total,
            "next_cursor": self.next_cursor,
            "candidate_limit": self.candidate_limit,
            "ranking_version": self.ranking_version,
            "deduplication_version": self.deduplication_version,
            "hits": [h.to_dict() for h in self.hits],
        }


def build_run(
    *,
    run_id: str,
    definition: RunDefinition,
    lanes: Sequence[LaneResult],
    hits: Sequence[Hit],
    coverage: Coverage,
    candidate_limit: int,
    retrieved_at: str,
    requested_cursor: str | None = None,
) -> SearchRun:
    """A fresh run from lane outcomes and fused (or provider-ordered) hits."""
    if not lanes:
        raise _fail("a run needs at least one lane")
    provider_order = coverage == "provider-order"
    only = lanes[0] if provider_order and len(lanes) == 1 else None
    return SearchRun(
        id=run_id,
        definition=definition,
        retrieved_at=retrieved_at,
        executed_at=retrieved_at,
        coverage=coverage,
        lanes=tuple(lanes),
        unique_retrieved=len(hits),
        candidate_limit=candidate_limit,
        ranking_version=PROVIDER_ORDER_VERSION if provider_order else RANKING_VERSION,
        hits=tuple(RunHit.from_hit(h) for h in hits),
        requested_cursor=requested_cursor,
        next_cursor=only.next_cursor if only is not None else None,
        total=only.total if only is not None else len(hits),
    )


def reuse_run(
    run: SearchRun, kind: Literal["cache", "coalesced"], *, new_id: str, executed_at: str
) -> SearchRun:
    """A copy of ``run`` served from the cache or a coalesced wait: a fresh id, a new
    execution time, ``reused_from`` the original id; the retrieval time is kept."""
    lanes = tuple(replace(lane, reuse=kind) for lane in run.lanes)
    return replace(
        run,
        id=new_id,
        executed_at=executed_at,
        reused_from=run.reused_from or run.id,
        reuse=kind,
        lanes=lanes,
    )


def read_run(data: object, *, max_hits: int = _MAX_HITS) -> SearchRun:
    """Validate untrusted run data (a store row, a manifest, a fixture): known lanes and
    statuses, provider/lane pairing, at least one successful lane, contributions only
    from successful lanes, identifier consistency through ``read_paper``."""
    d = _obj(data, "run")
    unknown = set(d) - _RUN_KEYS
    if unknown:
        raise _fail(f"run has unknown keys: {', '.join(sorted(map(str, unknown)))[:80]}")
    if d.get("version") != RUN_VERSION:
        raise _fail(f"unknown run version {str(d.get('version'))[:20]!r}")
    run_id = _str(d.get("id"), "run.id", 100, empty=False)
    definition = read_definition(d.get("definition"))
    lanes = tuple(
        _read_lane(x, i) for i, x in enumerate(_list(d.get("lanes"), "run.lanes", _MAX_LANES))
    )
    if not lanes:
        raise _fail("a run needs at least one lane")
    if len({lane.lane for lane in lanes}) < len(lanes):
        raise _fail("a lane appears twice in the run")
    ok = {lane.lane for lane in lanes if lane.status == "ok"}
    if not ok:
        raise _fail("a run needs at least one successful lane")
    coverage = d.get("coverage")
    if coverage not in COVERAGES:
        raise _fail(f"run.coverage must be one of {', '.join(COVERAGES)}")
    ranking = d.get("ranking_version")
    if ranking not in (RANKING_VERSION, PROVIDER_ORDER_VERSION):
        raise _fail(f"unknown ranking version {str(ranking)[:40]!r}")
    hits = tuple(
        _read_hit(x, i, ok) for i, x in enumerate(_list(d.get("hits"), "run.hits", max_hits))
    )
    clean = [h.paper.id for h in hits if not h.conflicts]
    if len(set(clean)) < len(clean):  # a conflict split may keep one id on both sides
        raise _fail("a paper appears twice among the hits")
    reuse = d.get("reuse")
    if reuse not in (None, "cache", "coalesced"):
        raise _fail("run.reuse must be cache, coalesced or null")
    return SearchRun(
        id=run_id,
        definition=definition,
        retrieved_at=_str(d.get("retrieved_at"), "retrieved_at", 40, empty=False),
        executed_at=_str(d.get("executed_at"), "executed_at", 40, empty=False),
        coverage="bounded-discovery" if coverage == "bounded-discovery" else "provider-order",
        lanes=lanes,
        unique_retrieved=_int(d.get("unique_retrieved"), "unique_retrieved", 0, 100_000),
        candidate_limit=_int(d.get("candidate_limit"), "candidate_limit", 0, 100_000),
        ranking_version=str(ranking),
        hits=hits,
        requested_cursor=_opt_str(d.get("requested_cursor"), "requested_cursor", 4096),
        next_cursor=_opt_str(d.get("next_cursor"), "next_cursor", 4096),
        total=_opt_int(d.get("total"), "total"),
        deduplication_version=_str(d.get("deduplication_version"), "deduplication_version", 60),
        reused_from=_opt_str(d.get("reused_from"), "reused_from", 100),
        reuse=reuse,
    )
