"""``litdesk search``: a fused (or provider-order) search run, or the raw provider trace.

Thin: parse the options into a ``SearchRequest`` (validated there, the same as the web's)
and call ``app.search.search``, then print a ranked table with why-this-paper (lanes and
ranks), conflicts, lane statuses and the provenance (executed query per lane, run id,
versions, coverage; provider totals shown separately, never added). ``--trace`` runs the
old per-provider trace instead (``app.search.trace`` with a ``TraceRequest``): every
sighting, not deduplicated.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from litdesk._errors import ExternalError, InputError
from litdesk.core.providers import (
    DEMO_PROVIDER,
    PROVIDERS,
    display_name,
    lane_label,
    lane_notice,
    status_words,
)

from .._words import num, plural, when
from ._context import demo_on, run_with_app
from ._output import command, console, emit_json, err_console, error_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import RenderableType

    from litdesk.core.records import Paper
    from litdesk.core.runs import RunHit, SearchRun
    from litdesk.core.trace import SearchSighting as Sighting
    from litdesk.core.trace import SearchTrace
    from litdesk.services.app import App
    from litdesk.services.search import SearchRequest, SearchView

__all__ = ["register", "show_run"]

#: Below this width a result list is printed as cards (see ``_tables``).
WIDE = 120


class SearchArgumentError(InputError):
    """An option of ``litdesk search`` has a value it does not accept."""

    default_code = "arguments"


class AllLanesFailed(ExternalError):
    """Every provider lane failed; the trace says why."""

    default_code = "all_lanes_failed"


class AllLanesRefused(AllLanesFailed):
    """Every lane refused the query or a filter before sending anything: waiting and trying
    again cannot help (the general advice for a provider that did not answer)."""

    hint = (
        "Change what each database refused (its reason is above): the query, a filter or "
        "the databases (-p)."
    )


def all_lanes_failed(outcomes: Sequence[str]) -> AllLanesFailed:
    """The error for a search whose every lane failed, by the lanes' outcomes."""
    if outcomes and all(o == "unsupported" for o in outcomes):
        return AllLanesRefused(
            "no database can run this search as asked (each one's reason is above)"
        )
    return AllLanesFailed("no database answered with results (each one's reason is above)")


def _providers(values: list[str] | None) -> list[str]:
    if not values:  # the demo workspace (litdesk --demo) traces its offline sample
        return [DEMO_PROVIDER] if demo_on() else list(PROVIDERS)
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            name = part.strip().lower()
            if name == "all":
                out.extend(p for p in PROVIDERS if p not in out)
            elif name and name not in out:
                out.append(name)
    return out


def _ids(identifiers: dict[str, str]) -> str:
    order = ("doi", "pmid", "pmcid", "openalex_id", "arxiv_id")
    labels = {"openalex_id": "openalex", "arxiv_id": "arxiv"}
    parts = [f"{labels.get(k, k)}:{identifiers[k]}" for k in order if k in identifiers]
    return " ".join(parts) or identifiers.get("id", "")


