"""Workspace commands: ``litdesk study …``, ``litdesk paper …`` (``litdesk evidence …`` and
``litdesk notebook export``: :mod:`._evidence`), and the helpers they share. Thin: parse
arguments, call the workspace service, print."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import InputError

from .._words import day, num, plural
from ._context import sync_app

if TYPE_CHECKING:  # imported when a command runs (fast start)
    from litdesk.services.app import App
from ._output import command, console, emit_json

__all__ = ["register"]

MAX_INPUT_BYTES = 200_000_000

study_app = typer.Typer(
    help="Studies: named collections of papers, notes, evidence and runs.", no_args_is_help=True
)
paper_app = typer.Typer(
    help="Saved papers: save, reading status, notes and highlights.", no_args_is_help=True
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
StudyOpt = Annotated[str | None, typer.Option("--study", help="A Study (name or id).")]
FieldOpt = Annotated[
    list[str] | None,
    typer.Option("--field", help="key=value for a field of the Study's form (repeatable)."),
]
SubjectOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--subject",
        help="Link a subject, as mesh:D003920 (a bare id is MeSH; repeatable, up to 8).",
    ),
]


class CliArgumentError(InputError):
    """The command's arguments do not fit together."""

    default_code = "arguments"


# the apps one CLI command opened, closed when it ends (a CLI process runs one command)
_OPEN: list[Any] = []


def _app() -> App:
    """The app of this command (closed when the command ends)."""
    opened = sync_app()
    app = opened.__enter__()
    _OPEN.append(opened)
    return app


def _ws() -> Any:
    """The workspace of the app (the app closed when the command ends)."""
    return _app().workspace()


