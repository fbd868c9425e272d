"""The use cases of the screening area's team half (issue 28), called by the thin methods
at the end of :class:`~._area.ScreeningArea`: the resolution queue, reveal and resolve,
agreement, decisions imported and exported, and the Study's PRISMA 2020 flow.

Roles: readers of the Study view (the queue once revealed, agreement once revealed, the
flow, the exports); members import their own decisions and, as a third reviewer, resolve a
conflict they took no part in; the Study owner reveals, resolves any conflict, and imports
decisions on other reviewers' behalf (a Rayyan file with several reviewers). Every write is
appended under the Study's screening lock in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Final, cast

from sqlalchemy.engine import Connection

from litdesk._errors import NotFoundError
from litdesk.adapters.store import Store, screening
from litdesk.adapters.store import accounts as access
from litdesk.core.screening import (
    BOXES,
    STAGES,
    DecisionHistory,
    ImportedDecisions,
    Outcome,
    Stage,
    parse_decisions,
    prisma_svg,
)
from litdesk.core.words import plural
from litdesk.services.dedup import working_groups
from litdesk.services.search import Export

from ._config import ScreeningConfig
from ._exchange import decisions_csv, decisions_ris, group_rounds
from ._items import ScreenSet, build_screen_set, history_of
from ._papers import PaperOutcomes, paper_outcomes
from ._parts import AreaParts
from ._prisma import FlowResult, compute_flow, not_retrieved_groups, not_retrieved_now, study_plan
from ._prisma_lists import record_row, source_list, study_list
from ._requests import (
    ConfigureRequest,
    ScreeningRequestError,
    StudyScreenRequest,
    StudyStageRequest,
)
from ._state import NOT_RETRIEVED
from ._team import agreement_pairs, conflict_queue, conflict_rows, plan_import
from ._team_requests import (
    RECORDS_PAGE,
    SOURCE_BOXES,
    AgreementRequest,
    AgreementView,
    ConflictsRequest,
    ConflictsView,
    ExportDecisionsRequest,
    ImportDecisionsRequest,
    ImportDecisionsView,
    PrismaFlowRequest,
    PrismaFlowView,
    PrismaRecordsRequest,
    PrismaRecordsView,
    ResolveRequest,
    RevealView,
)
from ._views import DecisionView
from ._zip_fulltext import (
    RetrievalRecorded,
    latest_retrieval,
    record_retrieval,
    sought_reports_csv,
)
from ._zip_history import ZipHistoryView, history_members, record_history

__all__ = [
    "NotInConflict",
    "TeamScreening",
    "agreement_of",
    "conflicts_of",
    "export_decisions",
    "import_decisions",
    "prisma_flow",
    "prisma_records",
    "retrieval_papers",
    "sought_papers",
    "prisma_svg_export",
    "resolve",
    "reveal",
    "study_flow",
]


class NotInConflict(ScreeningRequestError):
    """The record is not in the resolution queue (its reviewers agree, or it waits for its
    second reviewer), or the stage is still blind."""

    default_code = "not_in_conflict"


class NotPermitted(access.NotPermitted):
    """A member may resolve only conflicts they took no part in (a third reviewer)."""


def _area(methods: TeamScreening) -> AreaParts:
    """The area whose base class the team methods are."""
    return cast("AreaParts", methods)


def _warm(area: AreaParts, ref: str, owner: str) -> None:
    """Build the Study's screen set before a write transaction: building it reconciles the
    records, a write of its own (on SQLite a second writer would wait for the first)."""
    with area.store.read() as conn:
        study, _ = area._study(conn, ref, owner, "write")
    area.cache.screen_set(study.id, reconcile=True)


def conflicts_of(area: AreaParts, request: ConflictsRequest, owner: str) -> ConflictsView:
    """One page of the stage's resolution queue (empty while blind), with the counts of
    conflicts waiting and resolved; a page past the last gives the last."""
    ctx = area._ctx(request.study, owner)
    stage = request.stage
    config = ctx.config
    blind = config.blind(stage)
    queue = conflict_queue(ctx.screen, ctx.history, config, stage, request.status)
    listed = () if blind else queue.listed
    size = request.per_page
    pages = max(1, -(-len(listed) // size))
    page = min(request.page, pages)
    shown = listed[(page - 1) * size : page * size]
    names = area._reviewer_names(
        d.reviewer for o in shown for d in (*o.decisions, o.resolution) if d is not None
    )
    return ConflictsView(
        ctx.study.id,
        stage,
        config.dual_review[stage],
        config.revealed[stage] or not config.dual_review[stage],
        config.maybe_is_conflict,
        ctx.role in ("owner", "editor") and not blind,
        conflict_rows(ctx.screen, shown, names),
        0 if blind and ctx.role != "owner" else queue.resolved,
        0 if blind else queue.waiting,
        request.status,
        len(listed),
        page,
        pages,
        size,
    )


def reveal(area: AreaParts, request: StudyStageRequest, owner: str) -> RevealView:
    """Reveal the stage's decisions (the Study owner only): its conflicts go to the queue."""
    area.configure(ConfigureRequest(request.study, revealed={request.stage: True}), owner=owner)
    ctx = area._ctx(request.study, owner)
    queue = conflict_queue(ctx.screen, ctx.history, ctx.config, request.stage)
    return RevealView(ctx.study.id, request.stage, True, queue.waiting)


