"""``litdesk strategy build|suggest`` and ``litdesk study summary``.

Thin: parse the options, call :mod:`litdesk.services.strategy` /
:mod:`litdesk.services.summary`, print.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from ._output import command, console, emit_json

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
    from litdesk.services.strategy import build_strategy

    view = build_strategy([ConceptGroup(parse_group_option(g)) for g in group])
    if as_json:
        emit_json(view.to_dict())
    else:
        _print_build(view.to_dict())


def register(app: typer.Typer) -> None:
    """Add ``litdesk strategy …`` to ``app``."""
    app.add_typer(strategy_app, name="strategy")
