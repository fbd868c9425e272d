"""``litdesk study add-search`` (a whole search into a Study) and ``litdesk study update``
(the Study's saved searches re-run as an update round). Thin: build the request, call
``app.studies``, run the job here (no server needed), print.

Exit statuses (for cron and systemd): 0 done (every lane complete or capped); 1 failed;
3 partial (a lane failed or stopped early, or the job was cancelled); 4 the daily
allowance was spent before every page was read (the job stops and says so; what it read
is kept). An input error exits 2 like every command."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk.core.providers import lane_label

from .._words import num, plural
from ._context import run_with_app
from ._output import command, console, emit_json, err_console
from ._search import _providers
from ._workspace import JsonOpt, study_app

if TYPE_CHECKING:
    from litdesk.services.app import App
    from litdesk.services.studies import WholeSearchJob

__all__ = ["register"]

_POLL_SECONDS = 1.0


def _err(text: str) -> None:
    err_console.print(text, markup=False, highlight=False, soft_wrap=True)


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


async def _work(app: App, job_id: str, *, quiet: bool) -> WholeSearchJob:
    """Run the job in a worker thread (its pages run on this loop), showing progress."""
    import asyncio

    work = asyncio.ensure_future(
        asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
    )
    last = ""
    started = time.monotonic()
    while not work.done():
        await asyncio.wait({work}, timeout=_POLL_SECONDS)
        if quiet:
            continue
        view = await asyncio.to_thread(app.studies.search_job, job_id, owner=app.owner)
        line = view.job.current or view.job.status
        if line != last:
            _err(f"[{time.monotonic() - started:5.0f} s] {line}")
            last = line
    return await work


def _report_job(view: WholeSearchJob) -> None:
    job = view.job
    result: dict[str, Any] = job.result or {}
    _say(f"{view.study_name}: job {job.id} {job.status} (exit status {view.exit_status})")
    if job.status == "failed":
        _say(f"  failed: {job.message}")
    for search in result.get("searches", []):
        if search.get("error"):
            if job.status != "failed":  # a failed job's message names each lane already
                _say(f"  search {search.get('index', 0) + 1}: {search['error']}")
            continue
        _say(
            f"  round {search.get('round')}: {search.get('records', 0):,} records, "
            f"{search.get('new', 0):,} new, {search.get('already_known', 0):,} already known, "
            f"{search.get('changed', 0):,} changed, {search.get('retracted_since', 0):,} "
            "retracted since"
        )
        for lane in search.get("lanes", []):
            total = lane.get("total")
            shown = "unknown" if total is None else f"{total:,}"
            told = lane.get("notice") or lane.get("message") or ""
            extra = f": {told}" if told else ""
            name = lane.get("label") or lane_label(str(lane.get("lane", lane["provider"])))
            _say(
                f"    {name}: {lane['state']}, {num(lane['retrieved'])} of {shown} "
                f"({plural(lane['requests'], 'request')}){extra}"
            )
    if result.get("cancelled"):
        _say("  cancelled: nothing of the unfinished search was kept")


def add_search(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    query: Annotated[str, typer.Argument(help="The query (litdesk query language).")],
    provider: Annotated[
        list[str] | None,
        typer.Option("--provider", "-p", help="Provider(s); repeat or comma-separate."),
    ] = None,
    field: Annotated[str, typer.Option(help="all, title, abstract or author.")] = "all",
    type_: Annotated[str, typer.Option("--type", help="all, review, preprint or journal.")] = "all",
    year_from: Annotated[int | None, typer.Option("--from", help="First year.")] = None,
    year_to: Annotated[int | None, typer.Option("--to", help="Last year.")] = None,
    open_access: Annotated[bool, typer.Option(help="Open-access records only.")] = False,
    include_retracted: Annotated[bool, typer.Option(help="Keep retracted publications.")] = False,
    sort: Annotated[str, typer.Option(help="relevance, newest or cited.")] = "relevance",
    mode: Annotated[str, typer.Option(help="keyword or discovery (its keyword lanes).")] = (
        "keyword"
    ),
    cap: Annotated[int, typer.Option("--cap", help="Records per lane at most (1-10,000).")] = (
        10_000
    ),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Start without asking.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Add EVERY record of a search to a Study: shows each provider's total and the
    allowance it will spend, asks (unless --yes), then pages every lane up to the cap."""
    from litdesk.services.search import SearchRequest
    from litdesk.services.studies import AddSearchRequest

    search = SearchRequest(
        query,
        mode=mode,
        providers=tuple(_providers(provider)) if provider else (),
        field=field,
        type=type_,
        year_from=year_from,
        year_to=year_to,
        open_access=open_access,
        include_retracted=include_retracted,
        sort=sort,
    )
    request = AddSearchRequest(study, search, cap)

    async def work(app: App) -> tuple[dict[str, object], WholeSearchJob | None]:
        import asyncio

        preview = await app.studies.preview_add_search(request, owner=app.owner)
        if not as_json:
            _say(f"Add all results of {query!r} to {preview.study_name} (cap {cap:,} per lane):")
            for lane in preview.lanes:
                total = "unknown" if lane["total"] is None else f"{lane['total']:,}"
                _say(
                    f"  {lane_label(lane['lane'])}: {total} records; adds "
                    f"{plural(lane['records'], 'record')} in "
                    f"{plural(lane['requests'], 'request')} ({num(lane['allowance_left'])} left today)"
                )
            for warning in preview.warnings:
                _say(f"  ! {warning}")
        go = yes or (not as_json and await asyncio.to_thread(typer.confirm, "Start?"))
        if not go:
            return preview.to_dict(), None
        started = app.studies.add_search(request, owner=app.owner)
        return preview.to_dict(), await _work(app, started.job.id, quiet=as_json)

    preview, view = run_with_app(work)
    if view is None:
        if as_json:
            emit_json({"preview": preview, "job": None, "exit_status": 0})
        else:
            _say("Not started.")
        return
    if as_json:
        emit_json({"preview": preview} | view.to_dict())
    else:
        _report_job(view)
    if view.exit_status:
        raise typer.Exit(view.exit_status)


def update(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    provider: Annotated[
        list[str] | None,
        typer.Option(
            "--provider",
            "-p",
            help="Re-run only these databases of the saved searches (repeat or "
            "comma-separate; say, the one that failed last time). Default: all of them.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-run the Study's saved searches as recorded (definitions and caps): records new
    by identity join the Study marked new, and the round's report says what was new,
    already known, changed and retracted since. Exit status 0 ok, 1 failed, 3 partial,
    4 allowance spent (see docs/studies.md: "Whole searches into a Study; keeping a Study up to date")."""
    from litdesk.services.studies import UpdateStudyRequest

    wanted = tuple(p for value in provider or () for p in value.split(","))
    request = UpdateStudyRequest(study, wanted)

    async def work(app: App) -> tuple[WholeSearchJob, dict[str, object]]:
        started = app.studies.update_study(request, owner=app.owner)
        view = await _work(app, started.job.id, quiet=as_json)
        rounds = app.studies.search_rounds(view.study_id, owner=app.owner).to_dict()
        return view, rounds

    view, rounds = run_with_app(work)
    if as_json:
        emit_json(view.to_dict() | {"latest_update": rounds["latest_update"]})
    else:
        _report_job(view)
    if view.exit_status:
        raise typer.Exit(view.exit_status)


def register(app: typer.Typer) -> None:
    """Add ``study add-search`` and ``study update`` to the ``study`` group."""
    del app  # the study group is registered by the workspace commands
    study_app.command("add-search")(command(add_search))
    study_app.command("update")(command(update))
