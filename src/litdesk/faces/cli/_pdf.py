"""PDF commands: ``litdesk pdf meta FILE...`` (a paper's description read from its PDF,
offline). Thin: parse arguments, call the service, print."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import LitdeskError

from ._output import command, console, emit_json, err_console

if TYPE_CHECKING:
    from rich.console import RenderableType

    from litdesk.core.pdfmeta import PdfMeta

__all__ = ["register"]

pdf_app = typer.Typer(help="PDF files: what can be read from them offline.", no_args_is_help=True)


def _row(name: str, meta: PdfMeta) -> list[str]:
    def cell(found: Any, text: str | None = None) -> str:
        if found is None:
            return "-"
        return f"{text if text is not None else found.value} ({found.confidence:.2f})"

    authors = meta.authors
    first = None
    if authors is not None:
        extra = len(authors.value) - 1
        first = authors.value[0] + (f" +{extra}" if extra else "")
    ids = [f"doi:{meta.doi.value}"] if meta.doi else []
    ids += [f"arXiv:{meta.arxiv.value}"] if meta.arxiv else []
    return [
        name,
        cell(meta.title),
        cell(authors, first),
        cell(meta.year),
        cell(meta.venue),
        " ".join(ids) or "-",
    ]


@pdf_app.command("meta")
@command
def meta_cmd(
    files: Annotated[list[Path], typer.Argument(help="One or more PDF files.")],
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Title, authors, year, venue and DOI/arXiv id read from each PDF's first pages
    (layout and font size, the PDF's own metadata where sane, identifiers by pattern),
    without a network. Every value is marked "read from the PDF" with a confidence (0-1).
    Exit status 0 when every file was read, else the status of the first failure."""
    from rich.table import Table
    from rich.text import Text

    from litdesk.services.pdfmeta import read_pdf_meta

    from ._tables import cards, line, print_fitting

    results: list[dict[str, Any]] = []
    rows: list[list[str]] = []
    failed: LitdeskError | None = None
    for path in files:
        try:
            meta = read_pdf_meta(path)
        except LitdeskError as exc:
            failed = failed or exc
            results.append({"file": str(path), "error": exc.to_dict()})
            if not as_json:
                err_console.print(f"litdesk: {exc.message}", markup=False, highlight=False)
            continue
        results.append({"file": str(path), **meta.to_dict()})
        rows.append(_row(path.name, meta))
    if as_json:
        emit_json(results)
    elif rows:
        title = "Read from the PDF (confidence 0-1)"
        table = Table(title=title, show_lines=False)
        heads = ("file", "title", "first author", "year", "venue", "ids")
        for head in heads:
            table.add_column(head, overflow="fold")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))

        def as_cards() -> RenderableType:
            return cards(
                (
                    str(n),
                    [
                        Text(row[0]),
                        *(
                            line(f"{head}: {cell}")
                            for head, cell in zip(heads[1:], row[1:], strict=True)
                        ),
                    ],
                )
                for n, row in enumerate(rows, start=1)
            )

        print_fitting(console, table, as_cards)
    if failed is not None:
        raise typer.Exit(failed.exit_code)


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
    app.add_typer(pdf_app, name="pdf")
