"""The search area (``app.search``): every search use case of both faces, one method each,
acting for the ``owner`` it is given.

* searches: :meth:`SearchArea.check_query` as the user types, :meth:`~SearchArea.search`
  (fused run, remembered for the selection actions, optionally saved into a Study),
  :meth:`~SearchArea.trace` (every provider's sightings, not fused), and the
  live searches a page follows (:meth:`~SearchArea.start`, :meth:`~SearchArea.progress`,
  :meth:`~SearchArea.watch`, :meth:`~SearchArea.cancel`, :meth:`~SearchArea.live_result`);
* selections of a run: :meth:`~SearchArea.save_selection` (into a Study, through the
  workspace), :meth:`~SearchArea.export_selection` (RIS);
* saved runs: :meth:`~SearchArea.runs`, :meth:`~SearchArea.run`,
  :meth:`~SearchArea.save_run` (keep a run in a Study), :meth:`~SearchArea.export_run`,
  :meth:`~SearchArea.freeze`, :meth:`~SearchArea.prisma`.

Recent runs are kept in the store by owner and id (bounded per owner and by age) so that a
selection refers to papers litdesk itself retrieved (a client never sends paper records),
whichever worker of a team server ran the search; the other areas read them through
:meth:`~SearchArea.recent_run` and :meth:`~SearchArea.paper_in_runs`. Search methods are
async; store methods are plain (the web runs them in its thread pool).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Final

from litdesk._clock import Clock
from litdesk._errors import LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.store import (
    Store,
    get_recent_run,
    recent_runs_holding,
    remember_run,
    whole_searches,
)
from litdesk.adapters.store import accounts as access
from litdesk.core.providers import lane_label
from litdesk.core.records import Paper
from litdesk.core.runs import (
    LaneResult,
    PrismaReport,
    SearchRun,
    freeze_run,
    read_run,
)
from litdesk.core.trace import SearchTrace
from litdesk.core.words import run_label
from litdesk.services.workspace import Workspace, ris_text

from ._bench import BenchRequest, BenchView, run_bench
from ._fused import load_run, plan_search, run_text, runs_of, save_run
from ._live import LiveRegistry, LiveSearch
from ._reports import export_run, load_run_with_hits, study_prisma
from ._requests import (
    MAX_SELECTION,
    QueryCheckRequest,
    RunExportRequest,
    SaveSelectionRequest,
    SearchRequest,
    TraceRequest,
    in_workspace,
    query_problem,
)
from ._searcher import FusedSearcher
from ._views import (
    PAGE_SIZE,
    Export,
    KeptRun,
    KeptRunsView,
    LaneProgress,
    ProgressView,
    QueryCheck,
    RunListView,
    SearchView,
    SelectionFailure,
    SelectionResult,
    StudyChoice,
    StudyChoices,
    lane_progress,
)

__all__ = [
    "BOUND_PREFIX",
    "EXPORT_MEDIA",
    "MAX_KEPT_RUNS",
    "MAX_RUN_LIST",
    "CursorRefused",
    "FusedSearcher",
    "SearchArea",
    "bound_cursor",
    "kept_runs",
]

#: media type and file name of each run export format
EXPORT_MEDIA: Final = {
    "json": ("application/json", "search.json"),
    "ris": ("application/x-research-info-systems", "search.ris"),
    "prisma-md": ("text/markdown; charset=utf-8", "prisma-s.md"),
    "prisma-html": ("text/html; charset=utf-8", "prisma-s.html"),
}
MAX_RUN_LIST: Final = 500
#: longest one wait for a change of a live search lasts (seconds); a stream then keeps alive
WAIT_SECONDS: Final = 10.0
#: kept runs a Study's view lists
MAX_KEPT_RUNS: Final = 200


def _whole_hits(store: Store, run_id: str) -> int:
    """A whole search's hits (kept as rows beside its run document)."""
    with store.read() as conn:
        return whole_searches.run_hit_count(conn, run_id)


def kept_runs(store: Store, run_ids: Sequence[str]) -> list[KeptRun]:
    """The first :data:`MAX_KEPT_RUNS` of a Study's kept runs as rows (their definitions,
    so that a page can restore one into the search form), or the problem that stops one
    from being read."""
    runs: list[KeptRun] = []
    for run_id in run_ids[:MAX_KEPT_RUNS]:
        try:
            run = load_run(store, run_id)
        except LitdeskError as exc:
            runs.append(
                {
                    "id": run_id,
                    "label": "a search run that cannot be read",
                    "executed_at": None,
                    "definition": None,
                    "hits": 0,
                    "problem": exc.message,
                }
            )
            continue
        runs.append(
            {
                "id": run.id,
                "label": run_label(run.definition.query, run.executed_at),
                "executed_at": run.executed_at,
                "definition": run.definition.to_dict(),
                "hits": len(run.hits) or _whole_hits(store, run.id),
                "problem": None,
            }
        )
    return runs


