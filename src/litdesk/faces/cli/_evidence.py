"""Evidence and notebook commands: ``litdesk evidence add | update | list | export`` and
``litdesk notebook export``. Thin: parse arguments, call one service method, print."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .._words import plural
from ._context import sync_app
from ._output import command, console, emit_json
from ._workspace import (
    CliArgumentError,
    FieldOpt,
    JsonOpt,
    StudyOpt,
    SubjectOpt,
    _app,
    _closing,
    _context,
    _say,
    _write,
    _ws,
    check_output,
)

__all__ = ["evidence_app", "notebook_app", "register"]

evidence_app = typer.Typer(
    help="Evidence records: add, list and export as CSV.", no_args_is_help=True
)
notebook_app = typer.Typer(help="The review notebook (Markdown).", no_args_is_help=True)


@evidence_app.command("add")
@command
@_closing
def evidence_add(
    paper: Annotated[str, typer.Argument(help="A saved paper (id or identifier).")],
    passage: Annotated[
        str, typer.Option("--passage", help="The supporting passage (1-8,000 chars).")
    ],
    finding: Annotated[
        str | None,
        typer.Option("--finding", help="The finding (required by the default form)."),
    ] = None,
    source: Annotated[
        str,
        typer.Option(
            "--source",
            help="abstract, fulltext, pdf (the paper's PDF in the library: --page) or external.",
        ),
    ] = "abstract",
    page: Annotated[
        int | None,
        typer.Option(
            "--page", help="pdf: the page of the paper's PDF the passage is on (checked there)."
        ),
    ] = None,
    pdf: Annotated[
        str | None,
        typer.Option("--pdf", help="pdf: the SHA-256 of the PDF you read (refused if changed)."),
    ] = None,
    location: Annotated[
        str | None, typer.Option("--location", help="External: page, section or figure.")
    ] = None,
    question: Annotated[str | None, typer.Option("--question")] = None,
    population: Annotated[
        str | None, typer.Option("--population", help="Species, cell line or population.")
    ] = None,
    method: Annotated[str | None, typer.Option("--method", help="Method or assay.")] = None,
    intervention: Annotated[
        str | None, typer.Option("--intervention", help="Intervention, concentration, exposure.")
    ] = None,
    limitations: Annotated[str | None, typer.Option("--limitations")] = None,
    fulltext_xml: Annotated[
        Path | None,
        typer.Option(
            "--fulltext-xml", help="Full-text source: a JATS article (its paragraph: --block)."
        ),
    ] = None,
    block: Annotated[
        str | None,
        typer.Option(
            "--block", help="The paragraph of --fulltext-xml the passage is in (p1, p2, …)."
        ),
    ] = None,
    study: StudyOpt = None,
    fields: FieldOpt = None,
    subjects: SubjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record a finding with its passage, checked against its source; its values follow
    the Study's form (``--field key=value``; see ``litdesk study form``); ``--subject``
    links it to a subject of an installed vocabulary (its page lists the finding)."""
    from ._fields import field_values

    values = field_values(fields)
    six = {"question": question, "population": population, "method": method,
           "intervention": intervention, "limitations": limitations}  # fmt: skip
    if source == "pdf" or page is not None or pdf is not None:
        if fulltext_xml is not None or block is not None:
            raise CliArgumentError("--page and --pdf go with --source pdf, not a full-text block")
        from ._pdf_evidence import pdf_evidence

        view = pdf_evidence(
            paper, finding=finding, passage=passage, source=source, location=location,
            page=page, pdf=pdf, study=study, six=six, values=values, subjects=subjects or [],
        )  # fmt: skip
    else:
        app = _app()
        ws = app.workspace()
        view = ws.add_evidence(
            paper, finding=finding, passage=passage, source=source, location=location,
            context=_context(ws, paper, fulltext_xml, block), study=study, values=values,
            subjects=app.subjects.resolve(subjects or []), question=question,
            population=population, method=method, intervention=intervention,
            limitations=limitations,
        )  # fmt: skip
    if as_json:
        emit_json(view.to_dict())
        return
    about = f", linked to {'; '.join(s.label for s in view.subjects)}" if view.subjects else ""
    where = f", {view.evidence.pdf.label()}" if view.evidence.pdf else ""
    _say(f"Evidence {view.id} recorded for {view.evidence.paper_id} ({view.recheck}){where}{about}")


