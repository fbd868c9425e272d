"""Run exports and reports: manifest JSON, RIS (conflicted hits excluded), PRISMA-S
Markdown/HTML for a run or a Study, frozen evaluation fixtures, offline evaluation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.adapters.files import read_bounded
from litdesk.adapters.formats import dumps as dump_papers
from litdesk.adapters.store import LOCAL_OWNER, Store, repo, study_records
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.providers import display_name
from litdesk.core.runs import (
    Evaluation,
    ImportSource,
    PrismaReport,
    SearchRound,
    SearchRun,
    bibliography,
    build_prisma,
    evaluate,
    instant,
    make_manifest,
    prisma_html,
    prisma_markdown,
    read_frozen_runs,
    read_judgments,
    read_manifest,
    read_run,
    round_label,
    study_rounds,
)
from litdesk.services.dedup import StepChecks, identification, study_decisions

from ._fused import load_run
from ._requests import EXPORTS

__all__ = [
    "EVAL_INPUT_BYTES",
    "EXPORTS",
    "ExportArgumentError",
    "evaluate_files",
    "export_run",
    "load_run_with_hits",
    "study_prisma",
]

EVAL_INPUT_BYTES: Final = 5_000_000


class ExportArgumentError(InputError):
    default_code = "bad_argument"


def _manifest_text(run: SearchRun) -> str:
    text = json.dumps(make_manifest(run), ensure_ascii=False, indent=2, sort_keys=True)
    read_manifest(text)  # what we hand out must read back
    return text + "\n"


def export_run(run: SearchRun, to: str) -> str:
    """A run as ``json`` (its manifest), ``ris``, ``prisma-md`` or ``prisma-html``."""
    if to == "json":
        return _manifest_text(run)
    if to == "ris":  # every hit (the manifest keeps 150): the manifest's bibliography fields
        return dump_papers([bibliography(h.paper) for h in run.hits if not h.conflicts], "ris")
    if to in ("prisma-md", "prisma-html"):
        report = build_prisma(f"search run {run.id}", [run], [])
        return prisma_markdown(report) if to == "prisma-md" else prisma_html(report)
    raise ExportArgumentError(f"--to must be one of {', '.join(EXPORTS)}, not {to[:40]!r}")


def load_run_with_hits(store: Store, run_id: str) -> SearchRun:
    """A saved run with every hit: a whole search (``study add-search``, an update round)
    keeps its hits as rows (``search_run_hits``), not in the run's document, so without them
    its RIS was empty and its PRISMA-S counted every record as a duplicate."""
    run = load_run(store, run_id)
    with store.read() as conn:
        hits = [h.data for h in whole.run_hits(conn, run_id)]
    if not hits:
        return run
    return read_run(run.to_dict() | {"hits": hits}, max_hits=len(hits))


def study_prisma(
    store: Store, study: str, *, owner: str = LOCAL_OWNER, checks: StepChecks | None = None
) -> PrismaReport:
    """The PRISMA-S report of a Study (an id, or a name as ``owner`` sees them): its saved
    runs and its imports. Whether ``owner`` may read it is the caller's check. ``checks``:
    the app's in-step checks of its Studies (:func:`identification`; without them, the
    diagnostic runs every time).

    The report's numbers are the Study's own (its records and working set): a whole
    search's hits (rows beside its run, not in its document) are not read: they were read
    and validated at each report for papers it never counts (a 7,100-record Study's report
    took 211 ms with them and the in-step check each time, 93 ms without)."""
    from litdesk.services.workspace import import_source_row, read_import_row

    with store.read() as conn:
        row = repo.get_study(conn, study, account=owner)
        run_ids = repo.study_run_ids(conn, row.id)
        docs = repo.list_documents(conn, "imports", study_id=row.id, limit=100_000)
        rounds = whole.list_rounds(conn, row.id)
        begun = whole.begun_rounds(conn, row.id)  # update rounds begun by hand (issue 28)
        joined = {(s.kind, s.id): s.at for s in study_records.study_sources(conn, row.id)}
    # every round's searches are listed, each with its round and its own date (PRISMA-S
    # item 13); a kept run and an import are placed by the rule PRISMA 2020's columns
    # read (StudyRounds.round_of: the round in force when they joined the Study)
    placed = _placed(rounds, begun, joined, [*run_ids, *(r.run_id for r in rounds)], docs)
    ordered = sorted(
        dict.fromkeys([*run_ids, *(r.run_id for r in rounds)]),
        key=lambda rid: placed.get(rid, -1),
    )
    runs = [load_run(store, rid) for rid in ordered]  # a whole search's: without its hits
    imports: list[ImportSource] = []
    for doc in docs:
        trace = read_import_row(doc)[0]
        label = f"{Path(trace.source.path).name} ({trace.source.format})"
        named = import_source_row(doc)
        imports.append(
            ImportSource(
                doc.id, label, doc.created_at, tuple(trace.papers), trace.source.sha256,
                tuple(r.digest for r in trace.records), named.name if named else None,
            )
        )  # fmt: skip
    # the Study's own numbers (its working set); a Study with nothing in it yet has a report
    # too: every count 0 (a new Study's PRISMA page is not "not found")
    counts = identification(store, row.id, checks=checks)
    decisions = study_decisions(store, row.id, owner=owner)
    report = build_prisma(
        row.name, runs, imports, decisions=decisions, working_set=counts, rounds=placed
    )
    return replace(
        report,
        notes=report.notes + _round_notes(rounds),
        rounds=_search_rounds(rounds, {r.id: r.retrieved_at for r in runs if _replayed(r)}, begun),
        source_kinds=_source_kinds(store, row.id, docs),
    )


def _source_kinds(store: Store, study_id: str, docs: list[repo.DocumentRow]) -> dict[str, str]:
    """Where PRISMA 2020 counts each source of the Study's records, as its flow does: an
    import's named kind, another method for papers added by hand or from Zotero, else a
    register when the name says so (issue 28)."""
    from litdesk.core.imports import kind_of_name
    from litdesk.services.workspace import import_source_row

    named = {s.name: s.kind for d in docs if (s := import_source_row(d)) is not None}
    with store.read() as conn:
        found = study_records.database_source_kinds(conn, study_id)
    return {
        db: named.get(db) or ("other" if "paper" in kinds else kind_of_name(db))
        for db, kinds in found.items()
    }


def _placed(
    rounds: list[whole.RoundRow],
    begun: list[whole.BegunRound],
    joined: dict[tuple[str, str], str],
    run_ids: list[str],
    docs: list[repo.DocumentRow],
) -> dict[str, int]:
    """Run and import id → its search round, by the one rule (:class:`StudyRounds`); empty
    for a Study without whole searches or rounds begun by hand (its kept runs are "saved
    run"s, as before)."""
    if not rounds and not begun:
        return {}
    plan = study_rounds(
        ((r.run_id, r.round, r.created_at) for r in rounds), ((b.round, b.began_at) for b in begun)
    )
    out = {
        rid: plan.whole[rid]
        if rid in plan.whole
        else plan.round_of("run", rid, joined[("run", rid)])
        for rid in run_ids
    }
    for d in docs:
        out[d.id] = plan.round_of("import", d.id, joined.get(("import", d.id), d.created_at))
    return out


def _count(report: dict[str, Any], key: str) -> int:
    value = report.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _replayed(run: SearchRun) -> bool:
    """A run answered from a cassette: dated when its databases were searched (its
    recording), executed when it was replayed."""
    return not run.reuse and run.executed_at != run.retrieved_at


def _search_rounds(
    rounds: list[whole.RoundRow],
    searched: dict[str, str],
    begun: Sequence[whole.BegunRound] = (),
) -> tuple[SearchRound, ...]:
    """Each search round of the Study on its own: its first date, its searches and the
    records they retrieved, new to the Study, already in it, changed, retracted since. A
    replayed search counts from when its databases were searched (``searched``: by run),
    not when the replay added it. A round begun by hand (``study round``) is dated when it
    began; without a whole search its figures are 0 (its imports are listed with it)."""
    by_round: dict[int, list[whole.RoundRow]] = {b.round: [] for b in begun}
    for r in rounds:
        by_round.setdefault(r.round, []).append(r)
    began = {b.round: b.began_at for b in begun}
    out: list[SearchRound] = []
    for number, rows in sorted(by_round.items()):
        reports = [r.report or {} for r in rows]
        dated = [searched.get(r.run_id, r.created_at) for r in rows]
        out.append(
            SearchRound(
                number,
                min([*dated, *([began[number]] if number in began else [])], key=instant),
                len(rows),
                sum(_count(x, "records") for x in reports),
                sum(_count(x, "new") for x in reports),
                sum(_count(x, "already_known") for x in reports),
                sum(_count(x, "changed") for x in reports),
                sum(_count(x, "retracted_since") for x in reports),
            )
        )
    return tuple(out)


def _figure(value: object) -> str:
    """A count as the report writes it (``70,498``); an unknown one is ``unknown``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "unknown"


def _round_notes(rounds: list[whole.RoundRow]) -> tuple[str, ...]:
    """A Study's whole searches as PRISMA-S notes: each capped or partial lane (each
    round's own figures are its row in the report's search rounds)."""
    out: list[str] = []
    for r in rounds:
        report = r.report or {}
        for lane in report.get("lanes", []):
            if isinstance(lane, dict) and lane.get("state") != "complete":
                # the database's name and figures as the rest of the report gives them
                # (before: "semanticscholar …, 50 of 70498", a failed lane "0 of None")
                out.append(
                    f"{display_name(str(lane.get('provider')))} ({round_label(r.round)}): "
                    f"{lane.get('state')}, {_figure(lane.get('retrieved'))} of "
                    f"{_figure(lane.get('total'))} records retrieved "
                    f"(cap {_figure(lane.get('cap'))} per lane)"
                    + (f": {lane.get('message')}" if lane.get("message") else "")
                )
    return tuple(out)


def _load_input(path: Path, label: str) -> Any:
    data = read_bounded(path, limit=EVAL_INPUT_BYTES, label=label)
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise ExportArgumentError(f"{label} is not valid JSON", code="eval_input") from None


def evaluate_files(runs: Path, judgments: Path | None, *, k: int = 10) -> Evaluation:
    """Offline evaluation of frozen runs (inputs at most 5 MB each)."""
    if not 1 <= k <= 1000:
        raise ExportArgumentError("--k must be 1 to 1000")
    frozen = read_frozen_runs(_load_input(runs, "the runs file"))
    graded = read_judgments(_load_input(judgments, "the judgments file")) if judgments else {}
    return evaluate(frozen, graded, k=k)
