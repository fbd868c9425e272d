"""``litdesk study fulltext`` and ``litdesk study attach``: which of a Study's papers have
a PDF, licensed full text, or neither; matching library PDFs, confirming or undoing a
link, checking full text for all (in the allowance), and a PDF uploaded for one paper.
Thin: parse, call one ``app.studies`` method, print."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .._words import plural
from ._context import run_with_app, sync_app
from ._output import command, console, emit_json
from ._workspace import CliArgumentError, study_app

if TYPE_CHECKING:
    from litdesk.services.app import App
    from litdesk.services.studies import FulltextView

__all__ = ["register"]

#: the size the CLI reads of a PDF to attach (the library's own limit is checked after)
MAX_PDF_READ = 500_000_000


def _say(text: str) -> None:
    """One line of output, wrapped at spaces to the terminal's width."""
    console.print(text, markup=False, highlight=False)


_SHOWN = {"both": "PDF+TEXT", "pdf": "PDF", "fulltext": "TEXT", "missing": "MISSING"}


def _print(view: FulltextView) -> None:
    c = view.counts
    _say(f"{view.study_name} ({view.study_id}): {plural(c['papers'], 'paper')}")
    if view.show == "sought":
        _say(f"Sought for retrieval at screening: {plural(view.listed, 'paper')}")
    elif view.show == "missing":
        _say(f"With neither a PDF nor licensed full text: {plural(view.listed, 'paper')}")
    from rich.text import Text

    from ._tables import print_rows

    rows: list[tuple[str, str, Text]] = []
    for row in view.rows:
        pdf, text = row["pdf"], row["fulltext"]
        state = _SHOWN.get(row["retrieved"], row["retrieved"])
        bits: list[str] = []
        if pdf is not None:
            mark = "suggested: " if pdf["state"] == "suggested" else ""
            bits.append(f"{mark}{pdf['file']} ({pdf['how']})")
            if pdf["doubt"]:  # uploaded for it, but its first pages are another paper's
                bits.append(pdf["detail"])
        if text is not None:
            bits.append(
                f"full text {text['licence'] or 'available'}"
                if text["available"]
                else f"no licensed full text ({text['reason'] or 'not available'})"
            )
        if row["id"] in view.not_retrieved:  # as screening recorded it (PRISMA counts it)
            state = "NOT RETRIEVED" if row["retrieved"] == "missing" else state
            bits.append("recorded not retrieved while screening full texts")
        about = Text(row["title"] or "(no title)")
        if bits:
            about.append("\n" + "; ".join(bits))
        rows.append((state, row["id"], about))
    print_rows(console, rows, indent=2)  # whole titles, wrapped (never cut)
    if view.changed:
        _say(f"Matched: {view.changed.get('linked', 0)} linked, "
             f"{view.changed.get('suggested', 0)} suggested (confirm with --confirm PAPER)")  # fmt: skip
    for notice in view.notices:
        _say(f"Note: {notice}")
    _say(
        f"{c['with_pdf']} with a PDF, {c['suggested']} suggested, {c['with_fulltext']} with "
        f"licensed full text, {c['unchecked']} not checked for full text"
    )
    _say(
        f"{c['without_full_text']} of the Study's {plural(c['papers'], 'paper')} with neither a "
        "PDF nor licensed full text (papers, not PRISMA's reports sought and not retrieved: "
        "those come from screening, see litdesk study prisma)"
    )
    if view.job is not None:
        j = view.job
        _say(f"Full-text check: {j.status} ({j.done}/{j.total or '?'}) {j.message or ''}".rstrip())


@study_app.command("fulltext")
@command
def study_fulltext(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    match: Annotated[
        bool, typer.Option("--match", help="Match library PDFs to the Study's papers first.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Check the papers not yet checked for open licensed full text (Europe PMC; "
            "each request in your daily allowance, stopping when it is spent).",
        ),
    ] = False,
    confirm: Annotated[
        str | None, typer.Option("--confirm", help="Confirm the PDF suggested for this paper.")
    ] = None,
    undo: Annotated[
        str | None, typer.Option("--undo", help="Undo this paper's PDF link (not suggested again).")
    ] = None,
    show: Annotated[
        str,
        typer.Option(
            "--show",
            help="Which papers to list: sought (those screening sought for retrieval: "
            "included or 'maybe' at title/abstract), missing (neither a PDF nor licensed full "
            "text) or all.",
        ),
    ] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Which of a Study's papers have a PDF, licensed full text, or neither (PRISMA's
    reports sought / not retrieved); with --match, link library PDFs to them first."""
    from litdesk.services.studies import FULLTEXT_SHOWS, PdfLinkRequest

    if sum((match, check, confirm is not None, undo is not None)) > 1:
        raise CliArgumentError("give one of --match, --check, --confirm, --undo")
    shown = next((s for s in FULLTEXT_SHOWS if s == show), None)
    if shown is None:
        raise CliArgumentError(f"--show must be one of {', '.join(FULLTEXT_SHOWS)}, not {show!r}")
    if check:
        view = run_with_app(lambda app: _check(app, study), holds_jobs=True)
    else:
        with sync_app() as app:
            if match:
                view = app.studies.match_pdfs(study, owner=app.owner)
            elif confirm is not None:
                view = app.studies.confirm_pdf(PdfLinkRequest(study, confirm), owner=app.owner)
            elif undo is not None:
                view = app.studies.undo_pdf(PdfLinkRequest(study, undo), owner=app.owner)
            else:
                view = app.studies.fulltext(study, owner=app.owner, show=shown)
    if as_json:
        emit_json(view.to_dict())
    else:
        _print(view)


async def _check(app: App, study: str) -> FulltextView:
    """Queue the Study's check and run it here (the job's handler waits on this loop): a
    new check is claimed by this process when it is submitted, so a server on the same data
    never takes it; one already active (started on the web) is run here if it is queued."""
    import asyncio

    def work() -> FulltextView:
        started = app.studies.check_fulltext(study, owner=app.owner, here=True)
        if started.job is not None and started.job.active:
            app.studies.work_fulltext(started.job.id, owner=app.owner)
        return app.studies.fulltext(study, owner=app.owner)

    return await asyncio.to_thread(work)


@study_app.command("attach")
@command
def study_attach(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    paper: Annotated[str, typer.Argument(help="A paper of the Study (id, DOI, PMID, PMCID).")],
    file: Annotated[Path, typer.Argument(help="The paper's PDF.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Attach a PDF to one paper of a Study: it is copied into the library's inbox (the
    library's checks and size limit) and linked to the paper."""
    from litdesk.services.files import read_input
    from litdesk.services.studies import AttachPdfRequest

    data = read_input(str(file), limit=MAX_PDF_READ)
    with sync_app() as app:
        done = app.studies.attach_pdf(
            AttachPdfRequest(study, paper, file.name, data), owner=app.owner
        )
    if as_json:
        emit_json(done.to_dict())
        return
    where = "stored in the library's inbox" if done.stored else "already in the library"
    _say(f"{done.file} ({where}) is now the PDF of {done.paper_title or done.paper_id}")
    if done.doubt:
        undo = shlex.join(["litdesk", "study", "fulltext", study, "--undo", done.paper_id])
        _say(f"{done.doubt}. If it is not this paper's PDF: {undo}")
    if done.index_job is not None:
        _say("It is read by the library's index job (litdesk library index to run it now).")


def register(app: typer.Typer) -> None:
    """The commands are on ``litdesk study`` (registered with the workspace commands)."""
    del app