@evidence_app.command("update")
@command
@_closing
def evidence_update(
    evidence_id: Annotated[str, typer.Argument(help="The evidence record's id.")],
    finding: Annotated[str | None, typer.Option("--finding")] = None,
    passage: Annotated[
        str | None, typer.Option("--passage", help="Checked against the same source.")
    ] = None,
    location: Annotated[str | None, typer.Option("--location")] = None,
    question: Annotated[str | None, typer.Option("--question")] = None,
    population: Annotated[str | None, typer.Option("--population")] = None,
    method: Annotated[str | None, typer.Option("--method")] = None,
    intervention: Annotated[str | None, typer.Option("--intervention")] = None,
    limitations: Annotated[str | None, typer.Option("--limitations")] = None,
    fields: FieldOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change an evidence record (given options only; '' clears an optional field;
    ``--field key=value`` for a field of the Study's form)."""
    from ._fields import field_values

    given = {
        "finding": finding,
        "passage": passage,
        "location": location,
        "question": question,
        "population": population,
        "method": method,
        "intervention": intervention,
        "limitations": limitations,
    }
    from litdesk.services.reader import EvidenceUpdateRequest

    changes = {k: v for k, v in given.items() if v is not None}
    # an empty change is refused by the update (after the record's access check)
    request = EvidenceUpdateRequest(evidence_id, changes, field_values(fields))
    with sync_app() as app:
        view = app.reader.update_evidence(request, owner=app.owner).record
    if as_json:
        emit_json(view.to_dict())
    else:
        _say(f"Evidence {view.id} updated ({view.recheck})")


@evidence_app.command("list")
@command
@_closing
def evidence_list(
    study: StudyOpt = None,
    paper: Annotated[str | None, typer.Option("--paper")] = None,
    subject: Annotated[
        str | None,
        typer.Option("--subject", help="Only evidence linked to this subject (mesh:D003920)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List evidence (newest 1,000), each re-checked against its paper, with the subjects
    it is linked to."""
    from litdesk.core.evidence import evidence_headline as headline
    from litdesk.core.vocab import parse_subject_ref

    named = parse_subject_ref(subject) if subject else None
    views, problems = _ws().evidence(study=study, paper_ref=paper, subject=named)
    if as_json:
        emit_json({"evidence": [v.to_dict() for v in views], "problems": problems})
        return
    from ._tables import print_rows

    print_rows(
        console,
        (
            (
                v.id,
                v.evidence.paper_id,
                f"[{v.recheck}]",
                headline(v.evidence)
                + (
                    " · subjects: " + "; ".join(f"{s.label} ({s.key})" for s in v.subjects)
                    if v.subjects
                    else ""
                ),
            )
            for v in views
        ),
    )
    for p in problems:
        _say(f"invalid stored evidence skipped: {p}")


@evidence_app.command("export")
@command
@_closing
def evidence_export(
    study: StudyOpt = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="CSV file (default: stdout).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Export the evidence table as spreadsheet-safe CSV."""
    from litdesk.services.studies import EvidenceExportRequest

    if output is not None:
        check_output(output, force=force)
    app = _app()
    table = app.studies.export_evidence(EvidenceExportRequest(study), owner=app.owner)
    if output is None:
        typer.echo(table.text, nl=False)
    else:
        _write(output, table.text.encode("utf-8"), force)
        _say(f"Wrote {plural(table.rows, 'evidence row')} to {output}")


@notebook_app.command("export")
@command
@_closing
def notebook_export(
    study: StudyOpt = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Markdown file (default: stdout).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Export the review notebook as Markdown (passages as block quotes, with sources,
    retrieval dates and licences)."""
    from litdesk.services.studies import NotebookExportRequest

    if output is not None:
        check_output(output, force=force)
    app = _app()
    notebook = app.studies.export_notebook(NotebookExportRequest(study), owner=app.owner)
    if output is None:
        typer.echo(notebook.text, nl=False)
    else:
        _write(output, notebook.text.encode("utf-8"), force)
        _say(f"Wrote {output}")


def register(app: typer.Typer) -> None:
    """Add ``litdesk evidence`` and ``litdesk notebook`` to ``app``."""
    app.add_typer(evidence_app, name="evidence")
    app.add_typer(notebook_app, name="notebook")
