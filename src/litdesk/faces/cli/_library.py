"""CLI commands of the PDF library: ``litdesk library add|list|index|remove`` and ``litdesk ask``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from ._context import app_library, sync_app
from ._output import command, console, emit_json, err_console

library_app = typer.Typer(
    help="The local PDF library: folders, index, status.", no_args_is_help=True
)

JSON = typer.Option(False, "--json", help="Print JSON.")


@contextmanager
def _library() -> Iterator[Any]:
    """The app's PDF library (the app closed when the command ends)."""
    with sync_app() as app:
        yield app.pdfs


@library_app.command("add")
@command
def add(
    path: Annotated[Path, typer.Argument(help="A folder (read recursively) or one PDF.")],
    as_json: bool = JSON,
) -> None:
    """Add a folder or a PDF to the library (kept in the data dir)."""
    with _library() as lib:
        target, new = lib.add(path)
    if as_json:
        emit_json({"path": str(target), "added": new})
    else:
        console.print(f"{'added' if new else 'already in the library'}: {target}", markup=False)


@library_app.command("remove")
@command
def remove(
    path: Annotated[Path, typer.Argument(help="A folder or PDF added before.")],
    as_json: bool = JSON,
) -> None:
    """Remove an added folder or PDF from the library."""
    with _library() as lib:
        removed = lib.remove(path)
    if as_json:
        emit_json({"path": str(removed), "removed": True})
    else:
        console.print(f"removed: {removed}", markup=False)


@library_app.command("list")
@command
def list_(as_json: bool = JSON) -> None:
    """The library's PDFs: pages, text layer, exclusion, ids found, adopted title."""
    from rich.table import Table

    with _library() as lib:
        status = lib.status()
    if as_json:
        emit_json(status)
        return
    table = Table("file", "pages", "text", "indexed", "DOI / arXiv", "title / excluded")
    for row in status["files"]:
        ids = row["doi"] or (f"arXiv:{row['arxiv']}" if row["arxiv"] else "")
        text = "" if row["text_layer"] is None else ("yes" if row["text_layer"] else "no")
        table.add_row(
            row["file"],
            "" if row["pages"] is None else str(row["pages"]),
            text,
            "yes" if row["indexed"] else ("excluded" if row["excluded"] else "not yet"),
            ids,
            row["excluded"] or row["adopted_title"] or "",
        )
    console.print(table)
    for w in status["warnings"]:
        err_console.print(f"warning: {w}", markup=False)


@library_app.command("index")
@command
def index(as_json: bool = JSON) -> None:
    """Index new or changed PDFs (unchanged ones cost a hash-cache check). Ctrl-C resumes later."""
    with _library() as lib:
        _index(lib, as_json)


def _index(lib: Any, as_json: bool) -> None:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    corpus = lib.corpus()
    if as_json:
        report = lib.index(corpus.files)
    else:
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

            report = lib.index(corpus.files, progress=progress)
    vector_index: dict[str, Any] | None = None
    if not report.interrupted:  # built now so that questions do not pay for it
        if as_json:
            vector_index = lib.prepare_vector_index()
        else:
            with err_console.status("vector index"):
                vector_index = lib.prepare_vector_index()
    data = report.to_dict() | {"warnings": corpus.warnings, "vector_index": vector_index}
    if as_json:
        emit_json(data)
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
        for w in [*report.same_content, *corpus.warnings]:
            err_console.print(f"warning: {w}", markup=False)
    if report.interrupted:
        err_console.print("interrupted: run `litdesk library index` again to resume", markup=False)
        raise typer.Exit(130)


def _vector_line(vi: dict[str, Any]) -> str:
    if vi["kind"] != "ivf":
        return f"vector index: exact search ({vi['chunks']} chunks)"
    return (
        f"vector index: IVF, {vi['cells']} cells over {vi['chunks']} chunks, "
        f"{vi['built']} in {vi['seconds']:.2f} s"
    )


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
        from litdesk.services.library import AskRequest, ask_library

        request = AskRequest(
            question,
            papers=tuple(paper or ()),
            whole_library=all_,
            top_k=top_k,
            thinking=thinking,
            adopt=adopt,
        )
        answer = app_library(
            lambda lib: ask_library(lib.settings, request, library=lib), adopt=request.adopt
        )
        if as_json:
            emit_json(answer.to_dict())
            return
        console.print(answer.answer, markup=False, highlight=False)
        if answer.abstained:
            err_console.print("abstained: the library does not seem to answer", markup=False)
        elif not answer.grounded:
            err_console.print("not grounded: the answer cites no excerpt", markup=False)
        for c in answer.citations:
            console.print(f"[{c['label']}] {c['link']}", markup=False, highlight=False)
        for w in answer.warnings:
            err_console.print(f"warning: {w}", markup=False, highlight=False)
