"""``litdesk report``: questions, summaries and synthesis over PDFs, as one HTML file.

Two spellings run the same handler with the same options (declared once, on
:func:`synthesis_report`): the issue's ``litdesk report --papers A.pdf,B.pdf | --all
--questions "q1;q2" …`` (the ``report`` group's callback, when no subcommand is named) and
``litdesk report synthesis …``. ``litdesk report prisma …`` is the runs area's command;
``litdesk report`` alone prints the group's help.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import InputError

from ._context import sync_app
from ._library import print_answer
from ._output import command, console, emit_json, err_console
from ._runs import report_app

if TYPE_CHECKING:
    from litdesk.services.synthesis import ReportRequest

__all__ = ["register", "synthesis_report"]


class ReportArgumentError(InputError):
    default_code = "arguments"


def synthesis_report(
    papers: Annotated[
        str | None,
        typer.Option("--papers", help="Comma-separated PDF file names of the library."),
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every PDF of the library.")] = False,
    study: Annotated[
        str | None,
        typer.Option("--study", help="The PDFs attached to this Study's papers (name or id)."),
    ] = None,
    questions: Annotated[
        str,
        typer.Option(
            "--questions", help="Questions separated by ';' (each answered across the papers)."
        ),
    ] = "",
    summary: Annotated[
        str,
        typer.Option("--summary", help="Per-paper summary on six facets: none, bullets, prose."),
    ] = "none",
    synthesis_: Annotated[
        bool,
        typer.Option(
            "--synthesis",
            help="Cross-paper synthesis (agreement, differences, open points); needs a model.",
        ),
    ] = False,
    language: Annotated[
        str | None,
        typer.Option("--language", help="Prose language (default: the language of the questions)."),
    ] = None,
    labels: Annotated[
        str,
        typer.Option(
            "--labels",
            help="Language of the page labels (headings, table heads): en, de, fr or es.",
        ),
    ] = "en",
    chat_only: Annotated[
        bool,
        typer.Option(
            "--chat-only",
            help="No HTML report: answer each question as 'litdesk ask' does (printed, and "
            "kept in the protocol).",
        ),
    ] = False,
    detail_mode: Annotated[
        str,
        typer.Option("--detail-mode", help="Question units: per-paper, cross-paper or both."),
    ] = "per-paper",
    top_k: Annotated[int, typer.Option("--top-k", help="Excerpts per unit (1-20).")] = 8,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="The HTML file, or a folder for the default file name."
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing report file.")
    ] = False,
    dpi: Annotated[int, typer.Option("--dpi", help="Resolution of the embedded cited pages.")] = 80,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the report model as JSON (no HTML unless -o is given)."),
    ] = False,
) -> None:
    """A synthesis report over PDFs of the library, as one self-contained HTML file.

    Each citation label opens the cited page with the passage highlighted.
    """
    from litdesk.services.synthesis import ReportRequest

    names = tuple(n.strip() for n in (papers or "").split(",") if n.strip())
    request = ReportRequest(
        papers=names,
        whole_library=all_,
        questions=tuple(questions.split(";")),
        summary=summary,  # type: ignore[arg-type]  # checked by the request
        synthesis=synthesis_,
        language=language,
        detail_mode=detail_mode,  # type: ignore[arg-type]  # checked by the request
        top_k=top_k,
        write=output is not None or not as_json,
        output=output,
        force=force,
        dpi=dpi,
        study=study,
        labels=labels,
        chat_only=chat_only,
    )
    if chat_only:
        _answer_in_chat(request, as_json=as_json)
        return
    with sync_app() as app:
        result = app.reports.build(request, owner=app.owner)
    if as_json:
        emit_json(result.to_dict())
        return
    typer.echo(str(result.path))
    for w in result.warnings:
        err_console.print(f"warning: {w}", markup=False, highlight=False)


def _answer_in_chat(request: ReportRequest, *, as_json: bool) -> None:
    """``--chat-only``: each question's answer printed as ``litdesk ask`` prints it; a
    refused question is said, with the ones not asked, and the exit status is 3."""
    from litdesk._errors import RefusedError

    with sync_app() as app:
        answers = app.reports.answer(request, owner=app.owner)
    if as_json:
        emit_json(answers.to_dict())
    else:
        for i, answer in enumerate(answers.answers):
            if i:
                console.print()
            console.print(f"Question {i + 1}: {answer.question}", markup=False, highlight=False)
            print_answer(answer)
    if answers.stopped is not None:
        left = "; ".join(answers.unanswered)
        raise RefusedError(
            f"{len(answers.answers)} of {len(request.questions)} questions answered; "
            f"not asked: {left}. {answers.stopped.get('message', '')}",
            code=str(answers.stopped.get("code") or "refused"),
        )


def _report_group(ctx: typer.Context, **options: Any) -> None:
    """Run the synthesis report when ``litdesk report`` is given options and no subcommand."""
    if ctx.invoked_subcommand is None:
        synthesis_report(**options)
        return
    # typer ships its own click: compare the ParameterSource by name (DEFAULT: not given)
    flags = {p.name: max(p.opts, key=len) for p in ctx.command.params}
    given = sorted(
        flags[name]
        for name in options
        if (source := ctx.get_parameter_source(name)) is not None
        and source.name not in {"DEFAULT", "DEFAULT_MAP"}
    )
    if given:
        raise ReportArgumentError(
            f"{', '.join(given)}: {'an option' if len(given) == 1 else 'options'} of the synthesis report "
            f"('litdesk report --papers … --questions …' with no subcommand), "
            f"not of 'report {ctx.invoked_subcommand}'"
        )


def _with_context(handler: Any, target: Any) -> None:
    """Give ``target`` the signature ``(ctx, <handler's options>)`` (one option list)."""
    own = inspect.signature(handler, eval_str=True)
    ctx = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )
    target.__signature__ = own.replace(
        parameters=[
            ctx,
            *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own.parameters.values()),
        ],
        return_annotation=None,
    )


_with_context(synthesis_report, _report_group)


def register(app: typer.Typer) -> None:
    """Add ``report synthesis`` and the ``report`` group's own form (made by the runs area)."""
    del app  # the group is already on the app
    report_app.callback()(command(_report_group))
    report_app.command("synthesis")(command(synthesis_report))
