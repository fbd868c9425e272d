"""``litdesk strategy build|suggest`` and ``litdesk study summary``.

Thin: parse the options into the request, call ``app.assist`` (the assist area), print.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from ._output import command, console, emit_json, err_console

__all__ = ["register"]

strategy_app = typer.Typer(
    help="Search strategy: build a query from concept groups, or have a model suggest them.",
    no_args_is_help=True,
)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _say(text: str, style: str | None = None) -> None:
    console.print(Text(text, style=style or ""), soft_wrap=True)


def _print_build(data: dict[str, Any]) -> None:
    for n, group in enumerate(data["groups"], 1):
        mark = "" if group["included"] else "  (not included)"
        label = f"{group['label']}: " if group["label"] else ""
        _say(f"Group {n}{mark}: {label}{' | '.join(group['terms'])}")
    for warning in data["warnings"]:
        _say(f"warning: {warning}", "yellow")
    _say(f"Query ({data['characters']:,} characters):", "bold")
    _say(data["query"])
    for name, outcome in data["providers"].items():
        if "refused" in outcome:
            _say(f"  {name}: refused — {outcome['refused']}", "red")
        else:
            _say(f"  {name}: {outcome['executed_query']}")
            for warning in outcome["warnings"]:
                _say(f"    warning: {warning}", "yellow")


@strategy_app.command("build")
@command
def strategy_build(
    group: Annotated[
        list[str],
        typer.Option(
            "--group",
            "-g",
            help='One concept: its alternatives separated by "|" ("\\|" for a bar). '
            "Repeat for up to 6 groups (AND across groups).",
        ),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Build one query from concept groups (quoted literals, OR inside a group, AND across
    groups) and show its exact request for every provider. Nothing is sent."""
    from litdesk.core.strategy import ConceptGroup, parse_group_option
    from litdesk.services.assist import BuildStrategy

    from ._context import sync_app

    request = BuildStrategy(tuple(ConceptGroup(parse_group_option(g)) for g in group))
    with sync_app() as app:
        view = app.assist.build_strategy(request)
    if as_json:
        emit_json(view.to_dict())
    else:
        _print_build(view.to_dict())


ConsentOpt = Annotated[
    bool,
    typer.Option(
        "--consent",
        help="Send the text shown to the model host shown (otherwise you are asked, on a terminal).",
    ),
]


def _show_notice(notice: Any, *, as_json: bool) -> None:
    """What will be sent and where: on stderr, so that ``--json`` output stays JSON."""
    out = err_console if as_json else console
    out.print(Text(notice.headline(), style="bold"), soft_wrap=True)
    out.print(Text("Text to be sent:"), soft_wrap=True)
    out.print(Text(notice.text), soft_wrap=True)


def _consent(notice: Any, given: bool, *, as_json: bool) -> str | None:
    """The notice's token when the person consents (``--consent`` or a yes on a terminal)."""
    import sys

    _show_notice(notice, as_json=as_json)
    if given:
        return str(notice.token)
    if sys.stdin.isatty() and typer.confirm(f"Send this to {notice.host}?", default=False):
        return str(notice.token)
    return None


