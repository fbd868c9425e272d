"""The use cases of whole searches into a Study (the studies area's thin methods call
these): the preview, starting the add-search and update jobs, their state, and the Study's
rounds with their update reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from litdesk._errors import RefusedError
from litdesk.adapters.http import Cassette, CassetteRecorder
from litdesk.adapters.store import Store, repo
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.providers import check_sources, display_name
from litdesk.core.query import compile_search
from litdesk.core.runs import RunDefinition, read_definition
from litdesk.core.search import CompileRefused
from litdesk.services.jobs import ClaimedJob, JobNotFound, Jobs, JobView, worker_name
from litdesk.services.search import in_workspace, load_run

from ._requests import AddSearchRequest, UpdateStudyRequest
from ._rounds import begun_rows
from ._views import (
    AddSearchPreview,
    LanePreview,
    RoundSummary,
    SearchRoundsView,
    WholeSearchJob,
)
from ._whole_jobs import ADD_SEARCH_KIND, UPDATE_KIND, JobProviders, exit_status, outcome
from ._whole_search import lane_requests, remaining_allowance, whole_lanes

__all__ = ["WHOLE_KINDS", "WholeSearches"]

WHOLE_KINDS = (ADD_SEARCH_KIND, UPDATE_KIND)


class WholeSearches:
    """Whole searches of Studies over the app's store, jobs and providers."""

    def __init__(
        self,
        store: Store,
        jobs: Jobs,
        providers: JobProviders,
        wake: Callable[[], None] | None,
        held: dict[str, ClaimedJob] | None = None,
    ) -> None:
        """``held``: where the jobs this process submitted to run itself are kept until
        :meth:`work` runs them (the area's, shared by its calls)."""
        self.store = store
        self.jobs = jobs
        self.providers = providers
        self._wake = wake
        self._held = held if held is not None else {}

    def _study(self, ref: str, owner: str, need: access.Need) -> repo.StudyRow:
        with self.store.read() as conn:
            row, _ = repo.study_with_role(conn, ref, account=owner, need=need)
        return row

    async def preview(self, request: AddSearchRequest, *, owner: str) -> AddSearchPreview:
        """Each lane's total (one record asked per lane), the requests paging it to the
        cap takes, and the owner's allowance left for it — none on a replay: the answers
        come from the cassette, and neither the preview nor the search spends any."""
        row = self._study(request.study, owner, "write")
        demo = self.providers.settings.demo
        definition = in_workspace(request.search, demo=demo).definition
        check_sources(definition.providers, demo=demo)
        service = self.providers.search_service(owner=owner, use_cache=False)
        replay = service.transport.replay is not None
        lanes: list[LanePreview] = []
        spent = 0
        for provider, lane in whole_lanes(definition):
            total: int | None = None
            problem: str | None = None
            try:
                compiled = compile_search(
                    provider,
                    definition.query,
                    definition.filters,
                    cursor=None,
                    limit=1,
                    mode="keyword",
                )
            except CompileRefused as exc:
                problem = exc.reason
            else:
                results = await service.execute(compiled, None)
                if not replay:
                    spent += len(results)  # PubMed: esearch and efetch, two of the allowance
                outcome = results[0][0]
                if outcome.status == "ok" and outcome.page is not None:
                    total = outcome.page.total
                else:
                    problem = outcome.message or outcome.status
            cap = request.cap_per_lane
            records = 0 if problem else (cap if total is None else min(total, cap))
            needed = 0 if problem else lane_requests(provider, total, cap)
            left = (
                None
                if replay
                else remaining_allowance(self.store, self.providers.settings, owner, provider)
            )
            lanes.append(
                {
                    "provider": provider,
                    "lane": lane,
                    "total": total,
                    "cap": cap,
                    "over_cap": total is not None and total > cap,
                    "records": records,
                    "requests": needed,
                    "allowance_left": left,
                    "enough": left is None or needed <= left,
                    "problem": problem,
                }
            )
        return AddSearchPreview(
            row.id,
            row.name,
            definition.query,
            definition.to_dict(),
            request.cap_per_lane,
            lanes,
            spent,
            replay=replay,
        )

    def _submit(
        self,
        kind: str,
        row: repo.StudyRow,
        searches: list[dict[str, object]],
        owner: str,
        here: bool,
    ) -> WholeSearchJob:
        """Queue the job for the job runners of every process; ``here``: for this process
        to run (:meth:`work`), claimed by it in the submission's transaction so no server
        worker takes it first — and, when this app replays or records a cassette, bound to
        this process: no other ever runs it (it would page the network, not the cassette);
        should this process stop first, the job fails saying how to run it again."""
        params = {
            "study_id": row.id,
            "study_name": row.name,
            "kind": "update" if kind == UPDATE_KIND else "search",
            "searches": searches,
        }
        if here:
            view, claimed = self.jobs.submit_held(
                kind,
                params,
                owner=owner,
                worker_id=worker_name(),
                lease_s=self.providers.settings.jobs_lease_seconds,
                bound=self._bound(kind, row.name),
                again=self._again(kind, row.name),
            )
            self._held[view.id] = claimed
            return WholeSearchJob(row.id, row.name, view, len(searches))
        view = self.jobs.submit(kind, params, owner=owner)
        if self._wake is not None:
            self._wake()
        return WholeSearchJob(row.id, row.name, view, len(searches))

    def _tape(self) -> tuple[str, object] | None:
        """This app's cassette option and folder (``--replay``/``--record``), or ``None``."""
        transport = self.providers.transport
        tape: object = transport.replay  # (an empty cassette is falsy: no ``or`` here)
        option = "--replay"
        if tape is None:
            tape, option = transport.recorder, "--record"
        if tape is None:
            return None
        return option, tape.folder if isinstance(tape, (Cassette, CassetteRecorder)) else "DIR"

    def _bound(self, kind: str, study: str) -> str | None:
        """The message a job run with this app's cassette fails with should this process
        stop before it ends (``None``: no cassette, any worker may resume the job)."""
        tape = self._tape()
        if tape is None:
            return None
        option, folder = tape
        command = "study update" if kind == UPDATE_KIND else "study add-search"
        return (
            f"the litdesk command running this job with the cassette {folder} ({option}) "
            "stopped before the job ended; no other process runs it (it would search the "
            "databases over the network instead). The searches it completed are kept. Run "
            f"`litdesk {command}` for the Study {study!r} again with {option} {folder}."
        )

    def _again(self, kind: str, study: str) -> str:
        """What to run again should this process be stopped while it runs the job (see
        :meth:`~litdesk.services.jobs.Jobs.interrupt_held`)."""
        tape = self._tape()
        command = "study update" if kind == UPDATE_KIND else "study add-search"
        with_tape = f" with {tape[0]} {tape[1]}" if tape is not None else ""
        return (
            f"run `litdesk {command}` for the Study {study!r} again{with_tape}. The searches "
            "it completed are kept"
        )

    def work(self, job_id: str, run: Callable[[ClaimedJob], None]) -> bool:
        """Run the job this process holds (submitted with ``here``) through ``run`` (a job
        runner's :meth:`~litdesk.services.jobs.JobRunner.run_claimed`); ``False`` when it
        holds no such job."""
        claimed = self._held.pop(job_id, None)
        if claimed is None:
            return False
        run(claimed)
        return True

    def add(self, request: AddSearchRequest, *, owner: str, here: bool = False) -> WholeSearchJob:
        """Queue the job adding the search whole to the Study (write needed); ``here``:
        for this process to run (see :meth:`_submit`)."""
        row = self._study(request.study, owner, "write")
        demo = self.providers.settings.demo
        definition = in_workspace(request.search, demo=demo).definition
        check_sources(definition.providers, demo=demo)
        whole_lanes(definition)  # refuses a search with nothing to page
        search = {"definition": definition.to_dict(), "cap": request.cap_per_lane}
        return self._submit(ADD_SEARCH_KIND, row, [search], owner, here)

    def update(
        self, request: UpdateStudyRequest, *, owner: str, here: bool = False
    ) -> WholeSearchJob:
        """Queue the job re-running the Study's saved searches as recorded: its whole
        searches with their caps, and the runs kept in it (capped at their own limit);
        with ``request.providers``, each search on those of its databases only (a search
        on none of them is not re-run; a discovery search, whose lanes are fixed, is re-run
        whole when one of them is wanted; none on any: refused, naming the databases the
        saved searches use)."""
        row = self._study(request.study, owner, "write")
        with self.store.read() as conn:
            rounds = whole.list_rounds(conn, row.id)
            in_rounds = {r.run_id for r in rounds}
            caps = {r.run_id: r.cap for r in rounds}
            run_ids = repo.study_run_ids(conn, row.id)
        saved: list[tuple[RunDefinition, int]] = []
        for run_id in run_ids:
            definition = load_run(self.store, run_id).definition
            if definition.mode in ("semantic", "identifier"):
                continue
            saved.append((definition, caps[run_id] if run_id in in_rounds else definition.limit))
        saved = _as_recorded(saved)
        wanted = request.providers
        searches: list[dict[str, object]] = []
        for definition, cap in saved:
            if wanted and definition.mode == "discovery":  # its lanes are fixed: all or none
                if not {p for p, _ in whole_lanes(definition)} & set(wanted):
                    continue
            elif wanted:
                kept = tuple(p for p in definition.providers if p in wanted)
                if not kept:
                    continue
                definition = replace(definition, providers=kept)
            searches.append({"definition": definition.to_dict(), "cap": cap})
        if not searches and wanted and saved:
            used = dict.fromkeys(p for d, _ in saved for p in d.providers)
            raise RefusedError(
                f"no saved search of the Study {row.name!r} searches "
                f"{', '.join(map(display_name, wanted))}: they search "
                f"{', '.join(map(display_name, used))}",
                code="no_searches",
            )
        if not searches:
            raise RefusedError(
                f"the Study {row.name!r} has no saved search to re-run (add one first)",
                code="no_searches",
            )
        return self._submit(UPDATE_KIND, row, searches, owner, here)

    def job(self, job_id: str, *, owner: str) -> WholeSearchJob:
        """A whole-search or update job of ``owner`` as it stands (with its exit status
        once it ended)."""
        view: JobView = self.jobs.get(job_id, owner=owner)
        if view.kind not in WHOLE_KINDS:
            raise JobNotFound("no such whole-search job")
        ended = None if view.active else exit_status(view.result, view.status)
        said = None if view.active else outcome(view.result, view.status)
        params = view.params
        return WholeSearchJob(
            str(params.get("study_id", "")),
            str(params.get("study_name", "")),
            view,
            len(params.get("searches", [])),
            ended,
            said,
        )

    def cancel(self, job_id: str, *, owner: str) -> WholeSearchJob:
        """Ask the job to stop (nothing of a search not yet committed is kept)."""
        self.job(job_id, owner=owner)
        self.jobs.cancel(job_id, owner=owner)
        return self.job(job_id, owner=owner)

    def rounds(self, ref: str, *, owner: str) -> SearchRoundsView:
        """The Study's whole searches by round, with each round's report, and the update
        rounds begun by hand."""
        row = self._study(ref, owner, "read")
        rows = _round_rows(self.store, row.id)
        return SearchRoundsView(row.id, row.name, rows, begun_rows(self.store, row.id))

    @staticmethod
    def rounds_of(store: Store, study_id: str) -> SearchRoundsView:
        """A Study's rounds for its page (the caller checked access; no name)."""
        return SearchRoundsView(
            study_id, "", _round_rows(store, study_id), begun_rows(store, study_id)
        )