def _show(trace: SearchTrace) -> None:
    for attempt in trace.attempts:
        style = {"success": "green", "partial": "yellow", "failed": "red"}[attempt.status]
        head = Text()
        head.append(lane_label(attempt.lane), style="bold")
        head.append(" ")
        head.append(attempt.outcome, style=style)
        if attempt.total is not None:
            head.append(f"  {attempt.returned} of {attempt.total:,}")
        if attempt.reuse:
            head.append(f"  ({attempt.reuse})")
        if attempt.next_cursor:
            head.append(f"  next cursor: {attempt.next_cursor[:60]}")
        console.print(head)
        notice = lane_notice(attempt.outcome, attempt.lane, message=attempt.message or "")
        if notice:
            console.print(Text(f"  {notice}"), highlight=False)
        if attempt.message:
            console.print(Text(f"  details: {attempt.message}"), highlight=False)
        for warning in attempt.warnings:
            console.print(Text(f"  warning: {warning}", style="yellow"), highlight=False)
        if attempt.request and attempt.request.get("operation") == "fetch":
            continue
        sightings = [s for s in trace.sightings_of(attempt.provider)]
        if not sightings or attempt.status == "failed":
            continue
        from rich.table import Table

        from ._tables import print_fitting

        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        table.add_column("#", justify="right")
        table.add_column("title", overflow="fold", ratio=5)
        table.add_column("first author", overflow="fold", ratio=2)
        table.add_column("year")
        table.add_column("ids", overflow="fold", ratio=3)
        for s in sightings:
            p = s.paper
            table.add_row(
                str(s.rank),
                Text(p.title or "(no title)"),
                Text(p.authors[0] if p.authors else ""),
                str(p.year or ""),
                Text(_ids(s.identifiers)),
            )
        print_fitting(console, table, partial(_sighting_cards, sightings), wide=WIDE)
    summary = trace.to_dict()["summary"]
    console.print(
        Text(
            f"{plural(summary['sightings'], 'sighting')} from {summary['succeeded']} of "
            f"{plural(summary['attempts'], 'attempt')} (not deduplicated; provider totals are not added)"
        ),
        highlight=False,
    )


def _paper_lines(paper: Paper, identifiers: dict[str, str]) -> list[Text]:
    from ._tables import line

    return [
        line(paper.authors[0] if paper.authors else None, str(paper.year or "")),
        line(_ids(identifiers)),
    ]


def _sighting_cards(sightings: Sequence[Sighting]) -> RenderableType:
    from ._tables import cards

    return cards(
        (str(s.rank), [Text(s.paper.title or "(no title)"), *_paper_lines(s.paper, s.identifiers)])
        for s in sightings
    )


def _hit_cards(run: SearchRun) -> RenderableType:
    from ._tables import cards, line

    def lines(hit: RunHit) -> list[Text]:
        title = Text(hit.paper.title or "(no title)")
        if hit.conflicts:
            title.append("  [conflicting identifiers]", style="red")
        return [
            title,
            *_paper_lines(hit.paper, hit.paper.identifiers()),
            line("why:", _why(hit), sep=" "),
        ]

    return cards((str(rank), lines(hit)) for rank, hit in enumerate(run.hits, start=1))


def _why(hit: RunHit) -> str:
    return ", ".join(f"{lane_label(c.lane)} #{c.rank}" for c in hit.contributions)


def show_run(run: SearchRun) -> None:
    """The ranked table, lane statuses and provenance of a run."""
    from rich.table import Table

    from ._tables import print_fitting

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("title", overflow="fold", ratio=5)
    table.add_column("first author", overflow="fold", ratio=2)
    table.add_column("year")
    table.add_column("ids", overflow="fold", ratio=3)
    table.add_column("why (database #rank)", overflow="fold", ratio=3)
    for rank, hit in enumerate(run.hits, start=1):
        p = hit.paper
        title = Text(p.title or "(no title)")
        if hit.conflicts:
            title.append("  [conflicting identifiers]", style="red")
        table.add_row(
            str(rank),
            title,
            Text(p.authors[0] if p.authors else ""),
            str(p.year or ""),
            Text(_ids(p.identifiers())),
            Text(_why(hit)),
        )
    if run.hits:
        print_fitting(console, table, lambda: _hit_cards(run), wide=WIDE)
    for hit in run.hits:
        for conflict in hit.conflicts:
            console.print(Text(f"conflict ({hit.paper.id}): {conflict}", style="red"))
    for lane in run.lanes:
        style = "green" if lane.status == "ok" else "red"
        head = Text()
        head.append(lane_label(lane.lane), style="bold")
        head.append(": ")
        head.append(status_words(lane.status), style=style)
        if lane.status == "ok":
            total = "unknown" if lane.total is None else num(lane.total)
            head.append(f"  {num(lane.returned)} returned; provider total {total}")
        if lane.next_cursor:
            head.append(f"  next cursor: {lane.next_cursor[:60]}")
        console.print(head)
        if lane.executed_query:
            console.print(Text(f"  executed: {lane.executed_query}"), highlight=False)
        notice = lane_notice(
            lane.status, lane.lane, message=lane.message, retry_after=lane.retry_after
        )
        if notice:
            console.print(Text(f"  {notice}"), highlight=False)
        if lane.message:
            console.print(Text(f"  details ({lane.status}): {lane.message}"), highlight=False)
        for warning in lane.warnings:
            console.print(Text(f"  warning: {warning}", style="yellow"), highlight=False)
    reuse = f"; reused ({run.reuse}) from {run.reused_from}" if run.reuse else ""
    if not run.reuse and run.executed_at != run.retrieved_at:  # a replay: searched then
        reuse = f" (replayed {when(run.executed_at)})"
    console.print(
        Text(
            f"run {run.id}: {plural(run.unique_retrieved, 'distinct paper')}; "
            f"coverage {run.coverage}, candidate limit {run.candidate_limit}; "
            f"ranking {run.ranking_version}, deduplication {run.deduplication_version}; "
            f"retrieved {when(run.retrieved_at)}{reuse}. "
            "Provider totals are shown per lane and never added."
        ),
        highlight=False,
    )


