"""CLI: screening in a team and decisions in and out (issue 28) — ``litdesk screen
conflicts | reveal | resolve | agreement | import-decisions | export-decisions`` and
``litdesk study prisma``. Thin: parse, call one ``app.screening`` method, print."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from litdesk._errors import InputError

from .._words import plural
from ._context import sync_app
from ._output import command, console, emit_json

if TYPE_CHECKING:
    from litdesk.services.screening import PrismaFlowView

__all__ = ["register"]

_STAGE_HELP = "title_abstract (ta) or full_text (ft)."
#: the largest decisions file the CLI reads (the area checks its own limit too)
MAX_READ = 64 * 1024 * 1024 + 1


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _kappa(value: object) -> str:
    return "undefined" if value is None else f"{float(str(value)):.3f}"


def _vote(d: Mapping[str, object]) -> str:
    """A decision in a line: who, the verdict and its reason."""
    reason = f" ({d['reason']})" if d.get("reason") else ""
    return f"{d.get('reviewer_name') or d['reviewer']}: {d['verdict']}{reason}"


def _listed_row(r: Mapping[str, object]) -> tuple[str, str]:
    """A record behind a number: its key, title and what the box says of it (a reason; a
    source, and the record a duplicate removed duplicates)."""
    text = str(r["title"] or "") or "(no title)"
    if r.get("reason"):
        text += f"  [{r['reason']}]"
    if r.get("source"):
        text += f"  [{r['source']}]"
    if r.get("duplicate_of"):
        text += f"  duplicate of {r['duplicate_of']}" + (f" ({r['rule']})" if r.get("rule") else "")
    return str(r["record_key"]), text


def _prisma_table(view: PrismaFlowView) -> None:
    """The flow as a table for the terminal: a line per box (sub-lines indented), a column
    per round and the total (``--format md`` gives the same as Markdown for a file)."""
    from rich.table import Table

    table = Table(title=f"PRISMA 2020 — {view.study_name}", title_justify="left")
    # the numbers never give way: a long source or reason name (an Embase line naming its
    # platform and dates, a sentence of a reason) folds onto more lines in its own column
    # rather than squeezing the counts out of a terminal's width
    table.add_column("PRISMA 2020", overflow="fold", ratio=1, min_width=16)
    for i, head in enumerate(view.heads):
        widest = max((len(f"{values[i]:,}") for _, values in view.lines), default=1)
        table.add_column(head, justify="right", min_width=max(widest, 5))
    for label, values in view.lines:
        table.add_row(label, *(f"{v:,}" for v in values))
    console.print(table, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Add the team commands to ``litdesk screen`` and ``study prisma`` to ``litdesk
    study`` (``app`` holds both groups)."""
    from ._screen import screen_app as screen

    del app
    _register_study()

    @screen.command("conflicts")
    @command
    def conflicts_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        stage: Annotated[str, typer.Option("--stage", help=_STAGE_HELP)] = "title_abstract",
        status: Annotated[
            str,
            typer.Option(
                "--status", help="unresolved (waiting for a resolution), resolved, or all."
            ),
        ] = "unresolved",
        page: Annotated[int, typer.Option("--page", help="Page, from 1.")] = 1,
        per_page: Annotated[
            int | None,
            typer.Option("--per-page", help="Conflicts per page (25 unless given; at most 100)."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """The resolution queue, one page at a time: records whose two reviewers disagree
        (shown once the Study owner has revealed the stage); --status resolved lists those
        settled, with their resolution."""
        from litdesk.services.screening import CONFLICTS_PAGE, ConflictsRequest, parse_stage

        size = CONFLICTS_PAGE if per_page is None else per_page
        asked = ConflictsRequest(study, parse_stage(stage), status, page, size)  # type: ignore[arg-type]
        with sync_app() as app:
            view = app.screening.conflicts(asked, owner=app.owner)
        if as_json:
            emit_json(view.to_dict())
            return
        if view.dual_review and not view.revealed:
            _say(f"{view.stage}: blind (dual review) until the Study owner reveals it.")
            return
        _say(f"{view.stage}: {plural(view.waiting, 'conflict')} waiting, {view.resolved} resolved")
        for c in view.conflicts:
            votes = "; ".join(_vote(d) for d in c.decisions)
            line = f"  {c.record_key}  {c.title[:90] or '(no title)'} ({c.year or '?'})  [{votes}]"
            if c.resolution is not None:
                line += f"  resolved: {_vote(c.resolution)}"
            _say(line)
        if view.pages > 1:
            _say(f"{view.status}: page {view.page} of {view.pages} ({view.total} in all)")

    @screen.command("reveal")
    @command
    def reveal_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        stage: Annotated[str, typer.Option("--stage", help=_STAGE_HELP)] = "title_abstract",
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Reveal a stage's decisions to its reviewers and open its conflicts for
        resolution (the Study owner only)."""
        from litdesk.services.screening import StudyStageRequest, parse_stage

        with sync_app() as app:
            view = app.screening.reveal(
                StudyStageRequest(study, parse_stage(stage)), owner=app.owner
            )
        if as_json:
            emit_json(view.to_dict())
            return
        _say(f"{view.stage} revealed: {plural(view.conflicts, 'conflict')} to resolve")

    @screen.command("resolve")
    @command
    def resolve_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        record: Annotated[str, typer.Argument(help="The record's key (from screen conflicts).")],
        verdict: Annotated[str, typer.Argument(help="include, exclude or maybe.")],
        reason: Annotated[str, typer.Option("--reason", help="Exclusion reason.")] = "",
        note: Annotated[str, typer.Option("--note", help="A note kept with it.")] = "",
        stage: Annotated[str, typer.Option("--stage", help=_STAGE_HELP)] = "title_abstract",
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Settle a conflict (both reviewers' decisions stay in the history)."""
        from litdesk.services.screening import ResolveRequest

        request = ResolveRequest(study, stage, record, verdict, reason, note)  # type: ignore[arg-type]
        with sync_app() as app:
            view = app.screening.resolve(request, owner=app.owner)
        if as_json:
            emit_json(view.to_dict())
            return
        _say(f"{record}: resolved as {request.verdict} at {request.stage}")

    @screen.command("agreement")
    @command
    def agreement_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        stage: Annotated[
            str | None, typer.Option("--stage", help=_STAGE_HELP + " Default: both.")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Cohen's kappa and percent agreement per reviewer pair and stage."""
        from litdesk.services.screening import AgreementRequest

        with sync_app() as app:
            view = app.screening.agreement(AgreementRequest(study, stage), owner=app.owner)  # type: ignore[arg-type]
        if as_json:
            emit_json(view.to_dict())
            return
        if not view.pairs:
            _say("No two reviewers have decided the same record yet.")
        for p in view.pairs:
            names = p.get("reviewer_names") or p["reviewers"]
            who = " and ".join(str(n) for n in names) if isinstance(names, list) else ""
            _say(
                f"{p['stage']}: {who}: kappa {_kappa(p['kappa'])}, agreement "
                f"{float(str(p['percent_agreement'])):.1%} on {plural(p['n'], 'record')}"
            )
        for s in view.hidden:
            _say(f"{s}: blind until the Study owner reveals it")

    @screen.command("import-decisions")
    @command
    def import_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        file: Annotated[
            Path,
            typer.Argument(
                help="CSV, ASReview export (CSV or RIS), litdesk's own export (CSV or RIS) or Rayyan export (CSV or RIS)."
            ),
        ],
        reviewer: Annotated[
            str | None,
            typer.Option(
                "--reviewer",
                help="Whose decisions (default: you): on a team server a member's user "
                "name; of a Rayyan file with several reviewers, only this one's.",
            ),
        ] = None,
        reviewer_map: Annotated[
            list[str] | None,
            typer.Option(
                "--reviewer-map",
                help="'Rayyan name=reviewer': record that Rayyan reviewer's decisions as this "
                "reviewer's (repeat; reviewers not mapped are listed, not recorded).",
            ),
        ] = None,
        stage: Annotated[str, typer.Option("--stage", help=_STAGE_HELP)] = "title_abstract",
        format: Annotated[
            str | None,
            typer.Option("--format", help="csv, asreview or rayyan (default: detected)."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Record decisions made in another tool (a CSV, ASReview's CSV or RIS export,
        litdesk's own CSV or RIS export, Rayyan's CSV or RIS export), matched to the Study's records by DOI, PMID, record id or title; rows
        that match nothing or cannot be read are listed with their lines."""
        from litdesk.services.screening import ImportDecisionsRequest, parse_reviewer_map

        try:
            with file.open("rb") as fh:
                data = fh.read(MAX_READ)
        except OSError as exc:
            raise InputError(f"cannot read {file}: {exc.strerror}", code="unreadable") from None
        request = ImportDecisionsRequest(
            study, data, file.name, stage, reviewer, format,  # type: ignore[arg-type]
            parse_reviewer_map(reviewer_map or ()),
        )  # fmt: skip
        with sync_app() as app:
            view = app.screening.import_decisions(request, owner=app.owner)
        if as_json:
            emit_json(view.to_dict())
            return
        _say(
            f"{view.filename} ({view.format}): {plural(view.rows, 'decision row')}; "
            f"{view.recorded} recorded, {view.unchanged} already recorded, "
            f"{len(view.skipped)} without a decision, {len(view.unmatched)} unmatched, "
            f"{len(view.refused)} refused, {len(view.problems)} unreadable"
        )
        if view.reviewer_names:
            _say(f"  as the decisions of {', '.join(view.reviewer_names)}")
        for u in (*view.problems, *view.unmatched, *view.refused):
            _say(f"  line {u['line']}: {u['reason']}")

    @screen.command("export-decisions")
    @command
    def export_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        format: Annotated[str, typer.Option("--format", help="csv or ris.")] = "csv",
        stage: Annotated[str, typer.Option("--stage", help=_STAGE_HELP)] = "title_abstract",
        output: Annotated[
            Path | None, typer.Option("--output", "-o", help="Write here (default: stdout).")
        ] = None,
    ) -> None:
        """The decisions at a stage, one row per study with its round (search, or Update N
        of a living review; at full text, per report sought for retrieval): CSV, or RIS with the labels, reasons and round in notes (both
        re-import; ASReview and Zotero read the RIS)."""
        from litdesk.services.screening import ExportDecisionsRequest

        with sync_app() as app:
            export = app.screening.export_decisions(
                ExportDecisionsRequest(study, stage, format),  # type: ignore[arg-type]
                owner=app.owner,
            )
        if output is None:
            typer.echo(export.text, nl=False)
            return
        try:
            output.write_bytes(export.body)
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror}", code="unwritable") from None
        _say(f"Wrote {plural(export.count, 'record')} to {output}")


def _register_study() -> None:
    """Add ``study prisma`` to the ``study`` commands."""
    from ._workspace import study_app

    @study_app.command("prisma")
    @command
    def prisma_cmd(
        study: Annotated[str, typer.Argument(help="Study name or id.")],
        format: Annotated[
            str,
            typer.Option(
                "--format",
                help="table (for the terminal), md, csv or svg (with --json: ignored).",
            ),
        ] = "table",
        as_json: Annotated[bool, typer.Option("--json", help="The counts as JSON.")] = False,
        box: Annotated[
            str | None,
            typer.Option("--box", help="List the records behind a box (e.g. excluded_reports)."),
        ] = None,
        round_no: Annotated[
            int | None, typer.Option("--round", min=1, help="With --box: one round (1: initial).")
        ] = None,
        page: Annotated[int, typer.Option("--page", min=1, help="With --box: the page.")] = 1,
        reason: Annotated[
            str | None,
            typer.Option("--reason", help="With --box excluded_reports: one exclusion reason."),
        ] = None,
        kind: Annotated[
            str | None,
            typer.Option(
                "--kind",
                help="With --box identified or removed_duplicates: database, register or other.",
            ),
        ] = None,
        source: Annotated[
            str | None,
            typer.Option(
                "--source",
                help="With --box identified or removed_duplicates: one source, by its name "
                "in the flow (e.g. Embase).",
            ),
        ] = None,
    ) -> None:
        """The Study's PRISMA 2020 flow computed from its records and screening decisions
        (one column per update round of a living review); --box lists the records behind a
        number (identified and removed_duplicates: the source records, before
        deduplication)."""
        from litdesk.services.screening import PrismaFlowRequest, PrismaRecordsRequest

        if box is not None:
            with sync_app() as app:
                asked = PrismaRecordsRequest(study, box, round_no, page, reason, kind, source)
                listed = app.screening.prisma_records(asked, owner=app.owner)
            if as_json:
                emit_json(listed.to_dict())
                return
            what = listed.reason or listed.source or listed.kind
            what = f": {what}" if what else ""
            _say(f"{listed.box}{what} ({listed.round}): {plural(listed.total, 'record')}")
            from ._tables import print_rows

            print_rows(console, (_listed_row(r) for r in listed.rows), indent=2)
            if listed.pages > 1:
                _say(f"page {listed.page} of {listed.pages}")
            return
        with sync_app() as app:
            view = app.screening.prisma(PrismaFlowRequest(study), owner=app.owner)
            if as_json:
                emit_json(view.to_dict())
                return
            if format == "svg":
                svg = app.screening.export_prisma(PrismaFlowRequest(study, "svg"), owner=app.owner)
                typer.echo(svg.text, nl=False)
                return
        if format not in ("table", "md", "csv"):
            raise InputError("--format is table, md, csv or svg", code="bad_format")
        if format == "table":
            _prisma_table(view)
            return
        typer.echo(view.markdown if format == "md" else view.csv, nl=False)
