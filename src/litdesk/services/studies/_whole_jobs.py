"""The whole-search jobs of a Study: ``studies.add_search`` (one search added whole, round
0) and ``studies.update`` (the Study's saved searches re-run as recorded, round N).

The handler runs in a job runner's thread; the paging runs on the app's event loop
(:meth:`~litdesk.services.providers.Providers.from_thread`) and reports each page as the
job's progress (a cancel stops it before anything is committed). Each search commits its
run, hits, Study link and round in one transaction; a job claimed again skips the searches
its earlier attempt committed (found by job id and index) and pages the others afresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Final, Literal, Protocol, TypeVar

from litdesk._errors import ExternalError, RefusedError
from litdesk.adapters.http import ProviderTransport
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.runs import read_definition
from litdesk.services.jobs import Handler, JobContext

from ._whole_search import (
    Harvest,
    LaneHarvest,
    SearchProviders,
    commit_whole,
    harvest,
    whole_run,
)

__all__ = [
    "ADD_SEARCH_KIND",
    "EXIT_ALLOWANCE",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "EXIT_REFUSED",
    "OUTCOMES",
    "UPDATE_KIND",
    "JobProviders",
    "Outcome",
    "WholeSearchFailed",
    "WholeSearchRefusedAll",
    "exit_status",
    "outcome",
    "whole_handler",
]

ADD_SEARCH_KIND: Final = "studies.add_search"
UPDATE_KIND: Final = "studies.update"
#: exit statuses a scheduler acts on (``litdesk study update``, ``add-search``): 0 done;
#: 1 failed; 3 partial (or cancelled); 4 the allowance spent; 8 refused, nothing done —
#: nothing to re-run, no saved search on the databases asked, the Study not there, or
#: every database refused the search (its own status: 3 is partial here, 4 the allowance,
#: so a refusal is never read as "some of it worked"); 2 bad arguments, as everywhere
EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_PARTIAL: Final = 3
EXIT_ALLOWANCE: Final = 4
EXIT_REFUSED: Final = 8
Outcome = Literal["done", "failed", "partial", "cancelled", "allowance_spent", "refused"]
#: each exit status's outcome word (``--json``'s ``outcome``; cancelled exits as partial)
OUTCOMES: Final[dict[int, Outcome]] = {
    EXIT_OK: "done",
    EXIT_FAILED: "failed",
    EXIT_PARTIAL: "partial",
    EXIT_ALLOWANCE: "allowance_spent",
    EXIT_REFUSED: "refused",
}
_POLL: Final = 0.2

T = TypeVar("T")


class JobProviders(SearchProviders, Protocol):
    @property
    def transport(self) -> ProviderTransport: ...

    def from_thread(self, coro: Coroutine[object, object, T]) -> Future[T]: ...


def _wait(providers: JobProviders, ctx: JobContext, coro: Coroutine[object, object, T]) -> T | None:
    """Run ``coro`` on the app's loop; ``None`` when the job must stop first."""
    future = providers.from_thread(coro)
    while True:
        try:
            return future.result(timeout=_POLL)
        except FutureTimeout:
            if ctx.should_stop:
                future.cancel()
                return None
        except FutureCancelled:
            return None


def _lane_text(got: Harvest) -> str:
    parts = []
    for lane in got.lanes:
        wanted = lane.cap if lane.total is None else min(lane.cap, lane.total)
        parts.append(f"{lane.provider} {len(lane.papers):,}/{wanted:,}")
    return " · ".join(parts)


def _progress_total(got: Harvest) -> int | None:
    if any(lane.total is None and lane.pages == 0 and lane.state != "failed" for lane in got.lanes):
        return None
    return sum(min(lane.cap, lane.total or len(lane.papers)) for lane in got.lanes)


class WholeSearchFailed(ExternalError):
    """Every search of a whole-search job failed (no lane returned records): nothing was
    added to the Study. The message names each lane's failure; ``warnings``: one line
    each."""

    default_code = "whole_failed"


class WholeSearchRefusedAll(RefusedError):
    """Every database of a whole-search job refused its search (it cannot run the query
    or a filter: nothing was sent) and none returned records: nothing was added."""

    default_code = "whole_refused"


def _lane_lines(out: list[dict[str, Any]]) -> list[str]:
    """Each failed lane of the job's searches for people: its name and why."""
    many = len(out) > 1
    lines = []
    for search in out:
        for lane in search.get("lanes", []):
            if isinstance(lane, dict) and lane.get("state") in ("failed", "partial"):
                why = str(lane.get("notice") or lane.get("message") or "no reason was stored")
                where = f"search {int(search.get('index', 0)) + 1}, " if many else ""
                name = str(lane.get("label") or lane.get("provider"))
                # a notice that names its lane already ("Crossref, keyword search cannot
                # run this query: …") is not named twice
                lines.append(f"{where}{why}" if why.startswith(name) else f"{where}{name}: {why}")
    return lines


def all_failed(kind: str, out: list[dict[str, Any]]) -> WholeSearchFailed | WholeSearchRefusedAll:
    """The error of a job none of whose searches returned records (``allowance_spent``
    when every lane stopped because the allowance is spent; a refusal when every database
    refused the search); the failed job's result keeps its searches and their lanes."""
    lines = _lane_lines(out) or [str(s.get("error")) for s in out if s.get("error")]
    stopped = [
        lane
        for s in out
        for lane in s.get("lanes", [])
        if isinstance(lane, dict) and lane.get("state") in ("failed", "partial")
    ]
    budget = all("budget" in f"{x.get('status', '')} {x.get('message', '')}" for x in stopped)
    summary = "No lane returned records; nothing was added to the Study."
    result = {"kind": kind, "round": None, "searches": out, "committed": 0, "failed": summary}
    if stopped and all(x.get("status") == "unsupported" for x in stopped):
        summary = "Every database refused the search; nothing was sent or added to the Study."
        result["failed"] = summary
        return WholeSearchRefusedAll(f"{summary} " + " · ".join(lines), warnings=lines,
                                     result=result)  # fmt: skip
    return WholeSearchFailed(
        f"{summary} " + " · ".join(lines),
        code="allowance_spent" if budget and lines else None,
        warnings=lines,
        result=result,
    )


