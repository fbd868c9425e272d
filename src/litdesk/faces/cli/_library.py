"""CLI commands of the PDF library: ``litdesk library add|list|index|remove|protocol``, a PDF as a
paper (``litdesk library show|confirm|attach|save-paper|match``) and ``litdesk ask``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._context import run_with_app, sync_app
from ._output import command, console, emit_json, err_console

library_app = typer.Typer(
    help="The local PDF library: folders, index, status.", no_args_is_help=True
)

JSON = typer.Option(False, "--json", help="Print JSON.")


if TYPE_CHECKING:
    from rich.console import RenderableType

    from litdesk.services.library import (
        Answer,
        IndexOutcome,
        LibraryArea,
        PdfRecordView,
        VectorIndexSummary,
    )


@library_app.command("add")
@command
def add(
    path: Annotated[Path, typer.Argument(help="A folder (read recursively) or one PDF.")],
    as_json: bool = JSON,
) -> None:
    """Add a folder or a PDF to the library (kept in the data dir)."""
    with sync_app() as app:
        change = app.library.add_source(path, owner=app.owner)
    if as_json:
        emit_json(change.to_dict())
        return
    console.print(
        f"{'added' if change.changed else 'already in the library'}: {change.path}",
        markup=False,
    )
    if change.shared:
        console.print(
            f"{change.shared} PDF{'s' if change.shared != 1 else ''} kept in the object "
            "store for the other servers",
            markup=False,
        )
    for w in change.warnings:
        err_console.print(f"warning: {w}", markup=False)


@library_app.command("remove")
@command
def remove(
    path: Annotated[Path, typer.Argument(help="A folder or PDF added before.")],
    as_json: bool = JSON,
) -> None:
    """Remove an added folder or PDF from the library."""
    with sync_app() as app:
        change = app.library.remove_source(path, owner=app.owner)
    if as_json:
        emit_json(change.to_dict())
    else:
        console.print(f"removed: {change.path}", markup=False)
        if change.unshared:
            console.print(
                f"{change.unshared} PDF{'s' if change.unshared != 1 else ''} deleted from the "
                "object store (no other folder of any server holds them; the other servers "
                "drop their copies at their next listing)",
                markup=False,
            )


@library_app.command("protocol")
@command
def protocol(
    day: Annotated[
        str | None, typer.Option("--day", help="The day, YYYY-MM-DD (UTC); default today.")
    ] = None,
    as_json: bool = JSON,
) -> None:
    """The day's protocol of questions and answers (every server's, with a shared object
    store)."""
    from litdesk.services.library import ProtocolRequest

    request = ProtocolRequest(day)
    with sync_app() as app:
        view = app.library.protocol(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    elif view.answers:
        console.print(view.text.rstrip(), markup=False)
    else:
        console.print(f"no questions were answered on {view.day}", markup=False)


@library_app.command("list")
@command
def list_(as_json: bool = JSON) -> None:
    """The library's PDFs: pages, text layer, exclusion, ids found, adopted title."""
    from rich.table import Table
    from rich.text import Text

    from ._tables import cards, line, print_fitting

    with sync_app() as app:
        status = app.library.status(owner=app.owner)
    if as_json:
        emit_json(status.to_dict())
        return
    table = Table("file", "pages", "text", "indexed", "DOI / arXiv", "title / excluded")
    shown = []
    for row in status.files:
        ids = row["doi"] or (f"arXiv:{row['arxiv']}" if row["arxiv"] else "")
        text = "" if row["text_layer"] is None else ("yes" if row["text_layer"] else "no")
        indexed = "yes" if row["indexed"] else ("excluded" if row["excluded"] else "not yet")
        about = row["excluded"] or row["adopted_title"] or row["text_source"] or ""
        pages = "" if row["pages"] is None else str(row["pages"])
        shown.append((row["file"], pages, text, indexed, ids, about))
        table.add_row(*(Text(str(cell)) for cell in shown[-1]))

    def as_cards() -> RenderableType:
        from litdesk.faces._words import plural

        def facts(pages: str, text: str, indexed: str) -> Text:
            return line(
                plural(pages, "page") if pages else None,
                f"text layer: {text}" if text else None,
                f"indexed: {indexed}",
            )

        return cards(
            (
                str(n),
                [Text(file), line(about), facts(pages, text, indexed), line(ids)],
            )
            for n, (file, pages, text, indexed, ids, about) in enumerate(shown, start=1)
        )

    print_fitting(console, table, as_cards)
    if status.arriving:
        from litdesk.faces._words import plural

        names = ", ".join(r["file"] for r in status.arriving)
        console.print(
            f"{plural(len(status.arriving), 'PDF')} from the other servers (folders, uploads) still "
            f"being copied here (`litdesk library index` copies them at once): {names}",
            markup=False,
        )
    for w in status.warnings:
        err_console.print(f"warning: {w}", markup=False)