@strategy_app.command("suggest")
@command
def strategy_suggest(
    question: Annotated[
        str, typer.Argument(help="The research question (up to 2,000 characters).")
    ],
    consent: ConsentOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Ask the model for up to 6 concept groups of literal terms (unverified). Review and
    edit them, then build the query with ``litdesk strategy build``."""
    import asyncio
    import shlex

    from litdesk.services.assist import StrategyRequest

    from ._context import sync_app

    with sync_app() as app:
        notice = app.assist.strategy_notice(StrategyRequest(question), owner=app.owner)
        request = StrategyRequest(question, _consent(notice, consent, as_json=as_json))
        view = asyncio.run(app.assist.suggest_strategy_now(request, owner=app.owner))
    data = view.to_dict()
    build = "litdesk strategy build " + " ".join(
        "--group "
        + shlex.quote("|".join(t.replace("\\", "\\\\").replace("|", "\\|") for t in g["terms"]))
        for g in data["groups"]
    )
    if as_json:
        emit_json(data | {"build_command": build})
        return
    _say(data["warning"], "yellow")
    for n, g in enumerate(data["groups"], 1):
        _say(f"Group {n}: {g['label']}", "bold")
        for term in g["terms"]:
            _say(f"  - {term}")
    for d in data["removed_duplicates"]:
        _say(f"duplicate term removed: {d}")
    _say("After you reviewed (and edited) these concepts, build the query with:")
    _say(build)


def study_summary(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    focus: Annotated[
        str, typer.Option("--focus", help="overview, evidence or handover.")
    ] = "overview",
    deselect: Annotated[
        list[str] | None,
        typer.Option("--deselect", help="Leave out a source (S3); repeatable."),
    ] = None,
    list_sources: Annotated[
        bool, typer.Option("--sources", help="Only list the numbered sources (nothing is sent).")
    ] = False,
    consent: ConsentOpt = False,
    save: Annotated[
        bool, typer.Option("--save", help="Save the verified summary as a Study report.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the saved report as offline HTML here."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Summarise a Study with the model from numbered sources (S1…); every point must
    cite sources with quotes found in them. ``--save`` keeps it as a Study report."""
    import asyncio
    import sys

    from litdesk.services.assist import SaveSummaryReport, SummaryRequest
    from litdesk.services.files import write_output

    from ._context import sync_app

    what = SummaryRequest(study, focus, tuple(deselect or ()))
    with sync_app() as app:
        owner = app.owner
        if list_sources:
            packet = app.assist.summary_sources(what, owner=owner).packet
            if as_json:
                emit_json(packet.to_dict())
                return
            for s in packet.sources:
                _say(
                    f"{s.id}  {s.label}  ({len(s.text):,} characters{', cut' if s.shortened else ''})"
                )
            for o in packet.omissions:
                _say(o, "yellow")
            return
        notice = app.assist.summary_notice(what, owner=owner).notice
        request = SummaryRequest(
            study, focus, what.deselected, _consent(notice, consent, as_json=as_json)
        )
        view = asyncio.run(app.assist.summarise_now(request, owner=owner))
        data: dict[str, Any] = view.to_dict()
        if not as_json:
            _print_draft(data)
        keep = save or (
            not as_json
            and sys.stdin.isatty()
            and typer.confirm("You reviewed it: save it as a Study report?", default=False)
        )
        if keep:
            saving = SaveSummaryReport(study, view.draft_id, reviewed=True)
            report = app.assist.save_summary_report(saving, owner=owner)
            data["report_id"] = report.id
            if output is not None:
                file = app.assist.study_report_file(study, report.id, owner=owner)
                write_output(output, file.html.encode("utf-8"))
                data["output"] = str(output)
    if as_json:
        emit_json(data)
        return
    if "report_id" in data:
        _say(
            f"Saved as Study report {data['report_id']}" + (f"; HTML in {output}" if output else "")
        )
    else:
        _say(f"Not saved (draft {data['draft_id']}; rerun with --save to keep a summary).")


_TITLES = {
    "overview": "Overview",
    "findings": "Findings",
    "gaps": "Gaps",
    "next_steps": "Next steps",
}


def _print_draft(data: dict[str, Any]) -> None:
    rec = data["record"]
    _say(
        f"Model {rec['model']} at {rec['host']}: {data['citations_checked']} citations checked, "
        f"{data['citations_rejected']} rejected."
    )
    for name, title in _TITLES.items():
        _say(title, "bold")
        points = data["sections"][name]
        if not points:
            _say("  (no verified point)")
        for n, p in enumerate(points, 1):
            _say(f"  {n}. {p['text']}")
            for c in p["citations"]:
                _say(f"     [{c['source']}] \u201c{c['quote']}\u201d")
    for w in data["warnings"] + data["omissions"]:
        _say(f"warning: {w}", "yellow")


def register(app: typer.Typer) -> None:
    """Add ``litdesk strategy …`` to ``app`` and ``summary`` to ``litdesk study``."""
    from ._workspace import study_app

    app.add_typer(strategy_app, name="strategy")
    study_app.command("summary")(command(study_summary))