def exit_status(result: dict[str, Any] | None, status: str) -> int:
    """The exit status of a finished whole-search job: 0 every lane complete or capped;
    4 a lane stopped because the allowance is spent (every lane so: the job failed); 3 a
    lane failed or stopped early (other reasons), or the job was cancelled; 8 every
    database refused the search (nothing sent, nothing added); 1 the job failed (every
    search's lanes too)."""
    if status == "failed" or result is None:
        error = (result or {}).get("error")
        code = error.get("code") if isinstance(error, dict) else None
        if code == "whole_refused":
            return EXIT_REFUSED
        return EXIT_ALLOWANCE if code == "allowance_spent" else EXIT_FAILED
    if status == "cancelled" or result.get("cancelled"):
        return EXIT_PARTIAL
    states = [
        (str(lane.get("state")), str(lane.get("status", "")), str(lane.get("message", "")))
        for search in result.get("searches", [])
        if isinstance(search, dict)
        for lane in search.get("lanes", [])
        if isinstance(lane, dict)
    ]
    if any(s in ("partial", "failed") and "budget" in st + msg for s, st, msg in states):
        return EXIT_ALLOWANCE
    if any(s in ("partial", "failed") for s, _st, _msg in states):
        return EXIT_PARTIAL
    return EXIT_OK


def outcome(result: dict[str, Any] | None, status: str) -> Outcome:
    """The word for a finished whole-search job's :func:`exit_status` (a cancelled job's
    ``cancelled``, though it exits as partial)."""
    code = exit_status(result, status)
    if code == EXIT_PARTIAL and (status == "cancelled" or (result or {}).get("cancelled")):
        return "cancelled"
    return OUTCOMES.get(code, "failed")


def whole_handler(providers: JobProviders) -> Handler:
    """The handler of both kinds: params ``study_id``, ``kind`` (``search``/``update``)
    and ``searches`` (each ``definition`` and ``cap``)."""
    store = providers.store

    def handle(ctx: JobContext) -> dict[str, Any] | None:
        params = ctx.params
        owner = ctx.job.owner
        study_id = str(params["study_id"])
        kind: Literal["search", "update"] = "update" if params.get("kind") == "update" else "search"
        searches = list(params.get("searches", []))
        with store.read() as conn:
            earlier = {
                int(r.report.get("index", -1)): r
                for r in whole.get_round_of_job(conn, ctx.job.id)
                if r.report is not None
            }
        round_no = next(iter(earlier.values())).round if earlier else None
        out: list[dict[str, Any]] = []
        for index, item in enumerate(searches):
            if index in earlier:  # committed by an earlier attempt of this job
                report = earlier[index].report or {}
                out.append(_summary(report))
                continue
            definition = read_definition(item["definition"])
            cap = int(item["cap"])
            service = providers.search_service(owner=owner, use_cache=False)
            label = f"search {index + 1} of {len(searches)}: " if len(searches) > 1 else ""

            async def on_page(_lane: LaneHarvest, got: Harvest, label: str = label) -> bool:
                done = sum(len(lane.papers) for lane in got.lanes)
                return await asyncio.to_thread(
                    ctx.progress, done, _progress_total(got), label + _lane_text(got)
                )

            got = _wait(providers, ctx, harvest(service, definition, cap, on_page=on_page))
            if got is None or got.stopped or ctx.should_stop:
                return {"cancelled": True, "searches": out, "committed": len(out)}
            lanes = [lane.to_dict() for lane in got.lanes]
            try:
                run, rows, papers = whole_run(got, definition)
            except RefusedError as exc:
                out.append({"index": index, "run_id": None, "lanes": lanes, "error": exc.message})
                continue
            if not ctx.progress(
                sum(len(lane.papers) for lane in got.lanes),
                None,
                f"{label}saving {len(rows):,} records",
            ):  # cancelled, or no longer this worker's (its command interrupted): not saved
                return {"cancelled": True, "searches": out, "committed": len(out)}
            done = commit_whole(
                store,
                owner=owner,
                study_id=study_id,
                run=run,
                hits=rows,
                papers=papers,
                kind=kind,
                cap=cap,
                job_id=ctx.job.id,
                round_no=round_no,
                lanes=lanes,
                index=index,
                worker=ctx.job.worker_id,
            )
            round_no = done.round
            out.append(_summary(done.report() | {"lanes": lanes, "index": index}))
        if out and not any(s.get("run_id") for s in out):  # no search returned records
            raise all_failed(kind, out)  # the job failed, naming each lane; the Study unchanged
        return {"kind": kind, "round": round_no, "searches": out, "committed": len(out)}

    return handle


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    """A committed search as the job's result shows it (counts, not ids)."""
    keep = ("index", "run_id", "round", "records", "new", "already_known", "changed")
    out = {k: report.get(k) for k in keep}
    out["retracted_since"] = report.get("retracted_since")
    out["lanes"] = report.get("lanes", [])
    return out