#: A bound cursor: "the page after run <id>" (what the web issues instead of the provider's
#: cursor, so that a cursor works only in its own search and for its own owner).
BOUND_PREFIX: Final = "run."


class CursorRefused(RefusedError):
    """A bound cursor replayed in another search, by another account, or after its run
    expired."""

    default_code = "cursor_refused"


def bound_cursor(run: SearchRun) -> str | None:
    """The cursor the web gives out for ``run``'s next page (``None``: there is none)."""
    if run.coverage != "provider-order" or not run.next_cursor:
        return None
    return BOUND_PREFIX + run.id


class SearchArea:
    """The search use cases over the app's providers (store, transport, fused search) and
    its live-search registry (see the module docstring)."""

    def __init__(self, providers: FusedSearcher, live: LiveRegistry, *, clock: Clock) -> None:
        self.providers = providers
        self.live = live
        self.clock = clock

    @property
    def store(self) -> Store:
        return self.providers.store

    # -- searches -------------------------------------------------------------------------

    def check_query(self, request: QueryCheckRequest) -> QueryCheck:
        """A query as the user types: its problem and 1-based position (owner-free)."""
        problem = query_problem(request.query, request.query_field)
        if problem is None:
            return QueryCheck(True)
        return QueryCheck(False, problem.message, problem.code, problem.position, problem.end)

    async def provider_cursor(self, request: SearchRequest, *, owner: str) -> str | None:
        """The provider cursor ``request.cursor`` stands for: a bound cursor (``run.<id>``)
        is the next cursor of ``owner``'s recent run ``<id>`` of the same search — refused
        (:class:`CursorRefused`) for another account's run, an expired one or another
        search; any other cursor is the provider's own (the CLI's ``--cursor``)."""
        cursor = request.cursor
        if cursor is None or not cursor.startswith(BOUND_PREFIX):
            return cursor
        run_id = cursor[len(BOUND_PREFIX) :]
        try:
            prior = await asyncio.to_thread(self.recent_run, run_id, owner=owner)
        except NotFoundError:
            raise CursorRefused(
                "this page's cursor is not open to you (another account's search, or it "
                "expired); start the search again"
            ) from None
        if prior.definition.without_expansions() != request.definition.without_expansions():
            raise CursorRefused("this cursor belongs to another search")
        if bound_cursor(prior) is None or prior.next_cursor is None:
            raise CursorRefused("that search has no next page")
        return prior.next_cursor

    async def search(self, request: SearchRequest, *, owner: str) -> SearchView:
        """Run (or reuse) the search, remember the run for the selection actions, and save
        it (into ``request.study``) when asked and a lane succeeded."""
        request = in_workspace(request, demo=self.providers.settings.demo)
        run = await self.providers.fused_search(
            request.definition,
            cursor=await self.provider_cursor(request, owner=owner),
            owner=owner,
            use_cache=request.use_cache,
            save=request.save,
            study=request.study,
        )
        await asyncio.to_thread(self.remember, run, owner=owner)
        studies = await asyncio.to_thread(self._choices, owner)
        return SearchView(run, page=request.page, cursor=request.cursor, studies=studies)

    async def trace(self, request: TraceRequest, *, owner: str) -> SearchTrace:
        """Every sighting of each provider's lane (not deduplicated, not kept), as a trace."""
        return await self.providers.search(
            request.provider_request, owner=owner, use_cache=request.use_cache
        )

    # -- live searches --------------------------------------------------------------------

    async def start(self, request: SearchRequest, *, owner: str) -> ProgressView:
        """Start the search as a task; its planned lanes show as ``running`` until each
        finishes (then :meth:`progress`, :meth:`watch`, :meth:`cancel`, :meth:`live_result`)."""
        request = in_workspace(request, demo=self.providers.settings.demo)
        definition = request.definition
        provider_cursor = await self.provider_cursor(request, owner=owner)
        plan = plan_search(definition, provider_cursor)
        lanes: list[LaneProgress] = [
            {
                "lane": lane.lane,
                "provider": lane.provider,
                "status": "running",
                "returned": 0,
                "total": None,
                "message": "",
                "label": lane_label(lane.lane),
                "notice": "",
            }
            for lane in plan.lanes
        ]

        async def work(item: LiveSearch) -> None:
            def on_lane(lane: LaneResult) -> None:
                item.lane_done(lane)

            run = await self.providers.fused_search(
                definition,
                cursor=provider_cursor,
                owner=owner,
                on_lane=on_lane,
                stop_alone=True,
                use_cache=request.use_cache,
            )
            await asyncio.to_thread(self.remember, run, owner=owner)
            item.final_lanes = [lane_progress(lane) for lane in run.lanes]  # a reused run's too
            item.run_id = run.id

        context = {"page": request.page, "cursor": request.cursor}
        return await self.live.start(owner, lanes, work, context=context)

    def progress(self, live_id: str, *, owner: str) -> ProgressView:
        """The live search's state now (blocking: the web runs it in its thread pool); an
        unknown id, or another owner's, is not found."""
        return ProgressView.of(self.live.get(live_id, owner), self.clock.now())

    async def watch(
        self, live_id: str, after: int, *, owner: str, timeout: float = WAIT_SECONDS
    ) -> ProgressView:
        """The live search's state once it changes after version ``after`` (or at ``timeout``)."""
        return await self.live.watch(live_id, owner, after, timeout)

    async def cancel(self, live_id: str, *, owner: str) -> ProgressView:
        """Cancel a running search: its lanes stop (unless another caller waits for the very
        same search, which then finishes for that caller)."""
        return await self.live.cancel(live_id, owner)

    def live_result(self, live_id: str, *, owner: str) -> SearchView | None:
        """The finished search's result view from the owner's recent runs; ``None`` while
        it runs, when it failed or was cancelled, or when its run was not kept (no lane
        succeeded, or it expired) — the page then runs the search as an ordinary one."""
        row = self.live.get(live_id, owner)
        if row.state != "done" or row.run_id is None:
            return None
        try:
            run = self.recent_run(row.run_id, owner=owner)
        except NotFoundError:
            return None
        page = row.context.get("page")
        cursor = row.context.get("cursor")
        return SearchView(
            run,
            page=page if isinstance(page, int) and page >= 1 else 1,
            cursor=cursor if isinstance(cursor, str) else None,
            studies=self._choices(owner),
        )

    # -- recent runs (the other areas read them too) ----------------------------------------

    def remember(self, run: SearchRun, *, owner: str) -> None:
        """Keep ``run`` among ``owner``'s recent runs in the store (any worker reads it). A
        run in which no lane succeeded holds no paper to select, keep or read, and is not
        kept (it could not be read back as a run)."""
        if not any(lane.status == "ok" for lane in run.lanes):
            return
        remember_run(self.store, owner, run.id, run_text(run), now=self.clock.now())

    def recent_run(self, run_id: str, *, owner: str) -> SearchRun:
        """``owner``'s recent run ``run_id``; another owner's, an expired or an unknown run
        is not open (:class:`NotFoundError` ``run_not_open``)."""
        return read_run(get_recent_run(self.store, owner, run_id, now=self.clock.now()))

    def paper_in_runs(self, paper_id: str, *, owner: str) -> Paper | None:
        """The paper ``paper_id`` as one of ``owner``'s recent runs holds it (``None``:
        in none of them)."""
        for document in recent_runs_holding(self.store, owner, paper_id):
            for hit in read_run(document).hits:
                if hit.paper.id == paper_id:
                    return hit.paper
        return None

    # -- selections of a run ----------------------------------------------------------------

    def save_selection(self, request: SaveSelectionRequest, *, owner: str) -> SelectionResult:
        """Save the selected papers of a recent run, optionally into a Study (existing or
        new). Conflicted hits are refused; each paper's failure is reported beside the
        successes."""
        run = self.recent_run(request.run_id, owner=owner)
        hits = {h.paper.id: h for h in run.hits}
        ws = Workspace(self.store, owner=owner)
        study_row = None
        if request.new_study:
            study_row = ws.create_study(request.new_study)
        elif request.study:
            study_row = ws.study(request.study)
        saved: list[str] = []
        failed: list[SelectionFailure] = []
        created = 0
        for pid in request.paper_ids:
            hit = hits.get(pid)
            if hit is None:
                failed.append({"id": pid[:200], "title": "", "reason": "not in this search run"})
                continue
            if hit.conflicts:
                failed.append(
                    {
                        "id": pid,
                        "title": hit.paper.title,
                        "reason": "identifier conflict: " + "; ".join(hit.conflicts),
                    }
                )
                continue
            try:
                result = ws.save_paper(hit.paper, study=study_row.id if study_row else None)
            except LitdeskError as exc:
                failed.append({"id": pid, "title": hit.paper.title, "reason": exc.message})
                continue
            saved.append(result.paper.id)
            created += int(result.created)
        return SelectionResult(
            saved,
            created,
            failed,
            study_row.id if study_row else None,
            study_row.name if study_row else None,
        )

    def export_selection(self, run_id: str, paper_ids: Sequence[str], *, owner: str) -> Export:
        """RIS of the selected (non-conflicted) papers of a recent run (the first
        :data:`MAX_SELECTION` ids)."""
        run = self.recent_run(run_id, owner=owner)
        wanted = set(paper_ids[:MAX_SELECTION])
        papers = [h.paper for h in run.hits if h.paper.id in wanted and not h.conflicts]
        return Export(
            ris_text(papers).encode("utf-8"),
            "selection.ris",
            EXPORT_MEDIA["ris"][0],
            len(papers),
        )

    def export_page(self, run_id: str, page: int = 1, *, owner: str) -> Export:
        """RIS of the results a page of a recent run shows ("Export this page"): the whole
        run for provider order, page ``page`` of the frozen shortlist for bounded
        discovery; hits with conflicting identifiers are left out, as on the page."""
        run = self.recent_run(run_id, owner=owner)
        hits = run.hits
        if run.coverage == "bounded-discovery":
            size = PAGE_SIZE
            pages = max(1, -(-len(hits) // size))
            shown = min(max(1, page), pages)
            hits = hits[(shown - 1) * size : shown * size]
        papers = [h.paper for h in hits if not h.conflicts]
        return Export(
            ris_text(papers).encode("utf-8"),
            "page.ris",
            EXPORT_MEDIA["ris"][0],
            len(papers),
        )

    # -- saved runs -------------------------------------------------------------------------

    def runs(self, limit: int = 50, *, owner: str) -> RunListView:
        """``owner``'s saved runs, newest first (``limit`` clamped to 1-500)."""
        return RunListView(runs_of(self.store, owner, limit=max(1, min(limit, MAX_RUN_LIST))))

    def run(self, run_id: str, *, owner: str) -> SearchRun:
        """One saved run ``owner`` may read, validated fully (:class:`NotFoundError` when it
        is not stored or not theirs)."""
        with self.store.read() as conn:
            access.require_run(conn, owner, run_id)
        return load_run_with_hits(self.store, run_id)

    def save_run(self, run_id: str, study: str, *, owner: str) -> KeptRunsView:
        """Keep a recent run (immutable) in a Study ``owner`` may change, its hits becoming
        the Study's papers in the same transaction; a run stored before is attached (kept
        in this Study already: nothing more). Answers the Study with its kept runs."""
        run = self.recent_run(run_id, owner=owner)
        ws = Workspace(self.store, owner=owner)
        ws.study(study, "write")  # a viewer (or a stranger) keeps nothing there
        try:
            load_run(self.store, run.id)
        except NotFoundError:
            save_run(self.store, run, owner=owner, study=study)  # refuses all-failed runs
        else:
            ws.attach_search_run(study, run.id, [hit.paper for hit in run.hits])
        return self._kept(ws, study)

    def export_run(self, request: RunExportRequest, *, owner: str) -> Export:
        """A saved run as its JSON manifest, RIS (conflicted hits left out), PRISMA-S
        Markdown or HTML."""
        run = self.run(request.run_id, owner=owner)
        media, filename = EXPORT_MEDIA[request.format]
        body = export_run(run, request.format).encode("utf-8")
        return Export(body, filename, media, len(run.hits))

    def freeze(self, run_id: str, *, owner: str, case: str | None = None) -> Export:
        """A saved run as an evaluation fixture (JSON) without its query text."""
        frozen = freeze_run(self.run(run_id, owner=owner), case=case).to_dict()
        text = json.dumps({"runs": [frozen]}, indent=2, ensure_ascii=False) + "\n"
        return Export(text.encode("utf-8"), f"{case or run_id}.json", "application/json", 1)

    async def bench(self, request: BenchRequest, *, owner: str) -> BenchView:
        """The evaluation case set run through the providers (or a replayed cassette),
        each run frozen with its latency and provider calls (``litdesk runs bench``)."""
        return await run_bench(self.providers, request, owner=owner)

    def prisma(self, study: str, *, owner: str) -> PrismaReport:
        """The PRISMA-S search report of a Study (its saved runs and imports)."""
        return study_prisma(self.store, study, owner=owner)

    def study_choices(self, *, owner: str) -> StudyChoices:
        """The Studies a search page offers for "add to a Study"."""
        return StudyChoices(self._choices(owner))

    # -- helpers ----------------------------------------------------------------------------

    def _choices(self, owner: str) -> list[StudyChoice]:
        return [
            {
                "id": s.id,
                "name": s.name,
                "description": s.description,
                "created_at": s.created_at,
                "papers": n,
            }
            for s, n in Workspace(self.store, owner=owner).studies()
        ]

    def _kept(self, ws: Workspace, study: str) -> KeptRunsView:
        """A Study's summary and its kept runs (their definitions, so that a page can
        restore one into the search form)."""
        summary = ws.study_summary(study)
        return KeptRunsView(summary, kept_runs(self.store, summary.search_runs))
