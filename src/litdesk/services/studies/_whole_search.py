"""Whole searches into a Study (issue 27): every lane of a search paged with the providers'
cursors or offsets up to a cap per lane, as a background job; the run, its hits (each
with its lane and rank) and its link to the Study committed in one transaction at the end.

* :func:`whole_lanes` — the pageable keyword lanes of a definition (a semantic or an
  identifier search has no whole result set to page through);
* :func:`harvest` — pages the lanes concurrently (``on_page`` hears each page and may stop
  the work: a cancel), each lane ``complete``, ``capped`` (its total is over the cap, or
  the provider stops paging), ``partial`` (a page failed after earlier pages: the
  allowance is spent, a provider error) or ``failed``;
* :func:`whole_run` — the harvest as a run document (lanes, totals, a note per lane; no
  hits) and its hit rows;
* :func:`commit_whole` — the one transaction: the run, its hits, the Study link and round,
  and each hit saved as a paper of the Study (so the Study's pages, exports and screening
  see it today; the working set reads the run's hits through
  :func:`litdesk.adapters.store.whole_searches.run_hits`).

A job killed mid-way leaves nothing: the hits live in the worker's memory until the commit;
a job claimed again pages again from the start, and one whose commit happened before its
worker died finds its round by job id and answers it.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Final, Literal, Protocol

from litdesk._errors import InputError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.http import CassetteMiss, StoreMeter
from litdesk.adapters.store import Store, allowance_owner, job_held
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.fusion import Sighting, fuse, provider_order
from litdesk.core.providers import DISCOVERY_LANES, lane_label, lane_notice, provider_spec
from litdesk.core.query import compile_search
from litdesk.core.records import Paper
from litdesk.core.runs import LaneResult, RunDefinition, RunHit, SearchRun, build_run
from litdesk.core.search import CompileRefused
from litdesk.core.words import plural
from litdesk.services.jobs import JobLeaseLost
from litdesk.services.search import SearchService, searched_at
from litdesk.services.workspace import Workspace, catch_up_kept_runs, take_papers

__all__ = [
    "DEFAULT_CAP",
    "MAX_CAP",
    "PAGE_SIZE",
    "Harvest",
    "LaneHarvest",
    "LaneState",
    "PageHook",
    "SearchProviders",
    "WholeSearchRefused",
    "Committed",
    "commit_whole",
    "harvest",
    "lane_requests",
    "remaining_allowance",
    "whole_lanes",
    "whole_run",
]

#: the cap per lane unless the request states one
DEFAULT_CAP: Final = 10_000
#: the largest cap per lane (a run's lane records at most this many)
MAX_CAP: Final = 10_000
#: records asked per page (the providers' common page size)
PAGE_SIZE: Final = 100
#: providers whose page is two requests (PubMed: esearch, then efetch)
_TWO_STEP: Final = frozenset({"pubmed"})

LaneState = Literal["complete", "capped", "partial", "failed"]


class WholeSearchRefused(InputError):
    """A search that cannot be added whole (semantic, identifier, nothing to page)."""

    default_code = "whole_search"


class SearchProviders(Protocol):
    """What whole searches need of the app's providers (a protocol keeps the packages
    acyclic: :class:`~litdesk.services.providers.Providers` builds on this one)."""

    @property
    def store(self) -> Store: ...

    @property
    def settings(self) -> Settings: ...

    def search_service(
        self, *, owner: str | None = None, use_cache: bool = True
    ) -> SearchService: ...


def whole_lanes(definition: RunDefinition) -> list[tuple[str, str]]:
    """``(provider, lane)`` of each pageable keyword lane of ``definition``."""
    if definition.mode == "semantic":
        raise WholeSearchRefused(
            "a semantic search is a bounded shortlist; add a keyword search whole",
            code="whole_semantic",
        )
    if definition.mode == "identifier":
        raise WholeSearchRefused("an identifier search has one record", code="whole_identifier")
    if definition.mode == "discovery":
        providers: list[str] = [p for p, lane_mode in DISCOVERY_LANES if lane_mode == "keyword"]
    else:
        providers = [str(p) for p in definition.providers]
    out: list[tuple[str, str]] = []
    for provider in providers:
        lanes = provider_spec(provider).search_lanes("keyword")
        if lanes:
            out.append((provider, _lane_run(provider, definition, lanes[0].name)))
    if not out:
        raise WholeSearchRefused("no provider of this search pages its results", code="whole_none")
    return out


def _lane_run(provider: str, definition: RunDefinition, first: str) -> str:
    """The lane the provider's first page really runs on: a Boolean query goes to Semantic
    Scholar's bulk search, not its relevance search (the run, the preview and PRISMA-S name
    the lane that was asked); ``first`` when the query cannot be compiled there."""
    try:
        compiled = compile_search(
            provider, definition.query, definition.filters, limit=PAGE_SIZE, mode="keyword"
        )
    except CompileRefused:
        return first
    return compiled.lane or first


def lane_requests(provider: str, total: int | None, cap: int) -> int:
    """Requests paging ``min(total, cap)`` records takes (PubMed: two per page)."""
    wanted = cap if total is None else min(total, cap)
    pages = max(1, math.ceil(wanted / PAGE_SIZE))
    return pages * (2 if provider in _TWO_STEP else 1)


def remaining_allowance(store: Store, settings: Settings, owner: str, provider: str) -> int:
    """Calls ``owner`` may still make to ``provider`` today (the smaller of the provider's
    global and the owner's daily allowance)."""
    meter = StoreMeter(store, settings, owner=allowance_owner(owner))
    global_limit, owner_limit = meter.limits(provider)
    used = meter.used(provider)
    return max(0, min(global_limit, owner_limit) - used)


@dataclass(slots=True)
class LaneHarvest:
    """One lane paged: its papers in the provider's order and how the paging ended."""

    provider: str
    lane: str
    cap: int
    state: LaneState = "complete"
    total: int | None = None
    requests: int = 0
    pages: int = 0
    executed_query: str = ""
    message: str = ""
    status: str = "ok"  # the failing page's status when nothing was retrieved
    #: when the database answered the lane's first page (ISO; a replay's: its recording)
    answered: str | None = None
    warnings: list[str] = field(default_factory=list)
    papers: list[Paper] = field(default_factory=list)

    def note(self) -> str:
        """The lane's note in the run (PRISMA-S reads it)."""
        got = len(self.papers)
        total = "unknown" if self.total is None else f"{self.total:,}"
        if self.state == "complete":
            return f"whole search: complete ({got:,} of {total})"
        if self.state == "capped":
            return f"whole search: capped at {self.cap:,} ({got:,} of {total} retrieved)"
        return f"whole search: {self.state} ({got:,} of {total} retrieved): {self.message}"

    def _notice(self) -> str:
        if self.status == "cassette_miss":  # a replay: nothing was sent
            return (
                f"{lane_label(self.lane)}: {self.message} (nothing was sent). Record the "
                "search again with --record to replay this database whole."
            )
        return lane_notice(self.status, self.lane, message=self.message)

    def to_dict(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "lane": self.lane,
            "state": self.state,
            "status": self.status,
            "total": self.total,
            "retrieved": len(self.papers),
            "cap": self.cap,
            "requests": self.requests,
            "pages": self.pages,
            "message": self.message,
            # for people: the lane's name and, when a page failed, what happened and what
            # to do ("Europe PMC did not answer in 30 seconds. Try again, or …")
            "label": lane_label(self.lane),
            "notice": self._notice() if self.state in ("partial", "failed") else "",
        }


@dataclass(slots=True)
class Harvest:
    lanes: list[LaneHarvest]
    stopped: bool = False  # the work was asked to stop (cancel, shutdown)
    started_at: str = ""
    #: answered from a cassette: the run is dated when its databases were searched
    replayed: bool = False


#: Told after each page: (the lane, the harvest so far); ``False`` stops the work.
PageHook = Callable[[LaneHarvest, Harvest], Awaitable[bool]]


async def _page_lane(
    service: SearchService,
    definition: RunDefinition,
    lane: LaneHarvest,
    out: Harvest,
    on_page: PageHook | None,
) -> None:
    cursor: str | None = None
    while len(lane.papers) < lane.cap and not out.stopped:
        try:
            compiled = compile_search(
                lane.provider,
                definition.query,
                definition.filters,
                cursor=cursor,
                limit=PAGE_SIZE,
                mode="keyword",
            )
        except CompileRefused as exc:  # the provider pages no further (arXiv, PubMed)
            if lane.pages == 0:
                lane.state, lane.status, lane.message = "failed", "unsupported", exc.reason
            else:
                lane.state, lane.message = "capped", f"the provider pages no further: {exc.reason}"
            return
        try:
            results = await service.execute(compiled, cursor)
        except CassetteMiss:  # a replay without this page: this lane's failure, not the job's
            lane.state = "partial" if lane.pages else "failed"
            lane.status = "cassette_miss"
            lane.message = f"not in the cassette: page {lane.pages + 1} was not recorded"
            if lane.pages == 0:
                lane.executed_query = compiled.executed_query
            return
        lane.requests += len(results)
        outcome = results[0][0]
        lane.answered = lane.answered or results[0][1].received_at
        if lane.pages == 0:  # the strategy as run, also when its first page failed (PRISMA-S)
            lane.executed_query = (
                outcome.request.executed_query if outcome.request else compiled.executed_query
            )
        if outcome.status != "ok" or outcome.page is None:
            lane.state = "partial" if lane.pages else "failed"
            lane.status = str(outcome.status)
            lane.message = outcome.message or outcome.status
            return
        page = outcome.page
        lane.pages += 1
        if lane.pages == 1:
            lane.total = page.total
        lane.warnings.extend(w for w in page.warnings if w not in lane.warnings)
        lane.papers.extend(page.papers[: lane.cap - len(lane.papers)])
        if on_page is not None and not await on_page(lane, out):
            out.stopped = True
            return
        cursor = page.next_cursor
        short = lane.total is not None and len(lane.papers) < min(lane.total, lane.cap)
        if not page.papers and short:
            # an empty page before the database's own total (arXiv's API does this now and
            # then): the lane stopped early, which "complete" would hide from PRISMA-S
            lane.state, lane.message = (
                "partial",
                f"the database returned an empty page after {len(lane.papers):,} of "
                f"{lane.total:,} records; the next update asks again",
            )
            return
        if not page.papers or cursor is None:
            break
    over = lane.total is not None and lane.total > len(lane.papers)
    if len(lane.papers) >= lane.cap and (over or cursor is not None):
        lane.state = "capped"


async def harvest(
    service: SearchService,
    definition: RunDefinition,
    cap: int,
    *,
    on_page: PageHook | None = None,
    now: Callable[[], datetime] | None = None,
) -> Harvest:
    """Page every lane of ``definition`` (concurrently) up to ``cap`` records each."""
    clock = now or (lambda: datetime.now(UTC))
    out = Harvest(
        [LaneHarvest(p, lane, cap) for p, lane in whole_lanes(definition)],
        started_at=clock().isoformat(),
        replayed=service.transport.replay is not None,
    )
    tasks = [_page_lane(service, definition, lane, out, on_page) for lane in out.lanes]
    await asyncio.gather(*tasks)
    return out


def _failed_lane(lane: LaneHarvest) -> str:
    """A failed lane for people: its name, then its message without the provider's id the
    message may begin with (the meter's 'demo: today's allowance …')."""
    message = lane.message.removeprefix(f"{lane.provider}: ")
    return f"{lane_label(lane.lane)}: {message}"


def whole_run(
    got: Harvest, definition: RunDefinition, run_id: str | None = None
) -> tuple[SearchRun, list[whole.WholeHitRow], list[Paper]]:
    """The harvest as a run (no hits: they are rows) and its hit rows, fused by identity
    across lanes (each hit with every lane and rank that retrieved it)."""
    lanes: list[LaneResult] = []
    sightings: list[Sighting] = []
    for lane in got.lanes:
        ok = bool(lane.papers) or lane.state == "complete"
        lanes.append(
            LaneResult(
                lane=lane.lane,
                provider=lane.provider,
                status="ok" if ok else lane.status,
                executed_query=lane.executed_query,
                returned=len(lane.papers),
                total=lane.total,
                message=lane.message,
                warnings=(lane.note(), *lane.warnings[:40]),
            )
        )
        if ok:
            sightings.extend(
                Sighting(lane.lane, lane.provider, rank, paper)
                for rank, paper in enumerate(lane.papers, start=1)
            )
    if not any(lane.status == "ok" for lane in lanes):
        reasons = "; ".join(_failed_lane(lane) for lane in got.lanes if lane.message)
        raise RefusedError(
            f"no lane of the search returned records ({reasons or 'nothing retrieved'})",
            code="whole_failed",
        )
    single = len(lanes) == 1
    started = got.started_at or datetime.now(UTC).isoformat()
    hits = provider_order(sightings) if single else fuse(sightings)
    run = build_run(
        run_id=run_id or uuid.uuid4().hex,
        definition=definition,
        lanes=lanes,
        hits=[],
        coverage="provider-order" if single else "bounded-discovery",
        candidate_limit=sum(lane.cap for lane in got.lanes),
        retrieved_at=started,
    )
    # a replay: dated when the databases were searched (the recording; PRISMA-S item 13),
    # executed when it was replayed
    searched = searched_at([x.answered for x in got.lanes if x.answered]) if got.replayed else None
    if searched is not None:
        run = replace(run, retrieved_at=searched, executed_at=started)
    total = sum(lane.total or 0 for lane in got.lanes)
    run = replace(run, unique_retrieved=len(hits), total=total, next_cursor=None)
    rows: list[whole.WholeHitRow] = []
    for position, hit in enumerate(hits):
        first = min(hit.contributions, key=lambda c: c.rank)
        rows.append(
            whole.WholeHitRow(
                position,
                first.lane,
                first.provider,
                first.rank,
                hit.paper.id,
                RunHit.from_hit(hit).to_dict(),
            )
        )
    return run, rows, [hit.paper for hit in hits]


@dataclass(frozen=True, slots=True)
class Committed:
    """What one whole search's commit did: its run and round, the hits kept, the papers
    it added to the Study (new by identity), the ones the Study already held, those
    changed or retracted since, and records refused for an identity conflict."""

    run_id: str
    round: int
    hits: int
    new_ids: tuple[str, ...]
    known: int
    changed_ids: tuple[str, ...]
    retracted_ids: tuple[str, ...]
    created: int
    refused: int

    def report(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "round": self.round,
            "records": self.hits,
            "new": len(self.new_ids),
            "already_known": self.known,
            "changed": len(self.changed_ids),
            "retracted_since": len(self.retracted_ids),
            "new_ids": list(self.new_ids),
            "changed_ids": list(self.changed_ids),
            "retracted_ids": list(self.retracted_ids),
            "refused": self.refused,
        }


def commit_whole(
    store: Store,
    *,
    owner: str,
    study_id: str,
    run: SearchRun,
    hits: Sequence[whole.WholeHitRow],
    papers: Sequence[Paper],
    kind: Literal["search", "update"],
    cap: int,
    job_id: str | None,
    round_no: int | None = None,
    lanes: Sequence[dict[str, object]] = (),
    index: int = 0,
    worker: str | None = None,
) -> Committed:
    """One transaction: the run, its hits, its Study link and round (for a search added,
    the round in force — 0 before the first update, so a search added after an update,
    e.g. an edited query, is that update's and never grows the initial round; the next
    round for an update, or the round begun by hand with ``study round`` while it has no
    whole search yet), each hit saved as a paper of the Study when
    the Study does not hold it yet by identity, and the round's report (new, already
    known, changed, retracted since; each lane's state). With ``job_id`` and ``worker``
    nothing is saved unless that worker still holds the job (:class:`JobLeaseLost`)."""
    ws = Workspace(store, owner=owner)
    now = datetime.now(UTC).isoformat()
    doc = run.to_dict()  # the run as stored (no hits: they are rows)
    with store.write() as conn:
        access.require_study(conn, owner, study_id, "write")
        if job_id is not None and worker is not None and not job_held(conn, job_id, worker):
            raise JobLeaseLost(
                f"job {job_id} is no longer run here (interrupted or taken over): "
                "its search is not saved"
            )
        if job_id is not None and any(
            r.report is not None and r.report.get("index") == index
            for r in whole.get_round_of_job(conn, job_id)
        ):
            raise RefusedError("this search of the job is already committed", code="committed")
        if round_no is not None:
            number = round_no
        elif kind == "search":  # the round in force: 0 before the first update
            number = whole.next_round(conn, study_id) - 1
        else:  # the next round, or the round begun by hand that has no search yet
            number = whole.next_round(conn, study_id, update=True)
        # the Study's kept runs from before migration 0031 are its papers first: this
        # update finds them "already known", as PRISMA 2020 counted them earlier
        catch_up_kept_runs(conn, store, study_id)
        before = whole.study_paper_ids(conn, study_id)
        taken = take_papers(conn, ws, papers, study_id=study_id, before=before, now=now)
        done = Committed(
            run.id, number, len(hits), tuple(taken.added), len(taken.seen),
            tuple(taken.changed), tuple(taken.retracted), taken.created, taken.refused,
        )  # fmt: skip
        whole.insert_whole_run(
            conn,
            run_id=done.run_id,
            owner=owner,
            definition=dict(doc["definition"]),
            run=doc,
            executed_at=str(doc["executed_at"]),
            hits=hits,
            study_id=study_id,
            round_no=number,
            kind=kind,
            cap=cap,
            job_id=job_id,
            by=owner,
            now=now,
            report=done.report() | {"kind": kind, "lanes": list(lanes), "index": index},
        )
        action = "search_added" if kind == "search" else "study_updated"
        target = f"round {number}: {len(taken.added):,} new of {plural(len(hits), 'record')}"
        access.add_history(conn, study_id, owner, action, target, now)
    return done