@library_app.command("index")
@command
def index(as_json: bool = JSON) -> None:
    """Index new or changed PDFs (unchanged ones cost a hash-cache check). Ctrl-C resumes later."""
    with sync_app() as app:
        if as_json:
            outcome = app.library.index_now(owner=app.owner)
        else:
            outcome = _index_shown(app.library, app.owner)
    _index_report(outcome, as_json)


def _index_shown(library: LibraryArea, owner: str) -> IndexOutcome:
    """The index run with a progress bar, then the vector index's line (on stderr)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as bar:
        task = bar.add_task("indexing", total=None)

        def progress(done: int, total: int, name: str) -> None:
            bar.update(task, completed=done, total=total, description=name[:40] or "indexing")

        def vector_index() -> None:  # built now so that questions do not pay for it
            bar.update(task, description="vector index")

        return library.index_now(owner=owner, progress=progress, on_vector_index=vector_index)


def _index_report(outcome: IndexOutcome, as_json: bool) -> None:
    report, vector_index = outcome.report, outcome.vector_index
    if as_json:
        emit_json(outcome.to_dict())
    else:
        if report.rebuild:
            err_console.print(f"note: {report.rebuild}", markup=False)
        console.print(
            f"{len(report.indexed)} indexed, {report.unchanged} unchanged, "
            f"{len(report.excluded)} excluded ({report.pages} pages, {report.chunks} chunks, "
            f"{report.seconds:.2f} s)",
            markup=False,
        )
        if vector_index is not None:
            console.print(_vector_line(vector_index), markup=False)
        for ex in report.excluded:
            console.print(f"  excluded: {ex['file']}: {ex['code']}", markup=False)
        for w in [*report.same_content, *outcome.warnings]:
            err_console.print(f"warning: {w}", markup=False)
    if report.interrupted:
        err_console.print("interrupted: run `litdesk library index` again to resume", markup=False)
        raise typer.Exit(130)


def _vector_line(vi: VectorIndexSummary) -> str:
    if vi["kind"] != "ivf":
        return f"vector index: exact search ({vi['chunks']} chunks)"
    return (
        f"vector index: IVF, {vi['cells']} cells over {vi['chunks']} chunks, "
        f"{vi['built']} in {vi['seconds']:.2f} s"
    )


PDF = Annotated[str, typer.Argument(help="The PDF: its file name in the library (or SHA-256).")]


def _print_record(view: PdfRecordView) -> None:
    """A PDF's record as lines: the paper, the Studies, each field with its source."""
    out = console.print
    out(f"{view.file} (in the web workspace: {view.viewer})", markup=False, highlight=False)
    if view.paper is not None:
        out(f"paper: {view.paper['title']} [{view.paper['id']}]", markup=False, highlight=False)
    else:
        out("paper: none of your saved papers yet", markup=False)
    for s in view.studies:
        out(f"in the Study: {s['name']}", markup=False, highlight=False)
    if view.read_problem:
        err_console.print(f"nothing read from the PDF: {view.read_problem}", markup=False)
    for f in view.fields:
        value = f["value"]
        if value is None:
            out(f"{f['label']}: (not found)", markup=False)
            continue
        shown = "; ".join(value) if isinstance(value, list) else str(value)
        sure = f", {round(f['confidence'] * 100)} % sure" if f["confidence"] is not None else ""
        out(f"{f['label']}: {shown} ({f['source']}{sure})", markup=False, highlight=False)
    for c in view.candidates:
        out(
            f"may be your paper {c['title']} [{c['id']}]: {c['detail']}"
            f"{'' if c['certain'] else ' (check it: attach it with library attach)'}",
            markup=False, highlight=False,
        )  # fmt: skip
    for sid in view.linked_in:
        out(f"now linked in the Study {sid}", markup=False, highlight=False)


@library_app.command("show")
@command
def show(pdf: PDF, as_json: bool = JSON) -> None:
    """A PDF as your paper: its description (read from the PDF with how sure, or confirmed
    by you), the paper it is, and the saved papers it may be."""
    with sync_app() as app:
        view = app.library.pdf_record(pdf, owner=app.owner)
    emit_json(view.to_dict()) if as_json else _print_record(view)


@library_app.command("confirm")
@command
def confirm(
    pdf: PDF,
    title: Annotated[str | None, typer.Option("--title", help="The paper's title.")] = None,
    author: Annotated[
        list[str] | None, typer.Option("--author", help="An author; repeat in order.")
    ] = None,
    year: Annotated[int | None, typer.Option("--year", help="The year.")] = None,
    venue: Annotated[str | None, typer.Option("--venue", help="Journal or conference.")] = None,
    doi: Annotated[str | None, typer.Option("--doi", help="The DOI.")] = None,
    arxiv: Annotated[str | None, typer.Option("--arxiv", help="The arXiv id.")] = None,
    as_json: bool = JSON,
) -> None:
    """Confirm or correct a PDF's description (kept as yours: "confirmed by you"). An option
    not given keeps the value 'library show' shows (read from the PDF, or yours)."""
    from litdesk.services.library import ConfirmPdfRequest

    with sync_app() as app:
        shown = app.library.pdf_record(pdf, owner=app.owner)
        names = shown.value("authors")
        request = ConfirmPdfRequest(
            pdf, title=title if title is not None else shown.value("title") or "",
            authors=tuple(author) if author else tuple(names or ()),
            year=year if year is not None else shown.value("year"),
            venue=venue if venue is not None else shown.value("venue"),
            doi=doi if doi is not None else shown.value("doi"),
            arxiv=arxiv if arxiv is not None else shown.value("arxiv"),
        )  # fmt: skip
        view = app.library.confirm_pdf(request, owner=app.owner)
    emit_json(view.to_dict()) if as_json else _print_record(view)