def _closing(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Release the store's connections when the command returns or fails."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            while _OPEN:
                _OPEN.pop().__exit__(None, None, None)

    return wrapper


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _read(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    from litdesk.services.files import read_input

    return read_input(str(path), limit=limit)


def _write(path: Path, data: bytes, force: bool) -> None:
    from litdesk.services.files import write_output

    write_output(path, data, force=force)


def check_output(path: Path, *, force: bool = False) -> None:
    """Refuse a bad ``-o`` before the work (see ``litdesk.services.files``)."""
    from litdesk.services.files import check_output as check

    check(path, force=force)


def _context(ws: Any, paper_ref: str, xml: Path | None, block: str | None) -> Any:
    if xml is None and block is None:
        return None
    if xml is None or block is None:
        raise CliArgumentError("--fulltext-xml and --block go together")
    from litdesk.core.evidence import paper_pmcid
    from litdesk.core.fulltext import parse_fulltext
    from litdesk.services.workspace import context_from_fulltext

    paper = ws.paper(paper_ref).paper
    fulltext = parse_fulltext(_read(xml, 16_000_000), expected_pmcid=paper_pmcid(paper))
    return context_from_fulltext(fulltext, block)


# --- study -----------------------------------------------------------------------------


@study_app.command("new")
@command
@_closing
def study_new(
    name: Annotated[str, typer.Argument(help="The Study's name (unique).")],
    description: Annotated[
        str | None, typer.Option("--description", help="What it is for.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a Study."""
    from litdesk.services.studies import CreateStudyRequest

    app = _app()
    s = app.studies.create_study(CreateStudyRequest(name, description), owner=app.owner).summary
    if as_json:
        emit_json(
            {"id": s.id, "name": s.name, "description": s.description, "created_at": s.created_at}
        )
    else:
        _say(f"Study {s.name!r} created ({s.id})")


@study_app.command("list")
@command
@_closing
def study_list(as_json: JsonOpt = False) -> None:
    """List Studies with their paper counts."""
    app = _app()
    rows = app.studies.studies(owner=app.owner).studies
    if as_json:
        emit_json([{k: s[k] for k in ("id", "name", "papers", "created_at")} for s in rows])
        return
    if not rows:
        _say("No Studies yet: litdesk study new NAME")
    for s in rows:
        n = s["papers"]
        _say(f"{s['name']}  ({plural(n, 'paper')}, created {day(s['created_at'])}, {s['id']})")


@study_app.command("show")
@command
@_closing
def study_show(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    page: Annotated[
        int, typer.Option("--page", min=1, help="Which page of its papers (50 a page).")
    ] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Show a Study: one page of its papers (newest first), note/evidence counts, search
    runs and imports."""
    from litdesk.services.studies import StudyRequest

    app = _app()
    summary: dict[str, Any] = app.studies.study(
        StudyRequest(study, page), owner=app.owner
    ).to_dict()
    if as_json:
        emit_json(summary)
        return
    _say(f"{summary['name']} ({summary['id']})")
    if summary["description"]:
        _say(summary["description"])
    _say(
        f"{plural(summary['papers_total'], 'paper')}, {plural(summary['notes'], 'note')}, "
        f"{plural(summary['evidence'], 'evidence record')}, "
        f"{plural(len(summary['search_runs']), 'search run')}, "
        f"{plural(len(summary['imports']), 'import')}"
    )
    ws = summary["working_set"]
    _say(
        f"{plural(ws['records_identified'], 'record')} identified, "
        f"{plural(ws['duplicates_removed'], 'duplicate')} removed, "
        f"{plural(ws['studies'], 'study', 'studies')} in the working set"
    )
    from ._tables import print_rows, wrap_keeping_dates

    # wrapped at spaces at the terminal's width, never inside a date (a file name or a
    # query may be long: a word longer than a line is folded)
    sources = [("import", r) for r in summary.get("import_rows", [])]
    sources += [("search", r) for r in summary.get("runs", [])]
    rounds = {r["run_id"]: r for r in summary.get("search_rounds", [])}
    for what, row in sources:
        label = row["label"]
        if what == "import" and row.get("counted_as"):  # the PRISMA source and its id
            label += f"; counted as {row['counted_as']} ({row['prisma_kind']}); {row['id']}"
        if what == "search" and row["id"] in rounds:  # its round: runs of one query told apart
            label += "; " + _round_words(rounds[row["id"]])
        text = wrap_keeping_dates(f"  {what}: {label}", console.width, indent="    ")
        console.print(text, highlight=False, overflow="fold")
    for b in summary.get("begun_rounds", []):  # update rounds begun by hand (study round)
        label = f"update round {b['round']} begun {b['began_at']} by {b['by']}"
        label += f": {b['note']}" if b["note"] else ""
        console.print(
            wrap_keeping_dates(f"  round: {label}", console.width, indent="    "),
            highlight=False,
            overflow="fold",
        )
    print_rows(
        console,
        ((p["id"], f"[{p['status'] or '-'}]", p["title"]) for p in summary["papers"]),
        indent=2,
    )
    if summary["pages"] > 1:
        first = (summary["page"] - 1) * summary["per_page"] + 1
        last = first + len(summary["papers"]) - 1
        more = f"; next: --page {summary['page'] + 1}" if summary["page"] < summary["pages"] else ""
        _say(
            f"papers {first:,}–{last:,} of {summary['papers_total']:,} "
            f"(page {summary['page']} of {summary['pages']}{more})"
        )


def _round_words(r: dict[str, Any]) -> str:
    """A whole search's round as ``study show`` lists it: which round, what it found, and
    the databases that failed ("update round 2: 3 new, 72 already known; Crossref failed")."""
    from litdesk.core.providers import display_name

    n = r["round"]
    which = "first search" if n == 0 else f"update round {n}"
    if r["kind"] == "search" and n:
        which = f"added in update round {n}"
    failed = [display_name(x["provider"]) for x in r["lanes"] if x["state"] == "failed"]
    out = f"{which}: {num(r['new'])} new, {num(r['already_known'])} already known"
    return out + "".join(f"; {name} failed" for name in failed)


@study_app.command("add")
@command
@_closing
def study_add(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    papers: Annotated[list[str], typer.Argument(help="Saved papers (id, DOI, PMID, PMCID, …).")],
    run: Annotated[
        list[str] | None, typer.Option("--run", help="Also attach a saved search run id.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add saved papers (and saved search runs) to a Study."""
    done = _ws().fill_study(study, papers, run or [])
    if as_json:
        emit_json(done.to_dict() | {"study": study})
    else:
        n = sum(added for _, added in done.papers)
        _say(f"{plural(n, 'paper')} added to {study}; {num(len(done.papers) - n)} already there")


@study_app.command("export")
@command
@_closing
def study_export(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The ZIP file to write.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Export a Study as a ZIP (references.ris, evidence.csv, notebook.md, runs, imports, manifest)."""
    check_output(output, force=force)
    app = _app()
    data = app.studies.export_zip(study, owner=app.owner).body
    _write(output, data, force)
    if as_json:
        emit_json({"study": study, "path": str(output), "bytes": len(data)})
    else:
        _say(f"Wrote {output} ({len(data):,} bytes)")


@study_app.command("import")
@command
@_closing
def study_import(
    file: Annotated[Path, typer.Argument(help="A Study ZIP made by litdesk study export.")],
    name: Annotated[
        str | None, typer.Option("--name", help="Name for the recovered Study.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Recover a Study from its ZIP: every record is validated; links are remapped."""
    from litdesk.services.studies import RecoverRequest
    from litdesk.services.workspace import MAX_ZIP_BYTES

    request = RecoverRequest(_read(file, MAX_ZIP_BYTES), name, limit=MAX_ZIP_BYTES)
    app = _app()
    done = app.studies.recover_zip(request, owner=app.owner)
    if as_json:
        emit_json(done.to_dict())
    else:
        out = done.study
        _say(
            f"Recovered Study {out.name!r} ({out.study_id}): {out.papers} papers, "
            f"{out.notes} notes, {out.evidence} evidence, {out.search_runs} search runs, "
            f"{out.imports} imports"
        )
        for line in _screening_lines(done.decisions, done.reviewers):
            _say(f"  {line}")


_STAGE_NAMES = {"title_abstract": "title/abstract", "full_text": "full-text"}
_AS = {
    "you": "you",
    "account": "their account here: their own decisions (not a member of the Study yet)",
    "name": "no account here: recorded by you under their name",
}


def _stages(value: object) -> str:
    """A report's stages (``title_abstract, full_text``) as people name them."""
    parts = [p.strip() for p in str(value or "").split(",") if p.strip()]
    return ", ".join(_STAGE_NAMES.get(p, p) for p in parts)


def _screening_lines(
    decisions: Mapping[str, Mapping[str, int | str]], reviewers: Sequence[Mapping[str, object]]
) -> list[str]:
    """What recovery recorded of the ZIP's screening, line by line."""
    out: list[str] = []
    history = decisions.get("history", {})
    if "error" in history:
        out.append(
            f"the screening history was not recorded ({history['error']}): each stage's "
            "outcome is recorded as yours instead"
        )
    elif history:
        extra = [
            f"{history[k]} {what}"
            for k, what in (("unmatched", "for records not in the ZIP"),
                            ("skipped", "unreadable rows skipped"))
            if history.get(k)
        ]  # fmt: skip
        out.append(
            f"screening history: {history['recorded']} decisions, changes, undos and "
            "resolutions recorded with who made them" + (f" ({'; '.join(extra)})" if extra else "")
        )
        pairs, shown, partial = (_stages(history.get(k)) for k in ("dual_review", "revealed",
                                                                     "partial"))  # fmt: skip
        out.append(
            f"review mode: dual review at {pairs or 'no stage'}; revealed at {shown or 'none'}; "
            f"'maybe' is a conflict: {history.get('maybe_is_conflict')}"
        )
        if partial:
            out.append(
                f"at {partial} the ZIP holds only its exporter's own decisions "
                "(the stage was blind to them)"
            )
        for r in reviewers:
            name = "the exporting workspace's user" if r.get("kind") == "local" else r.get("name")
            out.append(f"  reviewer {name}: {_AS.get(str(r.get('as')), '')}")
    for stage, d in decisions.items():
        if stage == "history":
            continue
        name = _STAGE_NAMES.get(stage, stage)
        if "error" in d:
            what = "settings were" if stage == "settings" else f"{name} decisions were"
            out.append(f"the screening {what} not recorded: {d['error']}")
            continue
        unmatched = f", {d['unmatched']} matched no record" if d.get("unmatched") else ""
        whose = "with their reviewers" if d.get("history") else "as yours"
        out.append(
            f"{name} screening: {d['recorded']} decisions recorded {whose}{unmatched}"
            + _retrieval_words(d)
        )
    return out


def _retrieval_words(d: Mapping[str, int | str]) -> str:
    """The full-text file's retrieval as recovery recorded it ("" when it held none)."""
    if "retrieval_error" in d:
        return f"; its retrieval (reports not retrieved) was not recorded: {d['retrieval_error']}"
    if not d.get("retrieval") and not d.get("retrieval_unmatched"):
        return ""
    left = f", {d['retrieval_unmatched']} matched no record" if d.get("retrieval_unmatched") else ""
    return f"; retrieval recorded for {plural(d.get('retrieval', 0), 'report')} as yours{left}"


# --- paper -------------------------------------------------------------------------------


@paper_app.command("save")
@command
@_closing
def paper_save(
    file: Annotated[
        Path | None, typer.Option("--file", help="Save every record of an export file.")
    ] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help="The file's format (default: detect).")
    ] = None,
    identifier: Annotated[
        str | None,
        typer.Option("--id", help="An identifier: DOI, PMID, PMCID, OpenAlex, arXiv, MED-…."),
    ] = None,
    doi: Annotated[str | None, typer.Option("--doi")] = None,
    pmid: Annotated[str | None, typer.Option("--pmid")] = None,
    pmcid: Annotated[str | None, typer.Option("--pmcid")] = None,
    title: Annotated[str | None, typer.Option("--title")] = None,
    abstract: Annotated[str | None, typer.Option("--abstract")] = None,
    journal: Annotated[str | None, typer.Option("--journal")] = None,
    year: Annotated[int | None, typer.Option("--year")] = None,
    author: Annotated[
        list[str] | None, typer.Option("--author", help="Repeat for each author.")
    ] = None,
    study: StudyOpt = None,
    status: Annotated[
        str | None, typer.Option("--status", help="to-read, reading or read.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Save papers: from an import file (its trace is kept) or by identifier and fields.
    Re-saving a paper known under another identifier merges, never duplicates."""
    from litdesk.services.workspace import PaperFields

    ws = _ws()
    if file is not None:
        if identifier or doi or pmid or pmcid or title:
            raise CliArgumentError("--file cannot be combined with identifier or field options")
        result = ws.save_file(file, format=fmt, study=study, status=status)
        if as_json:
            emit_json(result.to_dict())
            return
        _say(
            f"Saved {plural(result.saved, 'record')} from {file} ({plural(result.created, 'new paper')}); "
            f"import {result.import_id}"
        )
        for r in result.refused:
            _say(f"  refused record at lines {r['lines'][0]}-{r['lines'][1]}: {r['reason']}")
        if result.repeats:
            _say(
                f"  note: the same file was imported before ({', '.join(result.repeats[:5])}); "
                "PRISMA counts its records once"
            )
        return
    fields = PaperFields(
        identifier=identifier,
        doi=doi,
        pmid=pmid,
        pmcid=pmcid,
        title=title,
        abstract=abstract,
        journal=journal,
        year=year,
        authors=tuple(author or ()),
    )
    saved = ws.save_fields(fields, study=study, status=status)
    if as_json:
        emit_json(saved.to_dict() | {"paper": saved.paper.to_dict()})
    else:
        verb = "Saved" if saved.created else ("Merged into" if saved.changed else "Already saved:")
        _say(f"{verb} {saved.paper.id}  {saved.paper.title[:100]}")


@paper_app.command("list")
@command
@_closing
def paper_list(
    study: StudyOpt = None,
    status: Annotated[
        str | None, typer.Option("--status", help="to-read, reading or read.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List saved papers (newest 500), optionally by Study and reading status."""
    rows = _ws().papers(study=study, status=status)
    if as_json:
        emit_json([r.paper.to_dict() | {"status": r.status} for r in rows])
        return
    from ._tables import print_rows

    print_rows(console, ((r.paper.id, f"[{r.status or '-'}]", r.paper.title) for r in rows))
    if len(rows) == 500:
        _say("(showing the newest 500 papers)")


@paper_app.command("status")
@command
@_closing
def paper_status(
    paper: Annotated[str, typer.Argument(help="A saved paper (id or identifier).")],
    status: Annotated[str, typer.Argument(help="to-read, reading, read or none.")],
    as_json: JsonOpt = False,
) -> None:
    """Set a saved paper's reading status."""
    p = _ws().set_status(paper, None if status == "none" else status)
    if as_json:
        emit_json({"id": p.id, "status": None if status == "none" else status})
    else:
        _say(f"{p.id}: {status}")


@paper_app.command("note")
@command
@_closing
def paper_note(
    paper: Annotated[str, typer.Argument(help="A saved paper (id or identifier).")],
    text: Annotated[str, typer.Argument(help="The comment (at most 4,000 characters).")],
    study: StudyOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add a paper-level comment (no highlight needed)."""
    view = _ws().add_note(paper, comment=text, study=study)
    if as_json:
        emit_json(view.to_dict())
    else:
        _say(f"Note {view.id} added to {view.annotation.paper_id}")


@paper_app.command("highlight")
@command
@_closing
def paper_highlight(
    paper: Annotated[str, typer.Argument(help="A saved paper (id or identifier).")],
    quote: Annotated[str, typer.Argument(help="The exact passage (at most 8,000 characters).")],
    start: Annotated[
        int | None, typer.Option("--start", help="Exact start offset in the source.")
    ] = None,
    occurrence: Annotated[
        int, typer.Option("--occurrence", help="Which exact occurrence (1-100).")
    ] = 1,
    comment: Annotated[
        str | None, typer.Option("--comment", help="A comment on the passage.")
    ] = None,
    fulltext_xml: Annotated[
        Path | None,
        typer.Option(
            "--fulltext-xml", help="A JATS article to highlight in (its paragraph: --block)."
        ),
    ] = None,
    block: Annotated[
        str | None,
        typer.Option(
            "--block", help="The paragraph of --fulltext-xml to highlight in (p1, p2, …)."
        ),
    ] = None,
    study: StudyOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Highlight an exact passage of the abstract (or of a licensed full-text paragraph)."""
    ws = _ws()
    view = ws.add_note(
        paper,
        comment=comment,
        highlight=quote,
        start=start,
        occurrence=occurrence,
        context=_context(ws, paper, fulltext_xml, block),
        study=study,
    )
    if as_json:
        emit_json(view.to_dict())
    else:
        a = view.annotation.anchor
        _say(f"Highlight {view.id} on {view.annotation.paper_id} ({a.source} {a.start}-{a.end})")


@paper_app.command("notes")
@command
@_closing
def paper_notes(
    paper: Annotated[str | None, typer.Argument(help="A saved paper (default: all).")] = None,
    study: StudyOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List notes and highlights, with a notice when their source text changed."""
    views, problems = _ws().notes(paper_ref=paper, study=study)
    if as_json:
        emit_json({"notes": [v.to_dict() for v in views], "problems": problems})
        return
    for v in views:
        a = v.annotation.anchor
        head = f'"{a.text[:80]}"' if a else "(comment)"
        _say(f"{v.id}  {v.annotation.paper_id}  {head}  {v.annotation.comment or ''}")
        if v.notice:
            _say(f"    notice: {v.notice}")
    for p in problems:
        _say(f"invalid stored note skipped: {p}")


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
    from . import _working_set

    _working_set.register(study_app)
    app.add_typer(study_app, name="study")
    app.add_typer(paper_app, name="paper")