class NothingRecorded(ExternalError):
    """``--record`` wrote no exchange: no database answered (no network, every lane refused)."""

    default_code = "nothing_recorded"


def one_cassette(record: Path | None, replay: Path | None) -> None:
    """``--record`` and ``--replay`` exclude each other (every command that takes them)."""
    if record is not None and replay is not None:
        raise SearchArgumentError("choose --record or --replay, not both")


def report_recorded(folder: Path, recorded: dict[str, int]) -> None:
    """Say what ``--record`` wrote (``recorded 3 exchanges in DIR: Europe PMC 2, PubMed 1``);
    a :class:`NothingRecorded` failure (exit 5) when it wrote nothing."""
    total = sum(recorded.values())
    if total == 0:  # on stderr even with --json (stdout holds the run or trace)
        error = NothingRecorded(
            f"nothing was recorded in {folder}: no database answered (is there a network "
            "connection?); the lanes above say why",
            folder=str(folder),
        )
        for line in error_lines(error):
            err_console.print(line, markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(error.exit_code)
    each = ", ".join(f"{display_name(p)} {num(n)}" for p, n in sorted(recorded.items()))
    err_console.print(
        f"recorded {plural(total, 'exchange')} in {folder}: {each}",
        markup=False,
        highlight=False,
    )


def _fused(
    request: SearchRequest, *, record: Path | None, replay: Path | None, as_json: bool
) -> None:
    async def work(app: App) -> tuple[SearchView, dict[str, int]]:
        return await app.search.search(request, owner=app.owner), app.recorded()

    view, recorded = run_with_app(work, record=record, replay=replay)
    run = view.run
    if as_json:
        emit_json(run.to_dict())
    else:
        show_run(run)
    succeeded = any(lane.status == "ok" for lane in run.lanes)
    if request.save and succeeded:
        err_console.print(f"saved run {run.id}", markup=False, highlight=False)
    elif request.save:
        err_console.print("not saved: every lane failed", markup=False, highlight=False)
    if record is not None:
        report_recorded(record, recorded)
    if not succeeded:
        if as_json:
            raise typer.Exit(AllLanesFailed.exit_code)
        raise all_lanes_failed([lane.status for lane in run.lanes])


def register(app: typer.Typer) -> None:
    """Add ``litdesk search`` to ``app``."""

    @app.command("search")
    @command
    def search(
        query: Annotated[str, typer.Argument(help="The query (litdesk query language).")],
        provider: Annotated[
            list[str] | None,
            typer.Option(
                "--provider",
                "-p",
                help=f"One or more providers: {', '.join(PROVIDERS)}, or all (default). "
                "Repeat or comma-separate.",
            ),
        ] = None,
        field: Annotated[str, typer.Option(help="all, title, abstract or author.")] = "all",
        type_: Annotated[
            str, typer.Option("--type", help="all, review, preprint or journal.")
        ] = "all",
        year_from: Annotated[int | None, typer.Option("--from", help="First year.")] = None,
        year_to: Annotated[int | None, typer.Option("--to", help="Last year.")] = None,
        open_access: Annotated[bool, typer.Option(help="Open-access records only.")] = False,
        include_retracted: Annotated[
            bool, typer.Option(help="Keep retracted publications.")
        ] = False,
        sort: Annotated[str, typer.Option(help="relevance, newest or cited.")] = "relevance",
        synonyms: Annotated[
            bool | None,
            typer.Option(
                "--synonyms/--no-synonyms",
                help="Europe PMC's vocabulary expansion on or off (not given: Europe PMC's "
                "default).",
            ),
        ] = None,
        cursor: Annotated[
            str | None, typer.Option(help="A provider's next cursor (one provider only).")
        ] = None,
        limit: Annotated[int, typer.Option(help="Records per provider (1–100).")] = 20,
        raw: Annotated[bool, typer.Option(help="Include raw response bodies in --json.")] = False,
        record: Annotated[
            Path | None, typer.Option(help="Write every exchange to this cassette folder.")
        ] = None,
        replay: Annotated[
            Path | None, typer.Option(help="Answer from this cassette folder; no network.")
        ] = None,
        no_cache: Annotated[
            bool,
            typer.Option(
                "--no-cache", help="Skip the search cache (fused) or the evidence cache (--trace)."
            ),
        ] = False,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print the run (or the trace) as JSON.")
        ] = False,
        mode: Annotated[
            str,
            typer.Option(
                help="keyword (one provider, provider order; several providers are fused), "
                "semantic (OpenAlex semantic shortlist) or discovery (Europe PMC + OpenAlex "
                "keyword + OpenAlex semantic, fused)."
            ),
        ] = "keyword",
        show_trace: Annotated[
            bool,
            typer.Option(
                "--trace", help="Show the raw per-provider trace (every sighting, no fusion)."
            ),
        ] = False,
        save: Annotated[bool, typer.Option("--save", help="Save the run in the store.")] = False,
        study: Annotated[
            str | None, typer.Option("--study", help="Save the run into this Study.")
        ] = None,
    ) -> None:
        """Search: a ranked, fused run with why-this-paper, lane statuses and provenance."""
        from litdesk.services.search import SearchRequest, TraceRequest

        one_cassette(record, replay)
        if not show_trace:
            wanted = SearchRequest(  # validated there (the web builds the same)
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
                cursor=cursor,
                limit=limit,
                save=save or study is not None,
                study=study,
                use_cache=not no_cache,
                synonyms=synonyms,
            )
            _fused(wanted, record=record, replay=replay, as_json=as_json)
            return
        if save or study:
            raise SearchArgumentError("--save and --study keep fused runs, not --trace output")
        if synonyms is not None:
            raise SearchArgumentError("--synonyms is a filter of fused runs, not of --trace")
        traced = TraceRequest(  # validated there
            query,
            tuple(_providers(provider)),
            field=field,
            type=type_,
            year_from=year_from,
            year_to=year_to,
            open_access=open_access,
            include_retracted=include_retracted,
            sort=sort,
            cursor=cursor,
            limit=limit,
            include_raw=raw,
            use_cache=not no_cache,
        )

        async def work(app: App) -> tuple[SearchTrace, dict[str, int]]:
            return await app.search.trace(traced, owner=app.owner), app.recorded()

        trace, recorded = run_with_app(work, record=record, replay=replay)
        if as_json:
            emit_json(trace.to_dict())
        else:
            _show(trace)
        if record is not None:
            report_recorded(record, recorded)
        if trace.status == "failed":
            if as_json:
                raise typer.Exit(AllLanesFailed.exit_code)
            raise all_lanes_failed([a.outcome for a in trace.attempts])
