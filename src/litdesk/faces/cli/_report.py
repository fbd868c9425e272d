"""``litdesk report synthesis``: questions, summaries and synthesis over PDFs, as HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from litdesk._errors import InputError
from litdesk._settings import get_settings

from ._output import command, emit_json, err_console
from ._runs import report_app


def register(app: typer.Typer) -> None:
    """Add ``report synthesis`` to the ``report`` group (made by the runs area)."""
    del app  # the group is already on the app

    @report_app.command("synthesis")
    @command
    def synthesis(
        papers: Annotated[
            str | None,
            typer.Option("--papers", help="Comma-separated PDF file names of the library."),
        ] = None,
        all_: bool = typer.Option(False, "--all", help="Every PDF of the library."),
        questions: str = typer.Option(
            "", "--questions", help="Questions separated by ';' (each answered across the papers)."
        ),
        summary: str = typer.Option(
            "none", "--summary", help="Per-paper summary on six facets: none, bullets, prose."
        ),
        synthesis_: bool = typer.Option(
            False,
            "--synthesis",
            help="Cross-paper synthesis (agreement, differences, open points); needs a model.",
        ),
        language: str | None = typer.Option(
            None, "--language", help="Prose language (default: the language of the questions)."
        ),
        detail_mode: str = typer.Option(
            "per-paper", "--detail-mode", help="Question units: per-paper or cross-paper."
        ),
        top_k: int = typer.Option(8, "--top-k", help="Excerpts per unit (1-20)."),
        output: Annotated[
            Path | None,
            typer.Option(
                "-o", "--output", help="The HTML file, or a folder for the default file name."
            ),
        ] = None,
        force: bool = typer.Option(False, "--force", help="Replace an existing report file."),
        dpi: int = typer.Option(80, "--dpi", help="Resolution of the embedded cited pages."),
        as_json: bool = typer.Option(
            False, "--json", help="Print the report model as JSON (no HTML unless -o is given)."
        ),
    ) -> None:
        """A synthesis report over PDFs of the library, as one self-contained HTML file.

        Each citation label opens the cited page with the passage highlighted.
        """
        from litdesk.services.library import Library
        from litdesk.services.synthesis import build_report, write_report

        if all_ and papers:
            raise InputError("use either --papers or --all", code="scope")
        if not all_ and not papers:
            raise InputError("choose the papers: --papers A.pdf,B.pdf or --all", code="scope")
        names = [n.strip() for n in (papers or "").split(",") if n.strip()] or None
        settings = get_settings()
        lib = Library(settings)
        try:
            report = build_report(
                lib,
                papers=names,
                questions=questions.split(";"),
                summary=summary,  # type: ignore[arg-type]
                synthesis=synthesis_,
                language=language,
                detail_mode=detail_mode,  # type: ignore[arg-type]
                top_k=top_k,
            )
            path = None
            if output is not None or not as_json:
                default_dir = settings.resolved_data_dir() / "reports"
                path = write_report(report, output, default_dir=default_dir, force=force, dpi=dpi)
        finally:
            lib.close()
        if as_json:
            emit_json(report.to_dict() | {"path": str(path) if path else None})
            return
        typer.echo(str(path))
        for w in report.warnings:
            err_console.print(f"warning: {w}", markup=False, highlight=False)
