"""``litdesk runs list|show|export|freeze|cases|bench``, ``litdesk report prisma`` and ``litdesk eval``.

Thin: the app's search area (``app.search``) does the work. Output files are never
overwritten silently (``--force``); ``eval`` refuses to overwrite an output file at all.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from litdesk._errors import InputError
from litdesk.core.providers import lane_label, status_words

from .._words import num, plural, when
from ._context import sync_app
from ._output import command, console, emit_json, err_console

if TYPE_CHECKING:
    from rich.console import RenderableType

    from litdesk.services.app import App

__all__ = ["register"]

runs_app = typer.Typer(help="Saved search runs: list, show, export, freeze.", no_args_is_help=True)
report_app = typer.Typer(
    help=(
        "Reports. 'litdesk report --papers A.pdf,B.pdf | --all --questions \"q1;q2\" …': "
        "a synthesis report over PDFs of the library (the options below; the same as "
        "'report synthesis'). 'litdesk report prisma': the PRISMA-S report of a Study."
    ),
    no_args_is_help=True,
    invoke_without_command=True,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


class RunsArgumentError(InputError):
    default_code = "arguments"


def _write(path: Path, text: str, force: bool) -> None:
    from litdesk.services.files import write_output

    write_output(path, text, force=force)


def check_output(path: Path, *, force: bool = False) -> None:
    """Refuse a bad ``-o`` before the work (see ``litdesk.services.files``)."""
    from litdesk.services.files import check_output as check

    check(path, force=force)


def _out(text: str, output: Path | None, force: bool) -> None:
    if output is None:
        typer.echo(text, nl=False)
    else:
        _write(output, text, force)
        err_console.print(f"wrote {output}", markup=False, highlight=False)


@runs_app.command("list")
@command
def runs_list(
    limit: Annotated[int, typer.Option(help="At most this many, newest first.")] = 50,
    as_json: JsonOpt = False,
) -> None:
    """Saved runs, newest first."""
    from rich.table import Table

    from ._search import WIDE
    from ._tables import cards, line, print_fitting

    with sync_app() as app:
        listed = app.search.runs(limit, owner=app.owner)
    if as_json:
        emit_json(listed.rows())
        return
    table = Table(box=None, header_style="bold")
    for name in ("id", "executed", "mode", "query", "lanes", "hits"):
        table.add_column(name, overflow="fold")
    for r in listed.runs:
        table.add_row(
            r.id,
            when(r.executed_at),
            r.definition.mode,
            Text(r.definition.query[:80]),
            Text("; ".join(f"{lane_label(x.lane)}: {status_words(x.status)}" for x in r.lanes)),
            num(r.unique_retrieved),
        )

    def as_cards() -> RenderableType:
        from litdesk.faces._words import plural, when

        return cards(
            (
                str(n),
                [
                    Text(r.definition.query[:80]),
                    line("run", r.id, sep=" "),
                    line(
                        r.definition.mode,
                        when(r.executed_at),
                        plural(r.unique_retrieved, "paper"),
                    ),
                    line(*(f"{lane.lane}:{lane.status}" for lane in r.lanes), sep=" "),
                ],
            )
            for n, r in enumerate(listed.runs, start=1)
        )

    print_fitting(console, table, as_cards, wide=WIDE)


@runs_app.command("show")
@command
def runs_show(
    run_id: Annotated[str, typer.Argument(help="The run id.")], as_json: JsonOpt = False
) -> None:
    """One saved run: the ranked hits, lanes and provenance."""
    from ._search import show_run

    with sync_app() as app:
        run = app.search.run(run_id, owner=app.owner)
    if as_json:
        emit_json(run.to_dict())
    else:
        show_run(run)


@runs_app.command("export")
@command
def runs_export(
    run_id: Annotated[str, typer.Argument(help="The run id.")],
    to: Annotated[
        str, typer.Option("--to", help="json (manifest), ris, prisma-md or prisma-html.")
    ] = "json",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite OUTPUT.")] = False,
) -> None:
    """Export a run: its manifest (JSON), RIS (conflicted hits excluded) or PRISMA-S."""
    if output is not None:
        check_output(output, force=force)
    from litdesk.services.search import RunExportRequest

    request = RunExportRequest(run_id, to)  # the format checked before the store opens
    with sync_app() as app:
        text = app.search.export_run(request, owner=app.owner).text
    _out(text, output, force)


@runs_app.command("freeze")
@command
def runs_freeze(
    run_id: Annotated[str, typer.Argument(help="The run id.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The fixture file.")],
    case: Annotated[str | None, typer.Option(help="Case name (default: the run id).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite OUTPUT.")] = False,
) -> None:
    """Freeze a run into an evaluation fixture without its query text."""
    check_output(output, force=force)
    with sync_app() as app:
        text = app.search.freeze(run_id, owner=app.owner, case=case).text
    _out(text, output, force)


SplitOpt = Annotated[
    str,
    typer.Option("--split", help="development (tune on these), holdout (report only) or all."),
]


@runs_app.command("cases")
@command
def runs_cases(
    split: SplitOpt = "all",
    judgments: Annotated[
        Path | None,
        typer.Option("--judgments", help="Write the known items as a judgments file."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite the judgments file.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """The search-evaluation case set: 60 cases in seven buckets, every third held out."""
    from litdesk.core.runs import BENCHMARK_VERSION, benchmark_judgments
    from litdesk.services.search import BenchRequest

    cases = BenchRequest(split).cases()  # type: ignore[arg-type]  # checked by the request
    if judgments is not None:
        check_output(judgments, force=force)
        _write(judgments, json.dumps(benchmark_judgments(cases), indent=2) + "\n", force)
    if as_json:
        emit_json({"version": BENCHMARK_VERSION, "cases": [c.to_dict() for c in cases]})
        return
    for c in cases:
        expect = f"error {c.expect_error}" if c.expect_error else ", ".join(c.known_items)
        console.print(
            Text(f"{c.id}  {c.split:<11} {c.mode:<9} {c.query[:60]!r}  {expect}".rstrip()),
            highlight=False,
        )
    console.print(Text(f"{plural(len(cases), 'case')} ({BENCHMARK_VERSION})"), highlight=False)


@runs_app.command("bench")
@command
def runs_bench(
    output: Annotated[Path, typer.Option("-o", "--output", help="The frozen runs (JSON).")],
    split: SplitOpt = "development",
    case: Annotated[
        list[str] | None, typer.Option("--case", help="Only this case id (repeatable).")
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option("--replay", help="Answer provider requests from this cassette folder."),
    ] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Record the provider exchanges here.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite OUTPUT.")] = False,
) -> None:
    """Run the case set (live, or replayed with --replay) and freeze each run with its
    latency and provider calls, for 'litdesk eval --runs OUTPUT'."""
    from litdesk.services.search import BenchRequest, BenchView

    from ._context import run_with_app

    request = BenchRequest(split, tuple(case or ()))  # type: ignore[arg-type]
    check_output(output, force=force)

    async def work(app: App) -> BenchView:
        return await app.search.bench(request, owner=app.owner)

    view = run_with_app(work, record=record, replay=replay)
    _write(output, json.dumps(view.to_dict(), indent=2, ensure_ascii=False) + "\n", force)
    calls = sum(r.provider_calls or 0 for r in view.runs)
    err_console.print(
        f"{plural(len(view.runs), 'case')} run, {plural(calls, 'provider call')}; runs in {output}",
        markup=False,
        highlight=False,
    )


@report_app.command("prisma")
@command
def report_prisma(
    study: Annotated[str, typer.Option("--study", help="The Study (name or id).")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None,
    html: Annotated[
        bool,
        typer.Option(
            "--html", help="A self-contained HTML page (also when OUTPUT ends in .html or .htm)."
        ),
    ] = False,
    force: Annotated[bool, typer.Option(help="Overwrite OUTPUT.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """PRISMA-S search report of a Study (its saved runs and imports) with its PRISMA 2020
    flow (screening included): Markdown or HTML."""
    from litdesk.services.studies import PrismaExportRequest

    # a file named .html gets the HTML page, as `litdesk report -o x.html` does (Markdown
    # under an .html name opened in a browser as one unformatted paragraph)
    html = html or (output is not None and output.suffix.lower() in (".html", ".htm"))

    if output is not None and not as_json:
        check_output(output, force=force)
    with sync_app() as app:
        if as_json:
            emit_json(app.search.prisma(study, owner=app.owner).to_dict())
            return
        request = PrismaExportRequest(study, "html" if html else "md")
        text = app.studies.export_prisma(request, owner=app.owner).text
    _out(text, output, force)


def _eval(
    runs: Annotated[Path, typer.Option("--runs", help="Frozen runs (JSON, ≤ 5 MB).")],
    judgments: Annotated[
        Path | None, typer.Option("--judgments", help="Graded judgments (JSON, ≤ 5 MB).")
    ] = None,
    k: Annotated[int, typer.Option("--k", help="The window.")] = 10,
    output: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the report here (never overwritten).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Offline evaluation: precision@k, nDCG@k, known-item recall@k, duplicate and conflict
    rates. A window with any ungraded hit is reported as unjudged, never zero."""
    from rich.table import Table

    from litdesk.services.search import evaluate_files

    from ._tables import cards, line, print_fitting

    if output is not None and os.path.lexists(output):
        raise RunsArgumentError(f"{output} exists; eval never overwrites a report", code="exists")
    if output is not None:
        check_output(output)
    report = evaluate_files(runs, judgments, k=k).to_dict()
    if output is not None:
        _write(output, json.dumps(report, indent=2) + "\n", False)
    if as_json:
        emit_json(report)
        return
    table = Table(box=None, header_style="bold")
    for name in ("case", f"P@{k}", f"nDCG@{k}", f"recall@{k}", "dup", "conflict", "ms", "calls"):
        table.add_column(name)
    for r in report["runs"]:
        table.add_row(
            Text(r["case"]),
            str(r["precision_at_k"]),
            str(r["ndcg_at_k"]),
            str(r["known_item_recall_at_k"]),
            str(r["duplicate_rate"]),
            str(r["conflict_rate"]),
            "" if r["latency_ms"] is None else str(r["latency_ms"]),
            "" if r["provider_calls"] is None else str(r["provider_calls"]),
        )

    def as_cards() -> RenderableType:
        return cards(
            (
                str(n),
                [
                    Text(r["case"]),
                    line(
                        f"P@{k} {r['precision_at_k']}",
                        f"nDCG@{k} {r['ndcg_at_k']}",
                        f"recall@{k} {r['known_item_recall_at_k']}",
                    ),
                    line(f"dup {r['duplicate_rate']}", f"conflict {r['conflict_rate']}"),
                ],
            )
            for n, r in enumerate(report["runs"], start=1)
        )

    print_fitting(console, table, as_cards)
    s = report["summary"]
    console.print(
        Text(
            f"mean P@{k} {s['precision_at_k']['mean']} ({s['precision_at_k']['covered']} of "
            f"{s['precision_at_k']['of']} judged); mean nDCG@{k} {s['ndcg_at_k']['mean']}; "
            f"unjudged runs {s['unjudged_runs']}"
        ),
        highlight=False,
    )
    ops = report["operations"]
    if ops["latency_ms"]["covered"] or ops["provider_calls"]["covered"]:
        lat, calls = ops["latency_ms"], ops["provider_calls"]
        errors = ops["expected_errors"]
        console.print(
            Text(
                f"latency p50 {lat['p50']} ms, p95 {lat['p95']} ms ({lat['covered']} of "
                f"{lat['of']} runs); provider calls {calls['total']} (mean {calls['mean']} "
                f"per run); expected errors met {errors['met']} of {errors['of']}, "
                f"unexpected errors {ops['unexpected_errors']}"
            ),
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add ``runs``, ``report`` and ``eval``."""
    app.add_typer(runs_app, name="runs")
    app.add_typer(report_app, name="report")
    app.command("eval")(command(_eval))