def resolve(area: AreaParts, request: ResolveRequest, owner: str) -> DecisionView:
    """Settle a record in the queue (or change its resolution): the Study owner, or a
    member who is not one of its reviewers; both original decisions stay."""
    stage = request.stage
    _warm(area, request.study, owner)
    with area.store.write() as conn:
        study, role = area._study(conn, request.study, owner, "write")
        area.store.lock(conn, screening.SCREENING_LOCK, study.id)
        config, _ = area._config(conn, study.id)
        screen = area.cache.screen_set(study.id)
        group = screen.group(request.record_key)
        if group is None:
            raise NotFoundError(
                f"record {request.record_key[:80]!r} is not in this Study's working set",
                code="record_not_screenable",
            )
        if config.blind(stage):
            raise NotInConflict(
                f"{stage} is blind until the Study's owner reveals it", code="blind"
            )
        if stage == "full_text" and group.key in not_retrieved_now(conn, study.id, screen.group_of):
            raise ScreeningRequestError(NOT_RETRIEVED % group.key[:80], code="not_retrieved")
        history, _, _ = area.cache.history(study.id, screen, conn=conn)
        outcome = history.outcome(group.key, stage, config.policy(stage))
        if outcome.status not in ("conflict", "resolved"):
            raise NotInConflict(
                f"record {group.key[:80]!r} is not in conflict at {stage} ({outcome.status})"
            )
        if role != "owner" and any(d.reviewer == owner for d in outcome.decisions):
            raise NotPermitted(
                "a conflict you took part in is resolved by the Study's owner or a third "
                "reviewer (or change your own decision)"
            )
        reason = request.reason
        if stage == "full_text" and request.verdict == "exclude":
            reason = config.exclusion_reason(reason)
        elif reason:
            reason = config.reason_in_list(reason) or reason
        row = screening.add_decision(
            conn,
            study.id,
            record_key=group.key,
            stage=stage,
            reviewer=owner,
            kind="resolution",
            verdict=request.verdict,
            reason=reason,
            note=request.note,
            source="api",
            made_at=area._now(),
        )
    queued = area._after_decision(study.id, stage)
    return area._decision_view(study.id, stage, row, owner, queued)


def agreement_of(area: AreaParts, request: AgreementRequest, owner: str) -> AgreementView:
    """Kappa and percent agreement per pair and stage (blind stages: the Study owner only)."""
    ctx = area._ctx(request.study, owner)
    pairs, hidden = agreement_pairs(
        ctx.history, ctx.config, stage=request.stage, sees_all=ctx.role == "owner"
    )
    names = area._reviewer_names(str(r) for p in pairs for r in _listed(p.get("reviewers")))
    named = tuple(
        p | {"reviewer_names": [names[str(r)] for r in _listed(p.get("reviewers"))]} for p in pairs
    )
    return AgreementView(ctx.study.id, named, hidden)


