"""CLI: ``litdesk dedup FILE…`` — one record per study, nothing lost."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .._words import num, plural, when
from ._context import sync_app
from ._output import command, console, emit_json, err_console

if TYPE_CHECKING:  # imported when a command runs (fast start)
    from rich.console import RenderableType

    from litdesk.core.dedup import Decision, Pair
    from litdesk.core.records import Paper
    from litdesk.services.dedup import DedupExplanation, DedupReport, RecordRef


def _describe(ref: RecordRef, paper: Paper) -> str:
    who = paper.authors[0] if paper.authors else "?"
    ids = ", ".join(f"{k}={v}" for k, v in paper.identifiers().items() if k != "id") or "no ids"
    where = f"{Path(ref.file).name}#{ref.index}" + (f" ({ref.source_id})" if ref.source_id else "")
    return (
        f"{where}\n  {paper.title or '(no title)'}\n  {who} · {paper.year or '?'} · "
        f"{_source_line(paper.journal, paper.volume, paper.issue, paper.pages)} · {ids}"
    )


def _source_line(
    journal: str | None, volume: str | None, issue: str | None, pages: str | None
) -> str:
    """``Journal 39(1) iii-iv``: where a record sits, the issue shown because it tells two
    items of one volume apart (a veto names it)."""
    where = (volume or "") + (f"({issue})" if issue else "")
    return " ".join(part for part in (journal or "?", where, pages or "") if part)


def _prompt(pair: Pair, ra: RecordRef, pa: Paper, rb: RecordRef, pb: Paper) -> Decision | None:
    console.rule(f"score {pair.score:.3f} — {pair.reason}")
    console.print(_describe(ra, pa), markup=False, highlight=False)
    console.print(_describe(rb, pb), markup=False, highlight=False)
    console.print(f"evidence: {pair.evidence}", markup=False, highlight=False)
    while True:
        answer = typer.prompt(
            "Same study? [m]erge / [k]eep separate (d) / [s]kip", default="s"
        ).strip()
        if answer.casefold() in _ANSWERS:
            return _ANSWERS[answer.casefold()]
        console.print(
            f"{answer!r} is not an answer: m (merge), k or d (keep separate), s (skip).",
            markup=False,
            highlight=False,
        )


#: the review prompt's answers (the web's keys too: m merge, k keep separate); "" skips
_ANSWERS: dict[str, Decision | None] = {
    **dict.fromkeys(("m", "merge"), "merge"),
    **dict.fromkeys(("k", "keep", "keep separate", "d", "distinct"), "distinct"),
    **dict.fromkeys(("s", "skip", ""), None),
}


def _summary(report: DedupReport) -> None:
    from rich.table import Table

    counts = report.result.counts
    table = Table(
        title=f"{plural(counts['records'], 'record')} → {plural(counts['groups'], 'study', 'studies')}"
    )
    table.add_column("stage")
    table.add_column("count", justify="right")
    table.add_row("records read", num(counts["records"]))
    table.add_row("stage 1: merged by identifiers", num(counts["stage1_merged"]))
    table.add_row("stage 2: candidate pairs compared", num(counts["candidate_pairs"]))
    table.add_row("stage 2: merged automatically (pairs)", num(counts["stage2_merge_pairs"]))
    table.add_row("waiting for review (pairs)", num(counts["review_pairs"]))
    table.add_row("linked pairs (versions, replies)", num(counts["linked_pairs"]))
    table.add_row("kept apart: conflicting identifiers", num(counts["distinct_pairs"]))
    table.add_row("shared identifiers not trusted", num(counts.get("shared_id_conflicts", 0)))
    table.add_row("joins sent to review (would chain)", num(counts.get("chain_reviews", 0)))
    table.add_row("merges vetoed, sent to review (pairs)", num(counts.get("vetoed_pairs", 0)))
    table.add_row("versions linked, both kept", num(counts.get("versions", 0)))
    table.add_row(
        "other tools' duplicate flags (suggestions)", str(counts.get("suggested_duplicates", 0))
    )
    table.add_row("duplicates removed", num(counts["removable"]))
    console.print(table)
    for conflict in report.result.conflicts:
        members = ", ".join(
            f"{Path(report.refs[i].file).name}#{report.refs[i].index}" for i in conflict.members[:6]
        )
        more = f" (+{len(conflict.members) - 6})" if len(conflict.members) > 6 else ""
        console.print(
            f"conflict: {conflict.message} [{members}{more}]", markup=False, highlight=False
        )
    for refused in report.refused:
        err_console.print(
            f"litdesk: {refused.path}: {refused.message} ({refused.code})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _explain(ex: DedupExplanation) -> None:
    why = ex.explanation
    verdict = "in the same group" if why.same_group else "in different groups"
    console.rule(f"{verdict}: {why.decision}")
    for ref, paper in ((ex.a, ex.papers[0]), (ex.b, ex.papers[1])):
        who = paper.authors[0] if paper.authors else "?"
        console.print(
            f"{Path(ref.file).name}#{ref.index}"
            + (f" ({ref.source_id})" if ref.source_id else "")
            + f"\n  {paper.title or '(no title)'}\n  {who} · {paper.year or '?'} · "
            f"{_source_line(paper.journal, paper.volume, paper.issue, paper.pages)}"
            f" · doi={paper.doi or '-'} pmid={paper.pmid or '-'}",
            markup=False,
            highlight=False,
        )
    stage = f"stage {why.stage}" if why.stage else "judged on its own"
    console.print(f"rule: {why.rule} ({stage})", markup=False, highlight=False)
    console.print(f"evidence: {why.evidence}", markup=False, highlight=False)
    for c in why.conflicts:
        console.print(f"conflict: {c.message}", markup=False, highlight=False)
    for note in why.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    if why.via:
        via = ", ".join(f"{Path(ex.refs[i].file).name}#{ex.refs[i].index}" for i in why.via)
        console.print(f"group also holds: {via}", markup=False, highlight=False)


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
        from rich.table import Table
        from rich.text import Text

        from ._tables import cards, line, print_fitting

        with sync_app() as opened:
            if undo is not None:
                opened.dedup.undo(study, undo, owner=opened.owner, via="cli")
            view = opened.dedup.history(study, owner=opened.owner)
        entries = view.entries
        if as_json:
            emit_json(view.to_dict())
            return
        table = Table(title=f"deduplication history of {study}")
        for name in ("#", "when", "kind", "what"):
            table.add_column(name)
        shown: list[tuple[str, str, str, str]] = []
        for e in entries:
            if e.kind == "decision":
                what = f"{e.decision}: {(e.a_digest or '')[7:19]}… ~ {(e.b_digest or '')[7:19]}…"
                if "undoes" in e.data:
                    what += f" (withdraws #{e.data['undoes']})"
            else:
                counts = e.data.get("counts", {})
                what = (
                    f"run: {plural(e.data.get('records'), 'record')} → "
                    f"{plural(counts.get('groups'), 'study', 'studies')}, "
                    f"{e.data.get('new_decisions')} new decisions"
                )
            table.add_row(str(e.seq), when(e.created_at), e.kind, what)
            shown.append((str(e.seq), e.created_at, e.kind, what))

        def as_cards() -> RenderableType:
            return cards(
                (f"#{seq}", [line(kind, when(created)), Text(what)])
                for seq, created, kind, what in shown
            )

        print_fitting(console, table, as_cards)

    @app.command("dedup")
    @command
    def dedup_cmd(
        files: Annotated[
            list[Path] | None,
            typer.Argument(
                help="Export files to deduplicate together (none with --study: the Study's "
                "own records, its working set)."
            ),
        ] = None,
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
                help="Keep decisions in this Study's history (in the store) and reuse them; "
                "without files, deduplicate the Study's own records into its working set.",
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
        explain: Annotated[
            tuple[str, str] | None,
            typer.Option(
                "--explain",
                metavar="A B",
                help="Show why records A and B did or did not merge (A, B: a record's id, "
                "FILE#N or N, 0-based); nothing is written.",
            ),
        ] = None,
        versions: Annotated[
            Path | None,
            typer.Option(
                "--versions",
                help="Write the versions of one work (preprint ↔ published, meeting abstract ↔ "
                "paper, erratum ↔ article; both kept) to this CSV file.",
            ),
        ] = None,
        force: Annotated[bool, typer.Option("--force", help="Overwrite the --out file.")] = False,
    ) -> None:
        """Find duplicate records across export files: identifiers first, then
        bibliographic similarity; uncertain pairs wait for review."""
        from litdesk.services.dedup import DedupRequest, ExplainRequest

        names = tuple(str(f) for f in files or ())
        decisions_file = str(decisions) if decisions else None
        if explain is not None:
            asked = ExplainRequest(
                files=names,
                a=explain[0],
                b=explain[1],
                format=format,
                auto_only=auto_only,
                decisions_file=decisions_file,
                merge_corrections=merge_corrections,
            )
            with sync_app() as opened:
                ex = opened.dedup.explain(asked, owner=opened.owner)
            if as_json:
                emit_json(ex.to_dict())
            else:
                _explain(ex)
            return
        request = DedupRequest(
            files=names,
            format=format,
            auto_only=auto_only,
            decisions_file=decisions_file,
            study=study,
            out=str(out) if out is not None else None,
            to=to,
            merge_corrections=merge_corrections,
            force=force,
            versions_out=str(versions) if versions is not None else None,
        )
        reviewer = _prompt if review and not auto_only else None
        with sync_app() as opened:
            outcome = opened.dedup.run(request, owner=opened.owner, reviewer=reviewer)
        report = outcome.report
        if as_json:
            emit_json(report.to_dict())
        else:
            _summary(report)
        if report.refused:
            raise typer.Exit(2)
