"""``litdesk study add-search`` (a whole search into a Study), ``litdesk study update``
(the Study's saved searches re-run as an update round) and ``litdesk study round`` (an
update round begun by hand, for the exports of databases litdesk cannot query). Thin: build the request, call
``app.studies``, run the job here (no server needed), print.

Both take ``--record DIR`` / ``--replay DIR`` as ``litdesk search`` does: the Study's
searches written to, or answered from, a cassette (re-run offline, e.g. to check that a
trace reproduces).

Exit statuses (for cron and systemd): 0 done (every lane complete or capped); 1 failed;
3 partial (a lane failed or stopped early, or the job was cancelled); 4 the daily
allowance was spent before every page was read (the job stops and says so; what it read
is kept); 8 refused, nothing done (nothing to re-run, no saved search on the databases
asked, no such Study, every database refused the search). An input error exits 2 like
every command. ``--json`` says which as ``outcome``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import LitdeskError, NotFoundError, RefusedError
from litdesk.core.providers import lane_label

from .._explain import explain_code
from .._words import num, plural
from ._context import run_with_app
from ._output import command, console, emit_json, err_console
from ._search import _providers, one_cassette, report_recorded
from ._workspace import JsonOpt, study_app

if TYPE_CHECKING:
    from litdesk.services.app import App
    from litdesk.services.studies import WholeSearchJob

__all__ = ["EXIT_REFUSED", "NothingDone", "register"]

_POLL_SECONDS = 1.0
#: refused, nothing done (``litdesk.services.studies.EXIT_REFUSED``; not imported at start)
EXIT_REFUSED = 8

RecordOpt = Annotated[
    Path | None,
    typer.Option(
        "--record", help="Write every exchange with the databases to this cassette folder."
    ),
]
ReplayOpt = Annotated[
    Path | None,
    typer.Option(
        "--replay", help="Answer from this cassette folder (made with --record); no network."
    ),
]


#: a finished job's outcome in words (the web's job page says the same)
_OUTCOME_WORDS = {
    "done": "done",
    "failed": "failed",
    "partial": "partial: a database failed or stopped early, as said below",
    "cancelled": "cancelled",
    "allowance_spent": "stopped: today's allowance is spent",
    "refused": "refused: nothing was done",
}


class NothingDone(RefusedError):
    """A whole search or an update refused before anything ran (nothing to re-run, no
    saved search on the databases asked, no such Study …): its own exit status (8), so a
    scheduler never reads it as partial (3) or the allowance spent (4); ``--json`` says
    ``"outcome": "refused"``."""

    exit_code = EXIT_REFUSED
    default_code = "refused"

    def __init__(self, cause: LitdeskError) -> None:
        super().__init__(cause.message, code=cause.code, **cause.details)
        if isinstance(cause, NotFoundError):
            self.hint = "Nothing was run. Check the Study's name with `litdesk study list`."
        else:
            self.hint = cause.hint if cause.hint is not None else "Nothing was run or changed."

    def to_dict(self) -> dict[str, Any]:
        return super().to_dict() | {"outcome": "refused", "exit_status": self.exit_code}


@contextmanager
def _refusals() -> Iterator[None]:
    """A refusal (or a Study not found) inside: a :class:`NothingDone`."""
    try:
        yield
    except (RefusedError, NotFoundError) as exc:
        raise NothingDone(exc) from exc


def _report_recorded(
    record: Path | None, recorded: dict[str, int], view: WholeSearchJob | None
) -> None:
    """What ``--record`` wrote; nothing written because every database refused the search
    (nothing was sent) is said as such, not as a network failure (the job's 8 stands)."""
    if record is None:
        return
    if not sum(recorded.values()) and view is not None and view.outcome == "refused":
        _err(f"nothing was recorded in {record}: every database refused the search")
        return
    report_recorded(record, recorded)


def _err(text: str) -> None:
    err_console.print(text, markup=False, highlight=False, soft_wrap=True)


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


async def _work(app: App, job_id: str, *, quiet: bool) -> WholeSearchJob:
    """Run the job in a worker thread (its pages run on this loop), showing progress. The
    job was claimed by this process when it was submitted (``here=True``): a server on the
    same data never takes it, and one replaying or recording a cassette is bound to this
    process (see docs/studies.md)."""
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
    said = _OUTCOME_WORDS.get(view.outcome or "", job.status)
    _say(f"{view.study_name}: job {job.id} {said} (exit status {view.exit_status})")
    if job.status == "failed":
        error = result.get("error")
        code = str(error.get("code", "")) if isinstance(error, dict) else ""
        words = explain_code(code, job.message)  # a replayed page the cassette lacks
        message = str(words) if words is not None else job.message
        _say(f"  {'refused' if view.outcome == 'refused' else 'failed'}: {message}")
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
            told = str(lane.get("notice") or lane.get("message") or "")
            name = str(lane.get("label") or lane_label(str(lane.get("lane", lane["provider"]))))
            told = told.removeprefix(name).lstrip(" :")  # a notice naming its lane again
            if lane["state"] == "failed" and not lane["retrieved"]:  # why, not a count
                _say(f"    {name}: failed: {told or 'no reason was stored'}")
                continue
            extra = f": {told}" if told else ""
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
        typer.Option("--provider", "-p", help="One or more databases; repeat or comma-separate."),
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
    record: RecordOpt = None,
    replay: ReplayOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add EVERY record of a search to a Study: shows each provider's total and the
    allowance it will spend, asks (unless --yes), then pages every lane up to the cap.
    Exit status 0 done, 1 failed, 3 partial, 4 allowance spent, 8 refused (nothing done)."""
    from litdesk.services.search import SearchRequest
    from litdesk.services.studies import AddSearchRequest

    one_cassette(record, replay)

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

    async def work(
        app: App,
    ) -> tuple[dict[str, object], WholeSearchJob | None, dict[str, int]]:
        import asyncio

        with _refusals():
            preview = await app.studies.preview_add_search(request, owner=app.owner)
        if not as_json:
            _say(f"Add all results of {query!r} to {preview.study_name} (cap {cap:,} per lane):")
            if preview.replay:  # no live allowance to show: a replay spends none
                _say(
                    f"  Answered from the recording in {replay}: the search spends none of "
                    "your daily allowance."
                )
            told: set[str] = set()
            for lane in preview.lanes:
                name = lane_label(lane["lane"])
                if lane["problem"]:  # no total: why, not "unknown records; adds 0 records"
                    _say(f"  {name}: no total: {lane['problem']}")
                    told.add(f"{name}: {lane['problem']}")
                    continue
                total = "unknown" if lane["total"] is None else f"{lane['total']:,}"
                left = lane["allowance_left"]
                _say(
                    f"  {name}: {total} records; adds "
                    f"{plural(lane['records'], 'record')} in "
                    f"{plural(lane['requests'], 'request')}"
                    + ("" if left is None else f" ({num(left)} left today)")
                )
            for warning in preview.warnings:
                if warning not in told:
                    _say(f"  ! {warning}")
        go = yes or (not as_json and await asyncio.to_thread(typer.confirm, "Start?"))
        if not go:
            return preview.to_dict(), None, app.recorded()
        with _refusals():
            started = app.studies.add_search(request, owner=app.owner, here=True)
        view = await _work(app, started.job.id, quiet=as_json)
        return preview.to_dict(), view, app.recorded()

    preview, view, recorded = run_with_app(work, record=record, replay=replay, holds_jobs=True)
    if view is None:
        if as_json:
            emit_json({"preview": preview, "job": None, "exit_status": 0, "outcome": "not_started"})
        else:
            _say("Not started.")
    elif as_json:
        emit_json({"preview": preview} | view.to_dict())
    else:
        _report_job(view)
    _report_recorded(record, recorded, view)
    if view is not None and view.exit_status:
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
    record: RecordOpt = None,
    replay: ReplayOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-run the Study's saved searches as recorded (definitions and caps): records new
    by identity join the Study marked new, and the round's report says what was new,
    already known, changed and retracted since. Exit status 0 done, 1 failed, 3 partial,
    4 allowance spent, 8 refused: nothing done (see docs/studies.md: "Whole searches into
    a Study; keeping a Study up to date")."""
    from litdesk.services.studies import UpdateStudyRequest

    one_cassette(record, replay)
    wanted = tuple(p for value in provider or () for p in value.split(","))
    request = UpdateStudyRequest(study, wanted)

    async def work(app: App) -> tuple[WholeSearchJob, dict[str, object], dict[str, int]]:
        with _refusals():
            started = app.studies.update_study(request, owner=app.owner, here=True)
        view = await _work(app, started.job.id, quiet=as_json)
        rounds = app.studies.search_rounds(view.study_id, owner=app.owner).to_dict()
        return view, rounds, app.recorded()

    view, rounds, recorded = run_with_app(work, record=record, replay=replay, holds_jobs=True)
    if as_json:
        emit_json(view.to_dict() | {"latest_update": rounds["latest_update"]})
    else:
        _report_job(view)
    _report_recorded(record, recorded, view)
    if view.exit_status:
        raise typer.Exit(view.exit_status)


def begin_round(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    note: Annotated[
        str | None,
        typer.Option(
            "--note", help='What the round is ("Embase and Scopus re-run, exports of 8 Dec").'
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Begin the Study's next update round by hand, for searches re-run in databases
    litdesk cannot query: the exports you import next (`litdesk import FILE --study S`)
    count in it, as PRISMA 2020's update column and PRISMA-S (a living review). Refused
    while the latest round begun this way has nothing in it (see
    docs/studies.md: "Update rounds begun by hand")."""
    from litdesk.services.studies import BeginRoundRequest

    from ._context import sync_app

    request = BeginRoundRequest(study, note)
    with sync_app() as app:
        begun = app.studies.begin_round(request, owner=app.owner)
    if as_json:
        emit_json(begun.to_dict())
        return
    _say(
        f"Update round {begun.round} of {begun.study_name} began {begun.began_at}"
        + (f" ({begun.note})" if begun.note else "")
    )
    _say(f"Import its exports next: litdesk import FILE --study {begun.study_id}")


def register(app: typer.Typer) -> None:
    """Add ``study add-search``, ``study update`` and ``study round`` to the ``study`` group."""
    del app  # the study group is registered by the workspace commands
    study_app.command("add-search")(command(add_search))
    study_app.command("update")(command(update))
    study_app.command("round")(command(begin_round))
