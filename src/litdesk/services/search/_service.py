"""Run one search across the chosen providers concurrently and build the SearchTrace.

Each provider is a lane: compile → (evidence cache) → transport → parse → lane outcome.
Lanes run together (``asyncio.gather``); a slow lane never delays another's completion and
one failing lane never hides the others' results. A replay cassette that lacks a request
fails the whole search with :class:`~litdesk.adapters.http.CassetteMiss` after every lane
has settled (a replay must be complete to be trusted).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from litdesk._errors import LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.http import CassetteMiss, EvidenceCache, Exchange, ProviderTransport
from litdesk.core.providers import check_sources
from litdesk.core.search import (
    CompiledRequest,
    CompileRefused,
    LaneOutcome,
    ProviderName,
    ProviderPage,
)
from litdesk.core.trace import (
    SearchAttempt,
    SearchRequest,
    SearchTrace,
    attempt_from_outcome,
    build_trace,
)

from ._kit import ProviderKit, default_kit

__all__ = ["SearchService"]

_RAW_CHARS = 3_000_000


class SearchService:
    def __init__(
        self,
        settings: Settings,
        transport: ProviderTransport,
        *,
        kit: ProviderKit | None = None,
        cache: EvidenceCache | None = None,
        now: Callable[[], datetime] | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.settings = settings
        self.transport = transport
        self.kit = kit or default_kit()
        self.cache = cache
        self._now = now or (lambda: datetime.now(UTC))
        self._new_id = new_id or (lambda: uuid.uuid4().hex)

    async def _attempt(
        self, compiled: CompiledRequest, requested_cursor: str | None
    ) -> tuple[LaneOutcome, SearchAttempt, Exchange | None]:
        kit = self.kit
        parser = kit.parser_identity(compiled.provider)
        exchange: Exchange | None = None
        if self.cache is not None and self.transport.replay is None:
            exchange = self.cache.fresh(compiled, parser.id, parser.version, self._now())
        if exchange is not None:
            outcome = self.transport.outcome(compiled, exchange, kit.parse, kit.error_message)
        else:
            outcome, exchange = await self.transport.run(compiled, kit.parse, kit.error_message)
            if (
                exchange is not None
                and self.cache is not None
                and outcome.status == "ok"
                and exchange.status == 200
                and not self.transport.redactor.redact_bytes(exchange.body)[1]
            ):
                self.cache.store(compiled, exchange, parser.id, parser.version)
        if not outcome.lane:
            outcome.lane = compiled.lane or compiled.provider
        reuse = exchange.source if exchange is not None and exchange.source != "network" else None
        attempt = attempt_from_outcome(
            outcome,
            parser=parser,
            requested_cursor=requested_cursor,
            reuse=reuse,
            received_at=exchange.received_at.isoformat() if exchange is not None else None,
        )
        return outcome, attempt, exchange

    async def _lane(
        self, provider: ProviderName, request: SearchRequest
    ) -> list[tuple[LaneOutcome, SearchAttempt, Exchange | None]]:
        kit = self.kit
        try:
            compiled = kit.compile(
                provider, request.query, request.filters, request.limit, request.cursor
            )
        except CompileRefused as exc:
            outcome = LaneOutcome(
                provider=provider, lane=provider, status="unsupported", message=exc.message
            )
            attempt = attempt_from_outcome(outcome, parser=None, requested_cursor=request.cursor)
            return [(outcome, attempt, None)]
        if compiled.provider != provider:
            raise LitdeskError(f"compiler for {provider} produced a {compiled.provider} request")
        return await self.execute(compiled, request.cursor)

    async def execute(
        self, compiled: CompiledRequest, cursor: str | None
    ) -> list[tuple[LaneOutcome, SearchAttempt, Exchange | None]]:
        """Run one compiled lane request (and PubMed's follow-up fetch)."""
        check_sources([compiled.provider], demo=self.settings.demo)  # the demo sample: demo only
        kit = self.kit
        request_cursor = cursor
        first = await self._attempt(compiled, request_cursor)
        outcome = first[0]
        if kit.follow_up is None or outcome.status != "ok" or outcome.page is None:
            return [first]
        try:
            second_request = kit.follow_up(compiled, outcome.page)
        except CompileRefused as exc:
            outcome.page.warnings.append(f"records not fetched: {exc.reason}")
            again = attempt_from_outcome(
                outcome,
                parser=first[1].parser,
                requested_cursor=request_cursor,
                reuse=first[1].reuse,
                received_at=first[1].received_at,
            )
            return [(outcome, again, first[2])]
        if second_request is None:
            return [first]
        second = await self._attempt(second_request, None)
        merged = _merge_fetched(outcome.page, second[0])
        outcome.page = merged
        attempt = attempt_from_outcome(
            outcome,
            parser=first[1].parser,
            requested_cursor=request_cursor,
            reuse=first[1].reuse,
            received_at=first[1].received_at,
        )
        fetched_outcome = LaneOutcome(
            provider=second[0].provider, lane=second[0].lane, status=second[0].status
        )  # its records are already in the first page: no second set of sightings
        return [(outcome, attempt, first[2]), (fetched_outcome, second[1], second[2])]

    async def search(self, request: SearchRequest) -> SearchTrace:
        """Run every lane of ``request`` concurrently and return the trace."""
        check_sources(request.providers, demo=self.settings.demo)
        created = self._now()
        results = await asyncio.gather(
            *(self._lane(p, request) for p in request.providers), return_exceptions=True
        )
        pairs: list[tuple[LaneOutcome, SearchAttempt]] = []
        raw: dict[str, str] = {}
        for result in results:
            if isinstance(result, CassetteMiss):
                raise result
            if isinstance(result, BaseException):
                raise result
            for outcome, attempt, exchange in result:
                pairs.append((outcome, attempt))
                if request.include_raw and exchange is not None:
                    text = exchange.body[:_RAW_CHARS].decode("utf-8", "replace")
                    raw.setdefault(outcome.lane, self.transport.redactor.redact(text))
        return build_trace(request, pairs, trace_id=self._new_id(), created_at=created, raw=raw)


def _merge_fetched(page: ProviderPage, fetched: LaneOutcome) -> ProviderPage:
    """Put fetched full records in the search's rank order; an id the fetch did not return
    stays as the id-only record with a notice; a failed fetch keeps the ids with a warning."""
    if fetched.status != "ok" or fetched.page is None:
        page.warnings.append(
            f"full records could not be fetched ({fetched.status}); identifiers only"
        )
        return page
    by_pmid = {p.pmid: p for p in fetched.page.papers if p.pmid}
    papers = []
    notices = dict(page.notices)
    for index, paper in enumerate(page.papers):
        full = by_pmid.get(paper.pmid) if paper.pmid else None
        if full is None:
            notices.setdefault(index, []).append("the fetch did not return this record")
            papers.append(paper)
        else:
            papers.append(full)
    return ProviderPage(
        papers=papers,
        total=page.total,
        next_cursor=page.next_cursor,
        warnings=[*page.warnings, *fetched.page.warnings],
        notices=notices,
    )
