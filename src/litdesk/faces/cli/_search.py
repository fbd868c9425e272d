"""``litdesk search``: run a search across providers and show the trace.

Thin: parse the options, call :func:`litdesk.services.search.run_search`, print results per
provider (rank, title, first author, year, identifiers) and each lane's status and message;
``--json`` prints the full SearchTrace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from litdesk._errors import ExternalError, InputError
from litdesk._settings import get_settings
from litdesk.core.search import PROVIDERS, SearchFilters
from litdesk.core.trace import SearchTrace, validate_request

from ._output import command, console, emit_json, err_console

__all__ = ["register"]

_FIELDS = ("all", "title", "abstract", "author")
_TYPES = ("all", "review", "preprint", "journal")
_SORTS = ("relevance", "newest", "cited")


class SearchArgumentError(InputError):
    """An option of ``litdesk search`` has a value it does not accept."""

    default_code = "arguments"


class AllLanesFailed(ExternalError):
    """Every provider lane failed; the trace says why."""

    default_code = "all_lanes_failed"


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> Any:
    if value not in allowed:
        raise SearchArgumentError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _providers(values: list[str] | None) -> list[str]:
    if not values:
        return list(PROVIDERS)
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
        head.append(f"{attempt.provider}", style="bold")
        head.append(f" [{attempt.lane}] ")
        head.append(attempt.outcome, style=style)
        if attempt.total is not None:
            head.append(f"  {attempt.returned} of {attempt.total:,}")
        if attempt.reuse:
            head.append(f"  ({attempt.reuse})")
        if attempt.next_cursor:
            head.append(f"  next cursor: {attempt.next_cursor[:60]}")
        console.print(head)
        if attempt.message:
            console.print(Text(f"  {attempt.message}"), highlight=False)
        for warning in attempt.warnings:
            console.print(Text(f"  warning: {warning}", style="yellow"), highlight=False)
        if attempt.request and attempt.request.get("operation") == "fetch":
            continue
        sightings = [s for s in trace.sightings_of(attempt.provider)]
        if not sightings or attempt.status == "failed":
            continue
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
        console.print(table)
    summary = trace.to_dict()["summary"]
    console.print(
        Text(
            f"{summary['sightings']} sightings from {summary['succeeded']} of "
            f"{summary['attempts']} attempts (not deduplicated; provider totals are not added)"
        ),
        highlight=False,
    )


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
                help="Provider(s): europepmc, openalex, semanticscholar, crossref, pubmed, "
                "arxiv, or all (default). Repeat or comma-separate.",
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
            bool, typer.Option("--no-cache", help="Skip the provider evidence cache.")
        ] = False,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print the full trace as JSON.")
        ] = False,
    ) -> None:
        """Search providers concurrently; show each provider's results and lane status."""
        from litdesk.services.search import run_search

        if record is not None and replay is not None:
            raise SearchArgumentError("choose --record or --replay, not both")
        filters = SearchFilters(
            field=_choice("--field", field, _FIELDS),
            year_from=year_from,
            year_to=year_to,
            open_access=open_access,
            include_retracted=include_retracted,
            type=_choice("--type", type_, _TYPES),
            sort=_choice("--sort", sort, _SORTS),
        )
        request = validate_request(
            query,
            _providers(provider),
            filters=filters,
            limit=limit,
            cursor=cursor,
            include_raw=raw,
        )
        trace = run_search(
            get_settings(), request, record=record, replay=replay, use_cache=not no_cache
        )
        if as_json:
            emit_json(trace.to_dict())
        else:
            _show(trace)
        if record is not None:
            err_console.print(f"recorded exchanges in {record}", markup=False, highlight=False)
        if trace.status == "failed":
            if as_json:
                raise typer.Exit(AllLanesFailed.exit_code)
            raise AllLanesFailed("every provider lane failed (see the messages above)")