def _listed(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def import_decisions(
    area: AreaParts, request: ImportDecisionsRequest, owner: str
) -> ImportDecisionsView:
    """Record a file's decisions (matched by DOI, PMID, key, title); unmatched rows are
    listed with their lines; decisions already recorded are not recorded again."""
    reviewer = request.reviewer
    with area.store.read() as conn:  # the acting account may screen: before the file is read
        study, _ = area._study(conn, request.study, owner, "write")
        if reviewer is not None:  # a user name stands for its account, which must screen
            reviewer = _screener(conn, study.id, reviewer)
    text = _text_of(request.data)
    parsed = parse_decisions(text, format=request.format or "auto")
    stage = request.stage
    mapped = _reviewer_map(area, request, parsed, owner)
    _warm(area, request.study, owner)
    with area.store.write() as conn:
        study, role = area._study(conn, request.study, owner, "write")
        area.store.lock(conn, screening.SCREENING_LOCK, study.id)
        config, _ = area._config(conn, study.id)
        screen = area.cache.screen_set(study.id)
        history, _, _ = area.cache.history(study.id, screen, conn=conn)
        plan = plan_import(
            parsed, screen, history, config, stage=stage, reviewer=reviewer, acting=owner,
            reviewer_map=mapped, sees_blind=role == "owner",
            not_retrieved=not_retrieved_now(conn, study.id, screen.group_of),
        )  # fmt: skip
        others = [r for r in plan.reviewers if r != owner]
        if others and role != "owner":  # said by user name; the ids in the details only
            names = access.account_names(conn, others[:5])
            raise access.NotPermitted(
                "only the Study's owner records decisions for other reviewers "
                f"({', '.join(names.get(r, r) for r in others[:5])})",
                reviewers=others,
            )
        now = area._now()
        for p in plan.record:
            screening.add_decision(
                conn,
                study.id,
                record_key=p.record_key,
                stage=stage,
                reviewer=p.reviewer,
                kind="decision",
                verdict=p.verdict,
                reason=p.reason,
                note=p.note,
                source=f"import:{parsed.format}",
                made_at=now,
            )
        if plan.record:
            access.add_history(conn, study.id, owner, "screening_imported", None, now)
    if plan.record:  # blind: each imported reviewer's own model too
        area._after_decision(study.id, stage, {p.reviewer for p in plan.record})
    names = area._reviewer_names(plan.reviewers)
    return ImportDecisionsView(
        study.id,
        request.filename,
        parsed.format,
        stage,
        plan.reviewers,
        len(parsed.decisions),
        len(plan.record),
        plan.unchanged,
        parsed.skipped,
        tuple(u.to_dict() for u in plan.unmatched),
        tuple(u.to_dict() for u in plan.refused),
        plan.matched_by,
        tuple({"line": line, "reason": why} for line, why in parsed.problems),
        tuple(names[r] for r in plan.reviewers),
    )


def _screener(conn: Connection, study_id: str, name: str) -> str:
    """The reviewer ``name`` stands for: the id of the account with that user name, which
    must screen in the Study (its owner or a member who edits); else the name itself (a
    reviewer without an account: a local workspace, or someone who screened elsewhere)."""
    found = access.find_account(conn, name)
    if found is None:
        return name
    if access.study_role(conn, found.id, study_id) not in ("owner", "editor"):
        raise ScreeningRequestError(
            f"{name[:60]} does not screen in this Study (add them as a member first)",
            code="not_a_screener",
        )
    return found.id


def _reviewer_map(
    area: AreaParts, request: ImportDecisionsRequest, parsed: ImportedDecisions, owner: str
) -> dict[str, str]:
    """The request's map as Rayyan name (casefolded) → reviewer to record: an account's id
    where the name is an account's, which must screen in the Study (a member who edits, or
    its owner); every Rayyan name in it must have decided in the file (a misspelt name
    would import nothing, unsaid)."""
    if not request.reviewer_map:
        return {}
    if parsed.format != "rayyan":
        raise ScreeningRequestError(
            "a reviewer map is for Rayyan's export (its reviewers' names)",
            code="bad_reviewer_map",
        )
    in_file = {n.casefold(): n for n in parsed.reviewers()}
    absent = [name for name, _ in request.reviewer_map if name.casefold() not in in_file]
    if absent:
        raise ScreeningRequestError(
            f"the reviewer map names {', '.join(repr(a[:60]) for a in absent[:5])}, who made "
            f"no decision in the file (its reviewers: {', '.join(in_file.values()) or 'none'})",
            code="bad_reviewer_map",
        )
    mapped: dict[str, str] = {}
    with area.store.read() as conn:
        study, _ = area._study(conn, request.study, owner, "read")
        for name, who in request.reviewer_map:
            mapped[name.casefold()] = _screener(conn, study.id, who)
    return mapped


#: settings a Study's ZIP does not carry (they name the reviewers and their state)
_NOT_CARRIED: Final = frozenset({"dual_review", "revealed"})


def _settings_request(study: str, body: bytes) -> ConfigureRequest:
    """A ZIP's screening settings as a request (read as stored settings are, then
    validated as any change is)."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ScreeningRequestError(
            f"the screening settings could not be read: {str(exc)[:120]}", code="bad_settings"
        ) from None
    if not isinstance(data, dict):
        raise ScreeningRequestError("the screening settings are not an object", code="bad_settings")
    c = ScreeningConfig.from_json(data)
    return ConfigureRequest(
        study, reasons=c.reasons, inclusion=c.inclusion, exclusion=c.exclusion,
        include_keywords=c.include_keywords, exclude_keywords=c.exclude_keywords,
        maybe_is_conflict=c.maybe_is_conflict, default_order=c.default_order, model=c.model,
    )  # fmt: skip


def _text_of(data: bytes) -> str:
    """A decisions file's text: UTF-8 (with or without a BOM), else Windows-1252 as
    spreadsheets on Windows save it, else Latin-1 (every byte a character: nothing lost)."""
    for codec in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _own_outcomes(history: DecisionHistory, stage: Stage, reviewer: str) -> dict[str, Outcome]:
    """A blind reviewer's view: their own current decisions as the outcomes."""
    return {
        record: Outcome(record, stage, "pending", d.verdict, (d,))
        for (record, _, _), d in history.current(stage=stage, reviewer=reviewer).items()
    }


def export_decisions(area: AreaParts, request: ExportDecisionsRequest, owner: str) -> Export:
    """The stage's decisions, one row per study (blind: the reader's own, unless owner);
    at full text, one row per report sought for retrieval (included or maybe at title and
    abstract, every round: the flow's ``sought``, as :func:`retrieval_papers` and the
    Study ZIP's full-text file), not every study of the working set."""
    ctx = area._ctx(request.study, owner)
    stage = request.stage
    if ctx.config.blind(stage) and ctx.role != "owner":
        outcomes = _own_outcomes(ctx.history, stage, owner)
    else:
        outcomes = {o.record: o for o in ctx.history.outcomes(stage, ctx.config.policy(stage))}
    groups = ctx.screen.groups
    if stage == "full_text":
        flow = study_flow(
            area.store, ctx.study.id, role=ctx.role, screen=ctx.screen, history=ctx.recorded,
            config=ctx.config, not_retrieved=ctx.not_retrieved,
        ).flow  # fmt: skip
        sought = set(flow.records("sought"))
        groups = tuple(g for g in groups if g.key in sought)
    names = area._reviewer_names(
        d.reviewer for o in outcomes.values() for d in (*o.decisions, o.resolution) if d
    )
    with area.store.read() as conn:
        rounds = group_rounds(groups, study_plan(conn, ctx.study.id))
    slug = "".join(c if c.isalnum() else "-" for c in ctx.study.name.lower()).strip("-")[:60]
    name = f"screening-{slug or 'study'}-{stage}"
    if request.format == "ris":
        body = decisions_ris(groups, outcomes, stage, names, rounds)
        return Export(body.encode("utf-8"), f"{name}.ris", "application/x-research-info-systems",
                      len(groups))  # fmt: skip
    body = decisions_csv(groups, outcomes, names, rounds)
    return Export(body.encode("utf-8"), f"{name}.csv", "text/csv; charset=utf-8", len(groups))


def study_flow(
    store: Store,
    study_id: str,
    *,
    role: str,
    screen: ScreenSet | None = None,
    history: DecisionHistory | None = None,
    config: ScreeningConfig | None = None,
    not_retrieved: Collection[str] | None = None,
) -> FlowResult:
    """A Study's PRISMA 2020 flow (the screen set, history and reports not retrieved when
    the caller has them). A stage still blind is counted for the Study owner only; others
    see it as not yet screened, said so in the notes."""
    with store.read() as conn:
        plan = study_plan(conn, study_id)
        retrieval = [] if not_retrieved is not None else screening.list_retrieval(conn, study_id)
        if config is None:
            stored = screening.get_settings(conn, study_id)
            config = ScreeningConfig.from_json(stored.data if stored else None)
        rows = None if history is not None else screening.list_decisions(conn, study_id)
    if screen is None:
        groups = tuple(working_groups(store, study_id))
        group_of = {m.key: g.key for g in groups for m in g.members} | {
            g.key: g.key for g in groups
        }
    else:
        groups, group_of = screen.groups, screen.group_of
    if history is None:
        assert rows is not None
        history, _ = history_of(rows, group_of)
    hidden = [s for s in STAGES if config.blind(s) and role != "owner"]
    if hidden:
        history = history.without(lambda e: e.stage in hidden)
    result = compute_flow(
        groups,
        history=history,
        policies={s: config.policy(s) for s in STAGES},
        not_retrieved=not_retrieved
        if not_retrieved is not None
        else not_retrieved_groups(((r.record_key, r.status) for r in retrieval), group_of),
        rounds=plan,
    )
    if hidden:
        words = {"title_abstract": "title and abstract", "full_text": "full text"}
        at = " and ".join(words[s] for s in hidden)
        note = f"decisions at {at} are blind until the Study's owner reveals them"
        result = replace(result, notes=(*result.notes, note))
    return result


def prisma_flow(area: AreaParts, request: PrismaFlowRequest, owner: str) -> PrismaFlowView:
    """The Study's PRISMA 2020 flow as data, with its Markdown and CSV."""
    ctx = area._ctx(request.study, owner, reconcile=True)
    result = study_flow(
        area.store, ctx.study.id, role=ctx.role, screen=ctx.screen, history=ctx.recorded,
        config=ctx.config, not_retrieved=ctx.not_retrieved,
    )  # fmt: skip
    flow = result.flow
    return PrismaFlowView(
        ctx.study.id, ctx.study.name, result.to_dict(), flow.to_markdown(), flow.to_csv(),
        heads=(*(r.label for r in flow.rounds), "Total"),
        lines=tuple((label, tuple(values)) for label, values in flow.rows()),
    )  # fmt: skip


def prisma_svg_export(area: AreaParts, request: PrismaFlowRequest, owner: str) -> Export:
    """The flow diagram as SVG, Markdown or CSV (a file to download)."""
    view_ctx = area._ctx(request.study, owner, reconcile=True)
    result = study_flow(
        area.store, view_ctx.study.id, role=view_ctx.role, screen=view_ctx.screen,
        history=view_ctx.recorded, config=view_ctx.config, not_retrieved=view_ctx.not_retrieved,
    )  # fmt: skip
    slug = "".join(c if c.isalnum() else "-" for c in view_ctx.study.name.lower()).strip("-")
    name = f"prisma-2020-{slug[:60] or 'study'}"
    total = sum(len(r.included) for r in result.flow.rounds)
    if request.format == "md":
        return Export(result.flow.to_markdown().encode(), f"{name}.md",
                      "text/markdown; charset=utf-8", total)  # fmt: skip
    if request.format == "csv":
        return Export(result.flow.to_csv().encode(), f"{name}.csv", "text/csv; charset=utf-8",
                      total)  # fmt: skip
    svg = prisma_svg(result.flow, title=f"PRISMA 2020 flow diagram: {view_ctx.study.name}")
    return Export(svg.encode(), f"{name}.svg", "image/svg+xml", total)


def sought_papers(store: Store, study_id: str, *, role: str) -> frozenset[str]:
    """The saved papers of the studies sought for retrieval — PRISMA's "reports sought"
    (included or "maybe" at title/abstract), every round — as :func:`study_flow` counts
    them for ``role`` (a title/abstract stage still blind: for the Study owner only)."""
    return retrieval_papers(store, study_id, role=role)[0]


def retrieval_papers(
    store: Store, study_id: str, *, role: str
) -> tuple[frozenset[str], frozenset[str]]:
    """The saved papers sought for retrieval (as :func:`sought_papers`) and those of them
    recorded not retrieved — PRISMA's "reports not retrieved" — from one flow."""
    screen = build_screen_set(store, study_id)
    flow = study_flow(store, study_id, role=role, screen=screen).flow

    def papers(box: str) -> frozenset[str]:
        keys = set(flow.records(box))
        return frozenset(
            m.paper_id for g in screen.groups if g.key in keys for m in g.members if m.paper_id
        )

    return papers("sought"), papers("not_retrieved")


def prisma_records(area: AreaParts, request: PrismaRecordsRequest, owner: str) -> PrismaRecordsView:
    """The records behind a number of the flow (a box in a round, or in all rounds): the
    studies of a screening box, or the source records of "Records identified" (a kind of
    source, one source) and "Duplicate records removed" (each naming the record kept)."""
    ctx = area._ctx(request.study, owner, reconcile=True)
    result = study_flow(
        area.store, ctx.study.id, role=ctx.role, screen=ctx.screen, history=ctx.recorded,
        config=ctx.config, not_retrieved=ctx.not_retrieved,
    )  # fmt: skip
    rounds = result.flow.rounds
    if request.round is not None and request.round > len(rounds):
        raise ScreeningRequestError(
            f"the flow has {plural(len(rounds), 'round')}, not {request.round}", code="bad_round"
        )
    at = range(len(rounds)) if request.round is None else (request.round - 1,)
    listed = (
        source_list([result.identified[i] for i in at], request)
        if request.box in SOURCE_BOXES
        else study_list([rounds[i] for i in at], request)
    )
    pages = max(1, -(-len(listed) // RECORDS_PAGE))
    page = min(request.page, pages)
    shown = listed[(page - 1) * RECORDS_PAGE : page * RECORDS_PAGE]
    label = "all rounds" if request.round is None else rounds[request.round - 1].label
    return PrismaRecordsView(
        ctx.study.id, request.box, label, len(listed),
        tuple(record_row(ctx.screen, item) for item in shown), page, pages,
        label=dict(BOXES)[request.box], reason=request.reason, round_no=request.round,
        study=ctx.study.name, kind=request.kind, source=request.source,
    )  # fmt: skip


class TeamScreening:
    """The team half of :class:`~._area.ScreeningArea` (its base class): each method one
    use case of this module, the acting account as ``owner=``."""

    def conflicts(self, request: ConflictsRequest, *, owner: str) -> ConflictsView:
        """One page of the stage's resolution queue (unresolved, resolved or all; empty
        while the stage is blind), with the counts waiting and resolved."""
        return conflicts_of(_area(self), request, owner)

    def reveal(self, request: StudyStageRequest, *, owner: str) -> RevealView:
        """Reveal a stage's decisions and open its conflicts (the Study owner only)."""
        return reveal(_area(self), request, owner)

    def resolve(self, request: ResolveRequest, *, owner: str) -> DecisionView:
        """Settle a conflict (the owner, or a third reviewer); both originals stay."""
        return resolve(_area(self), request, owner)

    def agreement(self, request: AgreementRequest, *, owner: str) -> AgreementView:
        """Cohen's kappa and percent agreement per reviewer pair and stage, over time."""
        return agreement_of(_area(self), request, owner)

    def import_decisions(
        self, request: ImportDecisionsRequest, *, owner: str
    ) -> ImportDecisionsView:
        """Record a CSV / ASReview / Rayyan file's decisions (unmatched rows by line)."""
        return import_decisions(_area(self), request, owner)

    def export_decisions(self, request: ExportDecisionsRequest, *, owner: str) -> Export:
        """The stage's decisions as CSV or RIS (labels and reasons in notes)."""
        return export_decisions(_area(self), request, owner)

    def zip_members(self, study: str, *, owner: str) -> dict[str, bytes]:
        """For the Study's ZIP: its screening settings (``settings``: reasons, criteria,
        keywords, order, model — not who reviews); title/abstract, when it has a decision,
        as litdesk's decisions CSV (the outcome per study, its reason and note); full text,
        when a report is sought for retrieval, as the same CSV of the reports sought with
        their retrieval (:mod:`._zip_fulltext`: its numbers are the PRISMA flow's); and the
        whole history with who decided what (``history``) and the review mode (``review``:
        dual review, revealed; :mod:`._zip_history`)."""
        area = _area(self)
        ctx = area._ctx(study, owner)
        settings = {k: v for k, v in ctx.config.to_json().items() if k not in _NOT_CARRIED}
        out = {"settings": json.dumps(settings, ensure_ascii=False, indent=1).encode("utf-8")}
        if ctx.history.current(stage="title_abstract"):
            request = ExportDecisionsRequest(study, "title_abstract")
            out["title_abstract"] = export_decisions(area, request, owner).body
        # the full-text export lists the reports sought for retrieval (the flow's)
        decided = export_decisions(area, ExportDecisionsRequest(study, "full_text"), owner)
        if decided.count:
            with area.store.read() as conn:
                notes = latest_retrieval(
                    screening.list_retrieval(conn, ctx.study.id), ctx.screen.group_of
                )
            out["full_text"] = sought_reports_csv(decided.body, notes)
        return out | history_members(area, study, owner)

    def record_zip_retrieval(self, study: str, member: bytes, *, owner: str) -> RetrievalRecorded:
        """Record a recovered Study's retrieval notes from its ZIP's ``full_text`` member
        (:meth:`zip_members`; :mod:`._zip_fulltext`), each as ``owner``'s."""
        return record_retrieval(_area(self), study, member, owner)

    def record_zip_history(
        self, study: str, members: Mapping[str, bytes], *, owner: str
    ) -> ZipHistoryView:
        """Record a recovered Study's whole screening history and review mode from its
        ZIP's ``history`` and ``review`` members (:mod:`._zip_history`): each reviewer with
        an account here gets their own decisions, the others keep their names."""
        return record_history(_area(self), study, members, owner)

    def record_zip_members(
        self, study: str, members: Mapping[str, bytes], *, owner: str
    ) -> dict[str, ImportDecisionsView]:
        """Record a recovered Study's settings and decisions from its ZIP's members
        (:meth:`zip_members`): the settings first (so that its reasons are the Study's), the
        decisions as ``owner``'s, matched to its records as any decisions file is."""
        if "settings" in members:
            _area(self).configure(_settings_request(study, members["settings"]), owner=owner)
        return {
            stage: import_decisions(
                _area(self),
                ImportDecisionsRequest(
                    study, members[stage], filename=f"screening/{stage}.csv", stage=stage
                ),
                owner,
            )
            for stage in STAGES
            if stage in members
        }

    def prisma(self, request: PrismaFlowRequest, *, owner: str) -> PrismaFlowView:
        """The Study's PRISMA 2020 flow computed from its trace and decisions."""
        return prisma_flow(_area(self), request, owner)

    def export_prisma(self, request: PrismaFlowRequest, *, owner: str) -> Export:
        """The flow as an SVG diagram, Markdown or CSV file."""
        return prisma_svg_export(_area(self), request, owner)

    def report_flow(self, study: str, *, owner: str, svg: bool) -> str:
        """The flow as the Study's PRISMA report carries it: the SVG diagram (``svg``) or
        the Markdown table."""
        if svg:
            return self.export_prisma(PrismaFlowRequest(study, "svg"), owner=owner).text
        return self.prisma(PrismaFlowRequest(study), owner=owner).markdown

    def prisma_records(self, request: PrismaRecordsRequest, *, owner: str) -> PrismaRecordsView:
        """The records behind one number of the flow (a box, in a round or all)."""
        return prisma_records(_area(self), request, owner)

    def paper_outcomes(self, request: StudyScreenRequest, *, owner: str) -> PaperOutcomes:
        """The settled outcome per stage of each saved paper of the Study (blind stages
        left out); what a push to Zotero gives back."""
        return paper_outcomes(_area(self), request, owner)
