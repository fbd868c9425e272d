"""Fused search: lane planning, concurrent lanes, RRF fusion, store cache with
coalescing (per owner, across processes), and saving runs.

Lane plans (reference "Search execution, merging and ranking"):

* exact identifier — one lookup lane (OpenAlex ids at OpenAlex, everything else at
  Europe PMC, or the one provider chosen);
* ``keyword`` — one provider's keyword lane, provider order kept, provider paging;
* ``semantic`` — the OpenAlex semantic lane, a bounded shortlist of at most 50;
* ``discovery`` — Europe PMC keyword + OpenAlex keyword + OpenAlex semantic (not for
  Boolean queries), 50 per lane, fused with RRF;
* several chosen providers — each provider's keyword lane, fused with RRF.

Lanes run concurrently. The shared work of a search is one task; a caller that is
cancelled does not cancel it (it is awaited through ``asyncio.shield``), so coalesced
callers and the cache still receive the result — unless the caller asked ``stop_alone``
(the web page's "Cancel search") and nobody else waits for it: then its lanes stop. An
``on_lane`` observer hears each lane's result as the lane finishes (live progress).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal

from litdesk._errors import InputError
from litdesk.adapters.store import (
    MAX_RUN_BYTES,
    SearchRunRow,
    Store,
    cache_abandon,
    cache_claim,
    cache_fill,
    dump_json,
    get_search_run,
    link_or_insert_run,
    list_search_runs,
    repo,
)
from litdesk.core.fusion import Sighting, fuse, provider_order
from litdesk.core.providers import (
    DISCOVERY_LANES,
    MODE_DEFAULTS,
    SearchMode,
    display_name,
    provider_spec,
)
from litdesk.core.query import (
    QuerySyntaxError,
    compile_lane,
    compile_search,
    parse_query,
    plan_identifier,
)
from litdesk.core.runs import (
    Coverage,
    LaneResult,
    RunDefinition,
    SearchRun,
    bibliography,
    build_run,
    read_definition,
    read_run,
    reuse_run,
)
from litdesk.core.search import CompiledRequest, CompileRefused, LaneOutcome
from litdesk.core.vocab import Expansion
from litdesk.services.workspace import Workspace

if TYPE_CHECKING:  # the transport's modules come with the service the app passes
    from ._service import SearchService

__all__ = [
    "searched_at",
    "CACHE_SECONDS",
    "FusedSearchError",
    "DISCOVERY_LIMIT",
    "FusedSearch",
    "LaneObserver",
    "LanePlan",
    "SearchPlan",
    "cache_key",
    "load_run",
    "make_definition",
    "plan_search",
    "run_document",
    "run_text",
    "runs_of",
    "save_run",
]

DISCOVERY_LIMIT: Final = 50
CACHE_SECONDS: Final = 300.0
CACHE_VERSION: Final = 2
_POLL: Final = 0.1


class FusedSearchError(InputError):
    """The search definition cannot be planned (for example: a bad mode/provider mix)."""

    default_code = "search_plan"


@dataclass(frozen=True, slots=True)
class LanePlan:
    lane: str
    provider: str
    request: CompiledRequest | None
    refused: str | None = None
    #: the records the lane asked for (a provider may answer with more: Semantic
    #: Scholar's bulk search ignores it and returns up to 1,000 a page)
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class SearchPlan:
    lanes: tuple[LanePlan, ...]
    coverage: Coverage
    candidate_limit: int


def _compile(
    provider: str, definition: RunDefinition, cursor: str | None, limit: int, mode: SearchMode
) -> LanePlan:
    spec = provider_spec(provider)
    # the lane a refusal is recorded under: the provider's first lane of the mode
    lanes = spec.search_lanes(mode) or spec.search_lanes()
    lane = lanes[0].name
    try:
        request = compile_search(
            provider, definition.query, definition.filters, cursor=cursor, limit=limit, mode=mode
        )
    except CompileRefused as exc:
        return LanePlan(lane, provider, None, exc.reason, limit)
    return LanePlan(request.lane or lane, provider, request, limit=limit)


def _is_boolean(definition: RunDefinition) -> bool:
    try:
        return parse_query(definition.query).has_boolean_syntax
    except QuerySyntaxError:
        return True


def plan_search(definition: RunDefinition, cursor: str | None = None) -> SearchPlan:
    """The lanes a definition runs, its coverage and candidate limit (no I/O)."""
    mode = definition.mode
    providers = definition.providers
    exact = (
        plan_identifier(definition.query, field=definition.filters.field)
        if cursor is None
        else None
    )
    if exact is not None:
        provider = (
            providers[0] if len(providers) == 1 and mode == "keyword" else exact.primary_provider
        )
        lookup = provider_spec(provider).lane("lookup")
        try:
            request = compile_lane(provider, definition.query, definition.filters)
            lane = LanePlan(request.lane or lookup, provider, request)
        except CompileRefused as exc:
            lane = LanePlan(lookup, provider, None, exc.reason)
        return SearchPlan((lane,), "provider-order", definition.limit)
    if cursor is not None and (mode in ("semantic", "discovery") or len(providers) > 1):
        raise FusedSearchError("a cursor pages one provider's keyword search only")
    if mode == "semantic":
        (provider,) = MODE_DEFAULTS["semantic"]  # the one provider with a semantic lane
        lane = _compile(provider, definition, None, DISCOVERY_LIMIT, "semantic")
        return SearchPlan((lane,), "bounded-discovery", DISCOVERY_LIMIT)
    if mode == "discovery":
        boolean = _is_boolean(definition)
        lanes = [
            _compile(provider, definition, None, DISCOVERY_LIMIT, lane_mode)
            for provider, lane_mode in DISCOVERY_LANES
            if not (boolean and lane_mode == "semantic")
        ]
        return SearchPlan(tuple(lanes), "bounded-discovery", len(lanes) * DISCOVERY_LIMIT)
    if len(providers) == 1:
        lane = _compile(providers[0], definition, cursor, definition.limit, "keyword")
        return SearchPlan((lane,), "provider-order", definition.limit)
    lanes = [_compile(p, definition, None, definition.limit, "keyword") for p in providers]
    return SearchPlan(tuple(lanes), "bounded-discovery", len(lanes) * definition.limit)


def make_definition(
    query: str,
    *,
    mode: str = "keyword",
    providers: list[str] | None = None,
    filters: Mapping[str, object] | None = None,
    limit: int = 20,
    expansions: Sequence[Expansion] = (),
) -> RunDefinition:
    """A validated definition (raises :class:`~litdesk.core.runs.RunInvalid` as an input
    error for the CLI); ``filters``: raw values, validated here as a stored definition's
    are; ``expansions``: the subjects picked into the query (provenance)."""
    chosen = providers or list(MODE_DEFAULTS.get(mode, MODE_DEFAULTS["keyword"]))
    if isinstance(query, str) and not query.strip():
        parse_query(query)  # raises the query's own typed error: "the query is empty"
    data = {
        "query": query,
        "mode": mode,
        "providers": chosen,
        "filters": dict(filters or {}),
        "limit": limit,
        "expansions": [e.to_dict() for e in expansions],
    }
    return read_definition(data)


def cache_key(owner: str, definition: RunDefinition, cursor: str | None) -> str:
    text = json.dumps(
        {
            "owner": owner,
            "definition": definition.to_dict(),
            "cursor": cursor,
            "version": CACHE_VERSION,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return "search:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _lane_keeps(plan: LanePlan, outcome: LaneOutcome | None, coverage: Coverage) -> int | None:
    """How many of the lane's records a run of several lanes keeps: at most the lane's
    limit (the candidate limit is the lanes' limits added); ``None``: all of them (one
    provider's page is kept whole, so that its next page continues after it)."""
    if coverage == "provider-order" or plan.limit is None or outcome is None:
        return None
    page = outcome.page if outcome.status == "ok" else None
    if page is None or len(page.papers) <= plan.limit:
        return None
    return plan.limit


def _lane_result(
    plan: LanePlan, outcome: LaneOutcome | None, kept: int | None = None
) -> LaneResult:
    if outcome is None:
        return LaneResult(plan.lane, plan.provider, "unsupported", message=plan.refused or "")
    page = outcome.page if outcome.status == "ok" else None
    warnings = tuple(page.warnings) if page is not None else ()
    returned = len(page.papers) if page is not None else 0
    if kept is not None and returned > kept:
        name = display_name(plan.provider)
        warnings += (
            f"{name} returned {returned:,} records for a limit of {kept:,} (it does not "
            f"apply the limit to this search); the first {kept:,} were kept",
        )
        returned = kept
    elif plan.limit is not None and returned > plan.limit:
        warnings += (
            f"{display_name(plan.provider)} returned {returned:,} records for a limit of "
            f"{plan.limit:,} (it does not apply the limit to this search); the page is kept "
            "whole, so that its next page continues after it",
        )
    executed = outcome.request.executed_query if outcome.request is not None else ""
    if not executed and plan.request is not None:
        executed = plan.request.executed_query
    return LaneResult(
        lane=plan.lane,
        provider=plan.provider,
        status=outcome.status,
        executed_query=executed,
        returned=returned,
        total=page.total if page is not None else None,
        next_cursor=page.next_cursor if page is not None else None,
        message=outcome.message,
        warnings=warnings,
        retry_after=outcome.retry_after,
    )


#: Told each lane's result as the lane finishes (live progress of a search).
LaneObserver = Callable[[LaneResult], None]


class FusedSearch:
    """Runs planned lanes over a :class:`SearchService`, with the store cache."""

    def __init__(
        self,
        service: SearchService,
        store: Store | None = None,
        *,
        owner: str = "local",
        ttl_seconds: float = CACHE_SECONDS,
        lease_seconds: float = 60.0,
        now: Callable[[], datetime] | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.service = service
        self.store = store
        self.owner = owner
        self.ttl = ttl_seconds
        self.lease = lease_seconds
        self._now = now or (lambda: datetime.now(UTC))
        self._new_id = new_id or (lambda: uuid.uuid4().hex)
        # callers of this process join one task per key before it asks the store; which
        # process runs a search, and every cached answer, is decided by the store's claim
        self._inflight: dict[str, asyncio.Task[tuple[SearchRun, str]]] = {}
        self._waiting: dict[str, int] = {}  # callers awaiting each in-flight key
        self.lane_calls = 0  # lanes actually executed by this object (tests, bench)

    async def _lane(
        self,
        plan: LanePlan,
        cursor: str | None,
        coverage: Coverage,
        on_lane: LaneObserver | None = None,
    ) -> tuple[LanePlan, LaneOutcome | None, str | None]:
        """The lane's plan, outcome and when its database answered (ISO; a replayed
        answer's is when it was recorded)."""
        outcome: LaneOutcome | None = None
        received: str | None = None
        if plan.request is not None:
            self.lane_calls += 1
            results = await self.service.execute(plan.request, cursor)
            outcome, received = results[0][0], results[0][1].received_at
        if on_lane is not None:
            on_lane(_lane_result(plan, outcome, _lane_keeps(plan, outcome, coverage)))
        return plan, outcome, received

    async def execute(
        self,
        definition: RunDefinition,
        cursor: str | None = None,
        *,
        on_lane: LaneObserver | None = None,
    ) -> SearchRun:
        """Run every lane now (no cache) and build the run; ``on_lane`` is told each
        lane's result as that lane finishes (live progress). A replay's run is dated when
        the databases were searched (its recording: PRISMA-S item 13), ``executed_at``
        when it was replayed."""
        plan = plan_search(definition, cursor)
        retrieved = self._now().isoformat()
        settled = await asyncio.gather(
            *(self._lane(lane, cursor, plan.coverage, on_lane) for lane in plan.lanes),
            return_exceptions=True,
        )
        lanes: list[LaneResult] = []
        sightings: list[Sighting] = []
        answered: list[str] = []
        for item in settled:
            if isinstance(item, BaseException):
                raise item
            lane_plan, outcome, received = item
            answered += [received] if received else []
            kept = _lane_keeps(lane_plan, outcome, plan.coverage)
            result = _lane_result(lane_plan, outcome, kept)
            lanes.append(result)
            if outcome is not None and outcome.status == "ok" and outcome.page is not None:
                papers = outcome.page.papers if kept is None else outcome.page.papers[:kept]
                sightings.extend(
                    Sighting(lane_plan.lane, lane_plan.provider, rank, paper)
                    for rank, paper in enumerate(papers, start=1)
                )
        hits = provider_order(sightings) if plan.coverage == "provider-order" else fuse(sightings)
        searched = searched_at(answered) if self.service.transport.replay is not None else None
        run = build_run(
            run_id=self._new_id(),
            definition=definition,
            lanes=lanes,
            hits=hits,
            coverage=plan.coverage,
            candidate_limit=plan.candidate_limit,
            retrieved_at=searched or retrieved,
            requested_cursor=cursor,
        )
        return run if searched is None else replace(run, executed_at=retrieved)

    async def _shared(
        self,
        key: str,
        definition: RunDefinition,
        cursor: str | None,
        on_lane: LaneObserver | None = None,
    ) -> tuple[SearchRun, str]:
        store = self.store
        if store is None:
            return await self.execute(definition, cursor, on_lane=on_lane), "fresh"
        waited = False
        while True:
            claim = await asyncio.to_thread(
                cache_claim, store, key, self.owner, lease_seconds=self.lease
            )
            if claim.state == "hit":
                return read_run(claim.value), ("coalesced" if waited else "cache")
            if claim.state == "claimed":
                break
            waited = True
            await asyncio.sleep(_POLL)
        try:
            run = await self.execute(definition, cursor, on_lane=on_lane)
        except BaseException:
            await asyncio.to_thread(cache_abandon, store, key, self.owner)
            raise
        if run.succeeded:
            await asyncio.to_thread(
                cache_fill, store, key, self.owner, run.to_dict(), ttl_seconds=self.ttl
            )
        else:
            await asyncio.to_thread(cache_abandon, store, key, self.owner)
        return run, "fresh"

    async def search(
        self,
        definition: RunDefinition,
        cursor: str | None = None,
        *,
        on_lane: LaneObserver | None = None,
        stop_alone: bool = False,
    ) -> SearchRun:
        """The run for ``definition``: fresh, or a reused copy (``cache``/``coalesced``).

        ``on_lane`` hears each lane finish when this call starts the shared work (a reused
        run's lanes arrive with the run). With ``stop_alone`` a cancelled caller that is the
        only one waiting also cancels the shared work (its lanes stop; nothing is cached);
        otherwise the work goes on for the other callers and the cache."""
        if self.service.transport.replay is not None:  # a replay is never cached
            return await self.execute(definition, cursor, on_lane=on_lane)
        # expansion provenance is not sent to a provider: the same search with another
        # picked subject reuses the results and records its own provenance
        key = cache_key(self.owner, definition.without_expansions(), cursor)
        task = self._inflight.get(key)
        first = task is None
        if task is None:
            task = asyncio.ensure_future(self._shared(key, definition, cursor, on_lane))
            self._inflight[key] = task
            task.add_done_callback(lambda _t: self._inflight.pop(key, None))
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            run, how = await asyncio.shield(task)
        except asyncio.CancelledError:
            if stop_alone and self._waiting.get(key) == 1:
                task.cancel()
            raise
        finally:
            left = self._waiting.get(key, 1) - 1
            if left > 0:
                self._waiting[key] = left
            else:
                self._waiting.pop(key, None)
        if how == "fresh" and first:
            return run
        kind: Literal["cache", "coalesced"] = "cache" if how == "cache" else "coalesced"
        reused = reuse_run(run, kind, new_id=self._new_id(), executed_at=self._now().isoformat())
        return replace(reused, definition=definition)


def run_document(run: SearchRun) -> dict[str, Any]:
    """``run`` as the document the store keeps: whole, or — when over
    :data:`MAX_RUN_BYTES` — with its hits cut to their bibliography (no abstracts)."""
    return _kept(run)[0]


def run_text(run: SearchRun) -> str:
    """:func:`run_document` as the JSON text the store keeps (serialised once)."""
    return _kept(run)[1]


def _kept(run: SearchRun) -> tuple[dict[str, Any], str]:
    body = run.to_dict()
    text = dump_json(body)
    if len(text.encode("utf-8")) > MAX_RUN_BYTES:  # keep the run, drop abstracts
        slim = replace(
            run,
            hits=tuple(replace(h, paper=bibliography(h.paper), field_sources={}) for h in run.hits),
        )
        body = slim.to_dict()
        text = dump_json(body)
    return body, text


def save_run(
    store: Store, run: SearchRun, *, owner: str = "local", study: str | None = None
) -> None:
    """Store ``run`` (immutable) and optionally keep it in a Study, in one transaction: its
    hits become the Study's papers; a Study that does not exist leaves nothing stored. A run in which no lane succeeded
    is refused (it could not be read back as a run)."""
    if not any(lane.status == "ok" for lane in run.lanes):
        raise FusedSearchError("every lane failed; there is no run to save", code="run_failed")
    body = run_document(run)
    now = datetime.now(UTC).isoformat()
    row = SearchRunRow(
        run.id, owner, run.definition.to_dict(), body, created_at=now, executed_at=run.executed_at
    )
    ws = Workspace(store, owner=owner)
    # the run, its Study link and its hits as the Study's papers commit together, or none
    with store.write() as conn:
        study_id = repo.get_study(conn, study, account=owner).id if study is not None else None
        if not link_or_insert_run(conn, row):
            raise InputError(f"search run {run.id} already exists", code="run_exists")
        if study_id is not None:  # kept now; the hits whole, not the stored document's cut
            ws.keep_run_in(conn, study_id, run.id, now, [hit.paper for hit in run.hits])


def load_run(store: Store, run_id: str, *, owner: str | None = None) -> SearchRun:
    """A stored run, validated fully."""
    return read_run(get_search_run(store, run_id, owner=owner).run)


def runs_of(store: Store, owner: str = "local", limit: int = 500) -> list[SearchRun]:
    return [read_run(r.run) for r in list_search_runs(store, owner, limit=limit)]


def searched_at(received: Sequence[str]) -> str | None:
    """The first time a database answered of ``received`` (ISO 8601; ``None`` for none):
    a replayed search's date as PRISMA-S reports it, the recording's, not the replay's."""
    times = [datetime.fromisoformat(r) for r in received]
    return min(times).isoformat() if times else None