@library_app.command("attach")
@command
def attach(
    pdf: PDF,
    paper: Annotated[str, typer.Argument(help="A saved paper: its id, DOI, PMID or arXiv id.")],
    study: Annotated[
        str | None,
        typer.Option("--study", help="Link it in this Study (replacing the paper's PDF there)."),
    ] = None,
    as_json: bool = JSON,
) -> None:
    """Attach a library PDF to a saved paper (and so in its Studies without a PDF for it)."""
    from litdesk.services.library import AttachPdfPaperRequest

    with sync_app() as app:
        view = app.library.attach_pdf(AttachPdfPaperRequest(pdf, paper, study), owner=app.owner)
    emit_json(view.to_dict()) if as_json else _print_record(view)


@library_app.command("match")
@command
def match(as_json: bool = JSON) -> None:
    """Attach each PDF to the saved paper sharing its DOI, arXiv id, PMID or PMCID."""
    with sync_app() as app:
        done = app.library.attach_matching(owner=app.owner)
    if as_json:
        emit_json({"attached": [{"file": f, "paper_id": p} for f, p in done]})
        return
    for file, paper_id in done:
        console.print(f"{file}: attached to {paper_id}", markup=False, highlight=False)
    console.print(f"{len(done)} attached", markup=False)


@library_app.command("save-paper")
@command
def save_paper(
    pdf: PDF,
    study: Annotated[str | None, typer.Option("--study", help="Add it to this Study.")] = None,
    as_json: bool = JSON,
) -> None:
    """Save a library PDF as a paper from its description (confirmed, else read), with the
    PDF attached."""
    from litdesk.services.library import SavePdfPaperRequest

    with sync_app() as app:
        view = app.library.save_pdf_paper(SavePdfPaperRequest(pdf, study), owner=app.owner)
    emit_json(view.to_dict()) if as_json else _print_record(view)


def print_answer(answer: Answer) -> None:
    """A grounded answer as ``litdesk ask`` prints it: the text, its flags, each citation's
    link, the near misses and the warnings."""
    console.print(answer.answer, markup=False, highlight=False)
    if answer.abstained:
        err_console.print("abstained: the library does not seem to answer", markup=False)
    elif not answer.grounded:
        err_console.print("not grounded: the answer cites no excerpt", markup=False)
    for c in answer.citations:
        console.print(f"[{c['label']}] {c['link']}", markup=False, highlight=False)
    if answer.near_misses and not answer.abstained:
        console.print("Near misses (less relevant, not used in the answer):", markup=False)
        for n in answer.near_misses:
            console.print(
                f"- {n['file']}, p. {n['page']}: {n['link']}", markup=False, highlight=False
            )
    for w in answer.warnings:
        err_console.print(f"warning: {w}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
    app.add_typer(library_app, name="library")

    @app.command("ask")
    @command
    def ask(
        question: Annotated[str, typer.Argument(help="The question.")],
        paper: Annotated[
            list[str] | None,
            typer.Option(
                "--paper", help="Limit to this PDF (exact file name); repeat for a selection."
            ),
        ] = None,
        all_: bool = typer.Option(False, "--all", help="Ask the whole library (the default)."),
        study: str | None = typer.Option(
            None, "--study", help="Ask the PDFs attached to this Study's papers (name or id)."
        ),
        top_k: int = typer.Option(8, "--top-k", help="Excerpts given to the model (1-20)."),
        thinking: str | None = typer.Option(
            None, "--thinking", help="Thinking level: off, low, medium, high."
        ),
        adopt: bool = typer.Option(
            False,
            "--adopt",
            help="Look up the DOI/arXiv id printed on unmatched PDFs of the scope (network) "
            "and adopt the record when its title is printed there.",
        ),
        as_json: bool = JSON,
    ) -> None:
        """A grounded answer from your PDFs: every citation names a file and page."""
        from litdesk.services.library import AskRequest

        request = AskRequest(
            question,
            papers=tuple(paper or ()),
            whole_library=all_,
            top_k=top_k,
            thinking=thinking,
            adopt=adopt,
            study=study,
        )
        answer = run_with_app(lambda app: app.library.ask(request, owner=app.owner))
        if as_json:
            emit_json(answer.to_dict())
            return
        print_answer(answer)
