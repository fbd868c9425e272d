"""CLI: screening a Study from the terminal — ``litdesk screen settings | configure | next |
decide | undo | progress | history | retrieval | items | retrain`` — each with ``--json``
(the same document the web's JSON API answers). Errors exit with litdesk's statuses (2 bad
input, 3 refused, 4 not found).

The CLI runs no background worker: a decision queues the model's retrain, which a server's
worker runs, or ``litdesk screen retrain STUDY`` runs here; until then the order in force is
the previous model's (``screen next`` never waits for one)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Annotated

import typer

from litdesk._errors import InputError

from .._words import plural
from ._context import sync_app
from ._output import command, console, emit_json
from ._screen import screen_app
from ._workspace import JsonOpt, _say

#: where a queued retrain runs (said when the first model is due)
_RETRAIN = ": a server's worker runs it, or: litdesk screen retrain"

if TYPE_CHECKING:
    from litdesk.core.screening import Stage
    from litdesk.services.screening import CardView, DecisionView, ProgressView

__all__ = ["register"]

StudyArg = Annotated[str, typer.Argument(help="Study name or id.")]
StageOpt = Annotated[
    str,
    typer.Option("--stage", help="title_abstract (ta) or full_text (ft)."),
]
RecordArg = Annotated[
    str, typer.Argument(help="The record's key (any member record's key names its group).")
]


def _card(view: CardView, study: str) -> None:
    mine = view.progress.mine
    missing = mine.get("not_retrieved", 0)  # left, but passed over until marked retrieved
    held = f" ({missing:,} recorded not retrieved)" if missing else ""
    _say(
        f"[{view.stage}] {mine['screened']:,} of {mine['total']:,} screened by you, "
        f"{mine['included']:,} included; {mine['remaining']:,} left{held} — {view.order.label}"
    )
    news = view.progress.updates
    if news is not None:  # a living review: what its update rounds brought
        rounds = news.latest_label if news.rounds == 1 else f"The {news.rounds} update rounds"
        left = f"{news.awaiting:,} still yours to screen" if news.awaiting else "all screened"
        latest = f" (the latest, {news.latest_label}: {news.latest:,})" if news.rounds > 1 else ""
        _say(f"{rounds} added {plural(news.added, 'record')} to screen{latest}; {left}")
    if view.done:
        _say("Nothing left for you to screen at this stage.")
        if missing and missing >= mine["remaining"]:
            _say(
                f"The {plural(missing, 'report')} left {'is' if missing == 1 else 'are'} recorded "
                "not retrieved (PRISMA 2020: reports not retrieved); to decide on one, "
                f"first: litdesk screen retrieval {shlex.quote(study)} KEY --retrieved (their keys: "
                f"litdesk study prisma {shlex.quote(study)} --box not_retrieved)"
            )
        return
    _say(f"record {view.record_key}")
    _say(view.title or "(no title)")
    meta = ", ".join(
        x
        for x in (
            "; ".join(view.authors[:6]),
            str(view.year or ""),
            view.venue or "",
            f"doi:{view.doi}" if view.doi else "",
            f"PMID {view.pmid}" if view.pmid else "",
        )
        if x
    )
    if meta:
        _say(meta)
    _say("")
    _say(view.abstract or "(no abstract)")
    if view.keywords:
        _say("keywords: " + "; ".join(view.keywords))
    if len(view.members) > 1:
        _say(f"{plural(len(view.members), 'record')} in this group:")
        for m in view.members:
            found_in = " · ".join(x for x in (m["database"], m["source"], m["round"]) if x)
            _say(f"  {m['key']}  {found_in}: {m['title']}")
    if view.full_text is not None:
        ft = view.full_text
        where = []
        if ft["pdf"]:
            where.append(f"PDF {ft['pdf']['file']}")
        if ft["licensed_full_text"]:
            where.append("licensed full text")
        if ft["url"]:
            where.append(ft["url"])
        if ft["retrieval"]:
            where.append(f"marked {ft['retrieval']['status'].replace('_', ' ')}")
        _say("full text: " + (", ".join(where) or "none found yet"))
        if ft["pdf"] and ft["pdf"]["doubt"]:
            _say(ft["pdf"]["doubt"])
    if view.my_verdict:
        _say(f"your decision: {view.my_verdict}")


def _decision(view: DecisionView) -> None:
    e = view.entry
    if e["kind"] == "undo":
        _say(
            f"undone: decision {e['undoes']} on {view.record_key} at {view.stage}; "
            f"your decision now: {view.my_verdict or 'none'}"
        )
    else:
        why = f" ({e['reason']})" if e["reason"] else ""
        _say(f"{e['verdict']}{why}: {view.record_key} at {view.stage} (entry {e['id']})")
    if view.retrain_queued:
        _say("model retrain queued (a server's worker runs it, or: litdesk screen retrain)")


def _progress(view: ProgressView) -> None:
    mine = view.mine
    _say(
        f"[{view.stage}] you: {mine['screened']:,} of {mine['total']:,} screened, "
        f"{mine['included']:,} included, {mine['excluded']:,} excluded, {mine['maybe']:,} maybe"
    )
    if missing := mine.get("not_retrieved", 0):
        _say(
            f"left for you: {mine['remaining']:,}, {missing:,} of them recorded not retrieved "
            "(PRISMA does not count those as awaiting assessment)"
        )
    if view.all is not None:
        a = view.all
        _say(
            f"everyone: {a['screened']:,} of {a['total']:,} settled, {a['included']:,} "
            f"included, {a['excluded']:,} excluded, {a['maybe']:,} maybe; "
            f"{a['pending']:,} awaiting a second review, {a['conflicts']:,} in conflict"
            + (f"; {n:,} recorded not retrieved" if (n := a.get("not_retrieved", 0)) else "")
        )
    else:
        _say("blind: the other reviewers' decisions are hidden until the owner reveals them")
    _say(view.guidance.stopping.advice)
    m = view.model
    if m.state == "none":
        _say(f"model: none yet ({m.waiting_for}{_RETRAIN if m.due else ''})")
    else:
        _say(
            f"model: {m.name} v{m.version} trained on {'your ' if m.blind else ''}"
            f"{plural(m.trained_on, 'decision')} ({m.state})"
        )


def _flags(values: list[str] | None, what: str) -> dict[str, bool] | None:
    if not values:
        return None
    out: dict[str, bool] = {}
    for value in values:
        stage, sep, flag = value.partition("=")
        if not sep or flag.strip().lower() not in {"on", "off", "true", "false", "yes", "no"}:
            raise InputError(f"{what} is STAGE=on|off, not {value!r}", code="arguments")
        out[stage.strip()] = flag.strip().lower() in {"on", "true", "yes"}
    return out


def settings_cmd(study: StudyArg, as_json: JsonOpt = False) -> None:
    """Show a Study's screening settings: reasons, criteria, keywords, dual review."""
    from litdesk.services.screening import StudyScreenRequest

    with sync_app() as app:
        view = app.screening.settings(StudyScreenRequest(study), owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
        return
    c = view.settings
    _say(f"{view.study_name}: screening settings (your role: {view.role})")
    _say("exclusion reasons: " + "; ".join(c.reasons))
    _say(f"inclusion criteria: {c.inclusion or '(none)'}")
    _say(f"exclusion criteria: {c.exclusion or '(none)'}")
    _say(
        f"highlight: include {list(c.include_keywords) or '-'}; "
        f"exclude {list(c.exclude_keywords) or '-'}"
    )
    stages: tuple[Stage, ...] = ("title_abstract", "full_text")
    for stage in stages:
        dual = "dual review" if c.dual_review[stage] else "single review"
        shown = ", revealed" if c.revealed[stage] else ""
        _say(f"{stage}: {dual}{shown}")
    _say(f"maybe is a conflict: {'yes' if c.maybe_is_conflict else 'no'}")
    _say(f"default order: {c.default_order}")
    _say(f"model of the ranked order: {c.model}")


def configure_cmd(
    study: StudyArg,
    reason: Annotated[
        list[str] | None,
        typer.Option("--reason", help="An exclusion reason (repeat; replaces the list)."),
    ] = None,
    inclusion: Annotated[
        str | None, typer.Option("--inclusion", help="The inclusion criteria (text).")
    ] = None,
    exclusion: Annotated[
        str | None, typer.Option("--exclusion", help="The exclusion criteria (text).")
    ] = None,
    include_keyword: Annotated[
        list[str] | None,
        typer.Option("--include-keyword", help="A keyword highlighted as inclusion (repeat)."),
    ] = None,
    exclude_keyword: Annotated[
        list[str] | None,
        typer.Option("--exclude-keyword", help="A keyword highlighted as exclusion (repeat)."),
    ] = None,
    clear_keywords: Annotated[
        bool, typer.Option("--clear-keywords", help="Remove every highlighted keyword.")
    ] = False,
    dual_review: Annotated[
        list[str] | None,
        typer.Option("--dual-review", help="STAGE=on|off: two independent reviewers (repeat)."),
    ] = None,
    maybe_is_conflict: Annotated[
        bool | None,
        typer.Option(
            "--maybe-is-conflict/--maybe-is-not-conflict", help="Maybe vs include/exclude."
        ),
    ] = None,
    order: Annotated[
        str | None, typer.Option("--order", help="Default order: ranked, random or original.")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="The ranked order's model: litdesk-svm-2 or litdesk-handover (USE-m3 rows "
            "of each record, embedded by a background job; the default model ranks until then).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Change a Study's screening settings (its owner only); what is not given stays."""
    from litdesk.services.screening import ConfigureRequest

    if clear_keywords and (include_keyword or exclude_keyword):
        raise InputError("give --clear-keywords or keywords, not both", code="arguments")
    request = ConfigureRequest(
        study,
        reasons=reason or None,
        inclusion=inclusion,
        exclusion=exclusion,
        include_keywords=[] if clear_keywords else (include_keyword or None),
        exclude_keywords=[] if clear_keywords else (exclude_keyword or None),
        dual_review=_flags(dual_review, "--dual-review"),
        maybe_is_conflict=maybe_is_conflict,
        default_order=order,
        model=model,
    )
    with sync_app() as app:
        view = app.screening.configure(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    else:
        _say(f"{view.study_name}: screening settings saved")


def next_cmd(
    study: StudyArg,
    stage: StageOpt = "title_abstract",
    order: Annotated[
        str | None,
        typer.Option("--order", help="ranked, random or original (default: the Study's)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Draws the random order.")] = 1,
    retrain: Annotated[
        bool,
        typer.Option(
            "--retrain/--no-retrain",
            help="Run the model's queued retrain here first (the CLI has no background "
            "worker), so that the ranked order follows the decisions so far.",
        ),
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Show the next record for you to screen (its title, abstract, members, the order)."""
    from litdesk.services.screening import NextRequest, parse_stage

    with sync_app() as app:
        request = NextRequest(study, parse_stage(stage), order, seed)  # type: ignore[arg-type]
        view = app.screening.next(request, owner=app.owner)
        model = view.order.model
        stale = model.state == "retraining" or (model.state == "none" and model.due)
        if retrain and stale and view.order.wants_model and not view.done:
            app.screening.work_retrain(study, request.stage, owner=app.owner, embed=False)
            view = app.screening.next(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    else:
        _card(view, study)


def decide_cmd(
    study: StudyArg,
    record: RecordArg,
    verdict: Annotated[str, typer.Argument(help="include, exclude or maybe.")],
    reason: Annotated[
        str, typer.Option("--reason", help="Exclusion reason (required at full text).")
    ] = "",
    note: Annotated[str, typer.Option("--note", help="A note kept with the decision.")] = "",
    stage: StageOpt = "title_abstract",
    as_json: JsonOpt = False,
) -> None:
    """Record your decision on a record (a later one supersedes it; both are kept)."""
    from litdesk.services.screening import DecideRequest, parse_stage

    request = DecideRequest(
        study,
        parse_stage(stage),
        record,
        verdict,  # type: ignore[arg-type]  # checked by the request
        reason,
        note,
        "cli",
    )
    with sync_app() as app:
        view = app.screening.decide(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    else:
        _decision(view)


def undo_cmd(
    study: StudyArg,
    record: Annotated[
        str | None, typer.Argument(help="Only a decision on this record (default: your last).")
    ] = None,
    stage: StageOpt = "title_abstract",
    as_json: JsonOpt = False,
) -> None:
    """Undo your last decision at the stage (kept in the history, marked undone)."""
    from litdesk.services.screening import UndoRequest, parse_stage

    with sync_app() as app:
        view = app.screening.undo(
            UndoRequest(study, parse_stage(stage), record, "cli"), owner=app.owner
        )
    if as_json:
        emit_json(view.to_dict())
    else:
        _decision(view)


def progress_cmd(
    study: StudyArg, stage: StageOpt = "title_abstract", as_json: JsonOpt = False
) -> None:
    """Progress at a stage, stopping guidance (never an automatic stop) and the model."""
    from litdesk.services.screening import ProgressRequest, parse_stage

    with sync_app() as app:
        view = app.screening.progress(ProgressRequest(study, parse_stage(stage)), owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    else:
        _progress(view)


def history_cmd(study: StudyArg, record: RecordArg, as_json: JsonOpt = False) -> None:
    """Every decision on a record you may see, oldest first, with its status."""
    from litdesk.services.screening import HistoryRequest

    with sync_app() as app:
        view = app.screening.history(HistoryRequest(study, record), owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
        return
    _say(f"{view.record_key}: {view.title}")
    if not view.entries:
        _say("  no decisions yet")
    for e in view.entries:
        what = f"undo of {e['undoes']}" if e["kind"] == "undo" else f"{e['kind']} {e['verdict']}"
        why = f" ({e['reason']})" if e["reason"] else ""
        note = f" — {e['note']}" if e["note"] else ""
        if e.get("not_counted") and e["kind"] != "undo" and e["status"] == "current":
            note += f" [{e['not_counted']}]"
        _say(
            f"  {e['id']:>5}  {e['made_at'][:19]}  {e['stage']:<14} "
            f"{e.get('reviewer_name') or e['reviewer']}: "
            f"{what}{why} [{e['status']}]{note}"
        )
    for r in view.retrieval:
        _say(f"  full text {r['status'].replace('_', ' ')} ({r['by']}, {r['at'][:19]}) {r['note']}")


def retrieval_cmd(
    study: StudyArg,
    record: RecordArg,
    retrieved: Annotated[
        bool,
        typer.Option("--retrieved/--not-retrieved", help="Whether the full text was obtained."),
    ],
    note: Annotated[str, typer.Option("--note", help="Why, or where it came from.")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Record whether a record's full text was retrieved (PRISMA: reports not retrieved)."""
    from litdesk.services.screening import RetrievalRequest

    with sync_app() as app:
        view = app.screening.retrieval(
            RetrievalRequest(study, record, retrieved, note), owner=app.owner
        )
    if as_json:
        emit_json(view.to_dict())
    else:
        _say(f"{view.record_key}: full text {view.status.replace('_', ' ')}")


def items_cmd(
    study: StudyArg,
    stage: StageOpt = "title_abstract",
    status: Annotated[
        str,
        typer.Option(
            "--status",
            help="all, remaining, screened, included, excluded, maybe, conflict or mine.",
        ),
    ] = "all",
    page: Annotated[int, typer.Option("--page", min=1, help="Page (50 records each).")] = 1,
    as_json: JsonOpt = False,
) -> None:
    """The records behind a number: one page of a stage's records by status."""
    from litdesk.services.screening import ItemsRequest, parse_stage

    with sync_app() as app:
        request = ItemsRequest(study, parse_stage(stage), status, page)  # type: ignore[arg-type]
        view = app.screening.items(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
        return
    _say(
        f"[{view.stage}] {view.status}: {plural(view.total, 'record')}, page {view.page} of {view.pages}"
    )
    from ._tables import print_rows

    rows = view.rows
    verdicts = (r["verdict"] or r["my_verdict"] or "-" for r in rows)
    print_rows(
        console,
        ((r["record_key"], v, r["title"]) for r, v in zip(rows, verdicts, strict=True)),
        indent=2,
    )


def retrain_cmd(
    study: StudyArg, stage: StageOpt = "title_abstract", as_json: JsonOpt = False
) -> None:
    """Run the stage's queued model retrain here (a server's worker does it by itself)."""
    from litdesk.services.screening import parse_stage

    with sync_app() as app:
        model = app.screening.work_retrain(study, parse_stage(stage), owner=app.owner)
    if as_json:
        emit_json(model.to_dict())
    elif model.state == "none":
        _say(f"no model yet: {model.waiting_for}")
    else:
        _say(
            f"model {model.name} v{model.version} trained on "
            f"{plural(model.trained_on, 'decision')} ({model.state})"
        )


def register(app: typer.Typer) -> None:
    """Add the screening commands to ``litdesk screen`` (``app`` holds the group)."""
    for name, fn in (
        ("settings", settings_cmd),
        ("configure", configure_cmd),
        ("next", next_cmd),
        ("decide", decide_cmd),
        ("undo", undo_cmd),
        ("progress", progress_cmd),
        ("history", history_cmd),
        ("retrieval", retrieval_cmd),
        ("items", items_cmd),
        ("retrain", retrain_cmd),
    ):
        screen_app.command(name)(command(fn))
