"""CLI: ``litdesk study records STUDY`` and ``litdesk study working-set STUDY`` — what a
Study identified (each record with its source) and its deduplicated working set (one study
per group, with its member records and the rule that grouped them)."""

from __future__ import annotations

from typing import Annotated

import typer

from .._words import plural
from ._context import sync_app
from ._output import command, console, emit_json

__all__ = ["register"]


def _counts_line(counts: dict[str, object]) -> str:
    return (
        f"{plural(counts['records_identified'], 'record')} identified · "
        f"{plural(counts['duplicates_removed'], 'duplicate')} removed · "
        f"{plural(counts['studies'], 'study', 'studies')} in the working set"
    )


def register(study_app: typer.Typer) -> None:
    """Add ``study records`` and ``study working-set`` to the ``study`` commands."""

    @study_app.command("records")
    @command
    def records_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        page: Annotated[int, typer.Option("--page", help="Page (50 records each).")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Everything a Study identified (its imports' records, its searches' hits, papers
        added by hand), each with its source, database and rank, and its group."""
        from litdesk.services.studies import RecordsRequest

        with sync_app() as app:
            view = app.studies.records(RecordsRequest(study, page), owner=app.owner)
        if as_json:
            emit_json(view.to_dict())
            return
        counts = view.counts.to_dict()
        console.print(f"{view.study_name}: {_counts_line(counts)}", markup=False, highlight=False)
        per = view.counts.per_source
        for name, n in per.items():
            console.print(f"  {name}: {n}", markup=False, highlight=False)
        for r in view.rows:
            rank = f" #{r['rank']}" if r["rank"] else ""
            console.print(
                f"{r['database']}{rank}  {r['title'][:90] or '(no title)'}  [{r['rule']}]",
                markup=False,
                highlight=False,
            )
        console.print(f"page {view.page} of {view.pages}", markup=False, highlight=False)

    @study_app.command("working-set")
    @command
    def working_set_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        page: Annotated[int, typer.Option("--page", help="Page (50 studies each).")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """The Study's working set: one merged record per study, with its member records
        and the rule that grouped them (what the Study exports, counts and screens)."""
        from litdesk.services.studies import WorkingSetRequest

        with sync_app() as app:
            view = app.studies.working_set(WorkingSetRequest(study, page), owner=app.owner)
        if as_json:
            emit_json(view.to_dict())
            return
        counts = view.counts.to_dict()
        console.print(f"{view.study_name}: {_counts_line(counts)}", markup=False, highlight=False)
        from rich.padding import Padding
        from rich.text import Text

        for g in view.groups:  # whole titles, wrapped at the terminal's width (never cut)
            flag = " (not deduplicated yet)" if g["pending"] else ""
            console.print(Text(f"{g['title'] or '(no title)'} ({g['year'] or '?'}){flag}"))
            if len(g["members"]) > 1:
                for m in g["members"]:
                    member = Text(f"{m['database']}: {m['title']}  [{m['rule']}]")
                    console.print(Padding(member, (0, 0, 0, 4)))
        console.print(f"page {view.page} of {view.pages}", markup=False, highlight=False)