def _as_recorded(saved: list[tuple[RunDefinition, int]]) -> list[tuple[RunDefinition, int]]:
    """The Study's saved searches once each: a search run again (an update round) has the
    same definition; one re-run on some of its databases only (``study update -p``) is
    part of the search it narrowed — same query, filters and cap on fewer databases — so
    a later full update re-runs that search once, never its narrowed twin beside it."""
    out: list[tuple[RunDefinition, int]] = []
    seen: set[str] = set()
    for definition, cap in saved:
        key = json.dumps(definition.to_dict(), sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append((definition, cap))

    def rest(d: RunDefinition) -> str:
        return json.dumps(d.to_dict() | {"providers": []}, sort_keys=True)

    def narrowed(d: RunDefinition, cap: int) -> bool:
        return any(
            c == cap and rest(o) == rest(d) and set(d.providers) < set(o.providers) for o, c in out
        )

    return [(d, cap) for d, cap in out if not narrowed(d, cap)]


def _round_rows(store: Store, study_id: str) -> list[RoundSummary]:
    out: list[RoundSummary] = []
    with store.read() as conn:
        for r in whole.list_rounds(conn, study_id):
            report = r.report or {}
            definition = read_definition(whole.run_definition(conn, r.run_id))
            out.append(
                {
                    "run_id": r.run_id,
                    "round": r.round,
                    "kind": r.kind,
                    "query": definition.query,
                    "cap": r.cap,
                    "by": r.by,
                    "created_at": r.created_at,
                    "records": int(report.get("records", 0)),
                    "new": int(report.get("new", 0)),
                    "already_known": int(report.get("already_known", 0)),
                    "changed": int(report.get("changed", 0)),
                    "retracted_since": int(report.get("retracted_since", 0)),
                    "lanes": list(report.get("lanes", [])),
                }
            )
    return out
