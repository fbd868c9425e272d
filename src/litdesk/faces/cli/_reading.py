"""Reading commands: ``litdesk fulltext`` (licence-gated full text) and ``litdesk cite``
(OpenAlex citation discovery). Thin: parse arguments, call services, print."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import InputError

from .._words import plural
from ._context import run_with_app
from ._output import command, console, emit_json

if TYPE_CHECKING:
    from litdesk.services.app import App
    from litdesk.services.reader import CiteView

__all__ = ["register"]

#: Largest article file ``--file`` reads (bytes); the parser also caps characters.
MAX_FILE_BYTES = 16_000_000
_PMCID_STEM = re.compile(r"^PMC\d{1,10}$", re.IGNORECASE)


class ReadingArgumentError(InputError):
    """The command's arguments do not fit together."""

    default_code = "arguments"


def _read_file(path: Path) -> bytes:
    from litdesk.services.files import read_input

    return read_input(str(path), limit=MAX_FILE_BYTES)


def _print_fulltext(data: dict[str, Any]) -> None:
    console.print(data.get("title") or "(untitled)", style="bold", markup=False, highlight=False)
    meta = [
        f"PMCID: {data.get('pmcid') or '-'}",
        f"Licence: {data.get('licence') or 'none stated'}",
    ]
    if data.get("licence_url"):
        meta.append(f"<{data['licence_url']}>")
    console.print("  ".join(meta), markup=False, highlight=False)
    if data.get("source_url"):
        console.print(f"Source: {data['source_url']}", markup=False, highlight=False)
    if data.get("retrieved_at"):
        console.print(f"Retrieved: {data['retrieved_at']}", markup=False, highlight=False)
    if not data.get("readable"):
        console.print(data.get("reason") or "", markup=False, highlight=False)
        return
    section = None
    for block in data.get("blocks", []):
        if block["section"] != section:
            section = block["section"]
            console.print(f"\n## {section}", style="bold", markup=False, highlight=False)
        console.print(f"[{block['id']}] {block['text']}", markup=False, highlight=False)
    if data.get("truncated"):
        console.print(
            "\n(partial view: the reader stops at 600 paragraphs / 240,000 characters; "
            "tables, figures, formulas and supplements are not shown)",
            markup=False,
            highlight=False,
        )


def fulltext_cmd(
    paper_id: Annotated[
        str | None,
        typer.Argument(help="Paper id: MED-…, PMC-…, a PMCID, PMID, DOI or OAX-W…."),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", help="Read a JATS article file (PMC OA bulk .xml/.nxml) instead."),
    ] = None,
    pmcid: Annotated[
        str | None, typer.Option("--pmcid", help="With --file: the PMCID the file must belong to.")
    ] = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Ignore the cached copy.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show an article's licensed full text (CC BY, CC BY-SA, CC0, public domain only)."""
    if (paper_id is None) == (file is None):
        raise ReadingArgumentError("give either a PAPER_ID or --file ARTICLE.xml (one of them)")
    if file is not None:
        from litdesk.core.fulltext import parse_fulltext

        expected = pmcid
        if expected is None and _PMCID_STEM.match(file.name.split(".")[0]):
            expected = file.name.split(".")[0]  # PMC OA bulk files are named PMC<digits>.xml
        ft = parse_fulltext(_read_file(file), expected_pmcid=expected)
        data = ft.to_dict()
        data["source_url"] = ft.source_url
    else:
        if pmcid is not None:
            raise ReadingArgumentError("--pmcid only applies with --file")
        from litdesk.services.reader import FullTextRequest

        request = FullTextRequest(paper_id or "", refresh=refresh)
        data = run_with_app(lambda app: app.reader.fulltext(request, owner=app.owner)).to_dict()
    if as_json:
        emit_json(data)
    else:
        _print_fulltext(data)


def _picks(pick: str | None) -> tuple[int, ...] | None:
    """The 1-based result numbers of ``--pick`` (the area checks them against the page)."""
    if pick is None:
        return None
    out: list[int] = []
    for part in pick.split(","):
        part = part.strip()
        if not part.isdigit():
            raise ReadingArgumentError(
                f"--pick takes result numbers (comma-separated), got {part!r}"
            )
        out.append(int(part))
    return tuple(out)


def _print_citations(data: dict[str, Any]) -> None:
    seeds = ", ".join(s.get("work") or s.get("query") for s in data["seeds"])
    console.print(
        f"{data['mode']} of {seeds}: {data['total']} works, page {data['page']}"
        + (" (more pages)" if data["has_more"] else "")
        + (" — truncated: OpenAlex lists more than can be paged" if data["truncated"] else ""),
        markup=False,
        highlight=False,
    )
    m = len(data["seeds"])
    for i, paper in enumerate(data["papers"], 1):
        year = f" ({paper['year']})" if paper.get("year") else ""
        journal = f" {paper['journal']}." if paper.get("journal") else ""
        shared = data["shared_counts"].get(paper.get("openalex_id") or "")
        extra = f"  [referenced by {shared} of {m}]" if shared else ""
        console.print(
            f"{i:>2}. {paper['title'] or '(untitled)'}{year}.{journal} {paper['id']}{extra}",
            markup=False,
            highlight=False,
        )
    for notice in data["notices"]:
        console.print(f"note: {notice}", markup=False, highlight=False, style="dim")
    if data.get("saved"):
        console.print(
            f"saved {plural(len(data['saved']), 'paper')} to Study {data['saved_to']}",
            markup=False,
            highlight=False,
        )


class CiteMode(StrEnum):
    references = "references"
    citing = "citing"
    related = "related"
    shared = "shared"


def cite_cmd(
    mode: Annotated[
        CiteMode, typer.Argument(help="references | citing | related | shared (2-5 papers).")
    ],
    ids: Annotated[list[str], typer.Argument(help="Paper ids: OAX-W…/W…, DOI, PMID, PMCID.")],
    *,
    page: Annotated[int, typer.Option("--page", min=1, max=100, help="Page (20 per page).")] = 1,
    save_to: Annotated[
        str | None, typer.Option("--save-to", help="Save the results to this Study.")
    ] = None,
    pick: Annotated[
        str | None,
        typer.Option("--pick", help="With --save-to: result numbers to save, e.g. 1,3,4."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Citation discovery over OpenAlex: references, citing, related or shared references."""
    from litdesk.services.reader import CiteRequest

    if pick is not None and save_to is None:
        raise ReadingArgumentError("--pick only applies with --save-to")
    request = CiteRequest(mode.value, tuple(ids), page, save_to=save_to, picks=_picks(pick))

    async def work(app: App) -> CiteView:  # saving: same store, same app, all or none
        return await app.reader.cite(request, owner=app.owner)

    data = run_with_app(work).to_dict()
    if as_json:
        emit_json(data)
    else:
        _print_citations(data)


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
    app.command("fulltext")(command(fulltext_cmd))
    app.command("cite")(command(cite_cmd))
