"""CLI: ``litdesk dedup FILE…`` — one record per study, nothing lost."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from litdesk.adapters.store import Store, open_store
from litdesk.core.dedup import Decision, Pair
from litdesk.core.records import Paper
from litdesk.services.dedup import (
    DedupReport,
    RecordRef,
    dedup_files,
    load_decisions,
    record_report,
    save_decisions,
    study_decisions,
    study_history,
    undo_decision,
)
from litdesk.services.files import check_output, write_papers

from ._output import command, console, emit_json, err_console


def _describe(ref: RecordRef, paper: Paper) -> str:
    who = paper.authors[0] if paper.authors else "?"
    ids = ", ".join(f"{k}={v}" for k, v in paper.identifiers().items() if k != "id") or "no ids"
    where = f"{Path(ref.file).name}#{ref.index}" + (f" ({ref.source_id})" if ref.source_id else "")
    return (
        f"{where}\n  {paper.title or '(no title)'}\n  {who} · {paper.year or '?'} · "
        f"{paper.journal or '?'} {paper.volume or ''} {paper.pages or ''} · {ids}"
    )


def _prompt(pair: Pair, ra: RecordRef, pa: Paper, rb: RecordRef, pb: Paper) -> Decision | None:
    console.rule(f"score {pair.score:.3f} — {pair.reason}")
    console.print(_describe(ra, pa), markup=False, highlight=False)
    console.print(_describe(rb, pb), markup=False, highlight=False)
    console.print(f"evidence: {pair.evidence}", markup=False, highlight=False)
    answer = typer.prompt("Same study? [m]erge / [d]istinct / [s]kip", default="s")
    answer = answer.strip().lower()[:1]
    if answer == "m":
        return "merge"
    if answer == "d":
        return "distinct"
    return None


def _summary(report: DedupReport) -> None:
    counts = report.result.counts
    table = Table(title=f"{counts['records']} records → {counts['groups']} studies")
    table.add_column("stage")
    table.add_column("count", justify="right")
    table.add_row("records read", str(counts["records"]))
    table.add_row("stage 1: merged by identifiers", str(counts["stage1_merged"]))
    table.add_row("stage 2: candidate pairs compared", str(counts["candidate_pairs"]))
    table.add_row("stage 2: merged automatically (pairs)", str(counts["stage2_merge_pairs"]))
    table.add_row("waiting for review (pairs)", str(counts["review_pairs"]))
    table.add_row("preprint ↔ published links", str(counts["linked_pairs"]))
    table.add_row("kept apart: conflicting identifiers", str(counts["distinct_pairs"]))
    table.add_row("duplicates removed", str(counts["removable"]))
    console.print(table)
    for refused in report.refused:
        err_console.print(
            f"litdesk: {refused.path}: {refused.message} ({refused.code})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _open_store() -> Store:
    from litdesk._settings import Settings

    return open_store(Settings())


def register(app: typer.Typer) -> None:
    """Add ``litdesk dedup`` and ``litdesk dedup-history``."""

    @app.command("dedup-history")
    @command
    def history_cmd(
        study: Annotated[str, typer.Argument(help="The Study (name or id).")],
        undo: Annotated[
            int | None,
            typer.Option("--undo", help="Withdraw decision number N (appends an 'undone' entry)."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Entries as JSON.")] = False,
    ) -> None:
        """A Study's deduplication history: every reviewer decision and every run."""
        store = _open_store()
        try:
            if undo is not None:
                undo_decision(store, study, undo)
            entries = study_history(store, study)
        finally:
            store.dispose()
        if as_json:
            emit_json({"study": study, "entries": [e.to_dict() for e in entries]})
            return
        table = Table(title=f"deduplication history of {study}")
        for name in ("#", "when", "kind", "what"):
            table.add_column(name)
        for e in entries:
            if e.kind == "decision":
                what = f"{e.decision}: {(e.a_digest or '')[7:19]}… ~ {(e.b_digest or '')[7:19]}…"
                if "undoes" in e.data:
                    what += f" (withdraws #{e.data['undoes']})"
            else:
                counts = e.data.get("counts", {})
                what = (
                    f"run: {e.data.get('records')} records → {counts.get('groups')} studies, "
                    f"{e.data.get('new_decisions')} new decisions"
                )
            table.add_row(str(e.seq), e.created_at, e.kind, what)
        console.print(table)

    @app.command("dedup")
    @command
    def dedup_cmd(
        files: Annotated[list[Path], typer.Argument(help="Export files to deduplicate together.")],
        format: Annotated[
            str | None, typer.Option("--format", help="Read every file as this format.")
        ] = None,
        as_json: Annotated[
            bool, typer.Option("--json", help="Groups and pairs as JSON (record refs).")
        ] = False,
        auto_only: Annotated[
            bool, typer.Option("--auto-only", help="Apply automatic decisions only.")
        ] = False,
        review: Annotated[
            bool, typer.Option("--review", help="Ask about each uncertain pair.")
        ] = False,
        decisions: Annotated[
            Path | None,
            typer.Option(
                "--decisions",
                help="JSON file of reviewer decisions: read before, written after a review.",
            ),
        ] = None,
        out: Annotated[
            Path | None,
            typer.Option("-o", "--out", help="Write one merged record per study to this file."),
        ] = None,
        to: Annotated[
            str, typer.Option("--to", help="Format of --out: ris, bibtex, csljson or csv.")
        ] = "ris",
        study: Annotated[
            str | None,
            typer.Option(
                "--study",
                help="Keep decisions in this Study's history (in the store) and reuse them.",
            ),
        ] = None,
        merge_corrections: Annotated[
            bool,
            typer.Option(
                "--merge-corrections",
                help="Merge an erratum/correction notice into the article it corrects "
                "(default: such pairs wait for review).",
            ),
        ] = False,
        force: Annotated[bool, typer.Option("--force", help="Overwrite the --out file.")] = False,
    ) -> None:
        """Find duplicate records across export files: identifiers first, then
        bibliographic similarity; uncertain pairs wait for review."""
        if out is not None:
            check_output(out, force=force)  # a bad -o fails before the work
        store = _open_store() if study else None
        try:
            earlier = load_decisions(decisions) if decisions else {}
            in_force = study_decisions(store, study) if store is not None and study else {}
            earlier = {**in_force, **earlier}
            report = dedup_files(
                [str(f) for f in files],
                format=format,
                auto_only=auto_only,
                decisions=earlier,
                reviewer=_prompt if review and not auto_only else None,
                merge_corrections=merge_corrections,
            )
            if decisions and report.decisions != earlier:
                save_decisions(decisions, report.decisions)
            if store is not None and study:
                record_report(store, study, report, before=in_force)
            if out is not None:
                write_papers(out, report.merged_papers(), to, force=force)
        finally:
            if store is not None:
                store.dispose()
        if as_json:
            emit_json(report.to_dict())
        else:
            _summary(report)
        if report.refused:
            raise typer.Exit(2)
