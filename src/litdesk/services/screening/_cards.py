"""The pieces of a screening card and of progress, read from one snapshot of a Study's
screening (:class:`Ctx`): the merged record's fields, its member records, the full text
available at the full-text stage, stopping guidance with its random check set."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from litdesk.adapters.store import Store, repo, screening
from litdesk.adapters.store import fulltext as links
from litdesk.core.pdfmeta import link_doubt
from litdesk.core.screening import (
    SVM_MODEL,
    DecisionHistory,
    Stage,
    check_sample,
    stopping_guidance,
)
from litdesk.services.dedup import WorkingGroup

from ._config import ScreeningConfig
from ._items import ScreenSet
from ._prisma import study_plan
from ._state import NOT_COUNTED, StageState
from ._views import (
    CardFullText,
    CardProgress,
    DecisionEntry,
    Guidance,
    MemberRecord,
    ModelState,
    PaperFields,
    RetrievalNote,
    ScreeningSettingsView,
    UpdateNews,
)

__all__ = [
    "CHECK_MIN",
    "CHECK_SHARE",
    "CHECK_SHOWN",
    "MAX_SUBJECT_TERMS",
    "Ctx",
    "entry_of",
    "full_text",
    "guidance",
    "members",
    "model_in_force",
    "paper_fields",
    "progress",
    "random_key",
    "settings_view",
    "subject_terms",
    "update_news",
    "visible_rows",
]

#: the random check set of the stopping estimate: this share of the stage's items, at least
CHECK_SHARE: Final = 0.05
CHECK_MIN: Final = 30
#: decided check-set records before the estimate is shown
CHECK_SHOWN: Final = 10


@dataclass(frozen=True, slots=True)
class Ctx:
    """What a use case reads of a Study's screening (one snapshot). ``history`` is the
    history as counted (:func:`~._state.counted_history`: the full-text entries of a report
    recorded not retrieved left out); ``recorded`` holds every entry as recorded, which
    ``seq_of`` (row id → entry number) numbers."""

    study: repo.StudyRow
    role: str
    config: ScreeningConfig
    screen: ScreenSet
    history: DecisionHistory
    seq_of: dict[int, int]
    rows: list[screening.DecisionRow]
    #: the model in force per stage for the reader: while a stage is blind the reader's
    #: own (trained on their decisions only), the shared one otherwise
    models: dict[Stage, screening.ModelRow | None]
    recorded: DecisionHistory
    #: the group keys whose report is recorded not retrieved now
    not_retrieved: frozenset[str]


def model_in_force(ctx: Ctx, state: StageState) -> tuple[ModelState, dict[str, float]]:
    """The model ordering the reader's queue at ``state``'s stage and its scores. While the
    stage is blind it is the reader's own and counts only their decisions (``state``'s
    ``my_labels``): nothing of it depends on another reviewer's decisions."""
    row = ctx.models[state.stage]
    blind = ctx.config.blind(state.stage)
    labels = state.labels
    if blind:
        labels = {k: v for k, v in state.my_labels.items() if k in state.item_set}
    if row is None:
        return ModelState("none", due=set(labels.values()) == {True, False}, blind=blind), {}
    fresh = row.trained_on == len(labels)
    return (
        ModelState(
            "ready" if fresh else "retraining",
            row.version,
            row.trained_on,
            row.trained_at,
            row.model or SVM_MODEL,
            blind=blind,
        ),
        row.scores,
    )


def visible_rows(ctx: Ctx, group_key: str, reader: str) -> list[screening.DecisionRow]:
    """The decisions on a group that ``reader`` may see: each entry as blind as its own
    stage (a full-text card lists the title/abstract decisions too), so while a stage is
    blind only the reader's own and resolutions."""
    blind = {s: ctx.config.blind(s) for s in ("title_abstract", "full_text")}
    return [
        r
        for r in ctx.rows
        if ctx.screen.group_of.get(r.record_key, r.record_key) == group_key
        and (not blind.get(r.stage, False) or r.reviewer == reader or r.kind == "resolution")
    ]


def entry_of(ctx: Ctx, row: screening.DecisionRow, reviewer_name: str) -> DecisionEntry:
    """A stored decision, undo or resolution as shown: its status among the entries as
    recorded, its group, and why it does not count when it does not (a full-text decision
    on a report recorded not retrieved: kept, shown, not counted)."""
    seq = ctx.seq_of.get(row.id)
    key = ctx.screen.group_of.get(row.record_key, row.record_key)
    return {
        "id": row.id,
        "record_key": row.record_key,
        "stage": row.stage,
        "reviewer": row.reviewer,
        "kind": row.kind,
        "verdict": row.verdict,
        "reason": row.reason,
        "note": row.note,
        "source": row.source,
        "made_at": row.made_at,
        "undoes": row.undoes,
        "reviewer_name": reviewer_name,
        "status": ctx.recorded.status(seq) if seq is not None else "not_applied",
        "group_key": key,
        "not_counted": NOT_COUNTED if row.stage == "full_text" and key in ctx.not_retrieved else "",
    }


def random_key(seed: int, key: str) -> bytes:
    return hashlib.blake2b(f"{seed}\x1f{key}".encode(), digest_size=8).digest()


#: subject terms shown on a card and read by the model, at most
MAX_SUBJECT_TERMS: Final = 100


def subject_terms(group: WorkingGroup) -> tuple[str, ...]:
    """A study's subject terms: its merged record's keywords (author keywords, a MEDLINE
    file's MeSH and other terms), then those its member records kept from their files
    (Scopus's index keywords, a CSV's MeSH column); each once, bounded."""
    seen: dict[str, str] = {}
    member_terms = (
        t for m in group.members for t in (m.data.get("subject_terms") or ()) if isinstance(t, str)
    )
    for term in (*group.paper.keywords, *member_terms):
        t = term.strip()
        if t and len(seen) < MAX_SUBJECT_TERMS:
            seen.setdefault(t.casefold(), t)
    return tuple(seen.values())


def paper_fields(group: WorkingGroup) -> PaperFields:
    p = group.paper
    return {
        "title": p.title,
        "authors": tuple(p.authors),
        "year": p.year,
        "venue": p.journal,
        "abstract": p.abstract,
        "keywords": subject_terms(group),
        "doi": p.doi,
        "pmid": p.pmid,
    }


def members(
    group: WorkingGroup, store: Store | None = None, study_id: str = ""
) -> tuple[MemberRecord, ...]:
    """The group's records with their source and database; with the Study's ``store`` and
    ``study_id``, in a Study with
    update rounds, each one's round as PRISMA 2020's columns name it ("Update 1 (6 Dec
    2026)"): a record found again by an update is told apart from the first search's."""
    plan = None
    if store is not None and study_id:
        with store.read() as conn:
            plan = study_plan(conn, study_id)
    out: list[MemberRecord] = []
    for r in group.members:
        paper = r.data.get("paper")
        title = str(paper.get("title") or "") if isinstance(paper, dict) else ""
        shown = plan is not None and len(plan.labels) > 1
        out.append(
            {
                "key": r.key,
                "title": title,
                "source": str(r.data.get("label") or r.source_id),
                "database": r.database,
                "round": plan.labels[plan.column(r)] if plan is not None and shown else "",
            }
        )
    return tuple(out)


#: reviewers' names by account id (ids unknown: themselves)
Names = Callable[[Iterable[str]], dict[str, str]]


def full_text(store: Store, ctx: Ctx, group: WorkingGroup, names: Names) -> CardFullText:
    """What the group's full-text card offers to read, with the latest retrieval note
    (its reviewer named by ``names``)."""
    p = group.paper
    ids = {r.paper_id for r in group.members if r.paper_id}
    with store.read() as conn:
        pdfs = links.pdf_links(conn, ctx.study.id)
        checks = links.fulltext_checks(conn, ctx.study.id)
        notes = [
            r
            for r in screening.list_retrieval(conn, ctx.study.id)
            if ctx.screen.group_of.get(r.record_key, r.record_key) == group.key
        ]
    pdf = next((pdfs[i] for i in ids if i in pdfs and pdfs[i].state == "linked"), None)
    check = next((checks[i] for i in ids if i in checks and checks[i].available), None)
    latest = notes[-1] if notes else None
    retrieval: RetrievalNote | None = None
    if latest is not None:
        retrieval = {
            "status": latest.status,
            "note": latest.note,
            "at": latest.at,
            "by": latest.by,
            "by_name": names((latest.by,))[latest.by],
        }
    return {
        "paper_ids": sorted(ids),
        # the sha256 opens the PDF in the viewer (its first page shown beside the form)
        "pdf": None
        if pdf is None
        else {
            "paper_id": pdf.paper_id,
            "file": pdf.file,
            "sha256": pdf.sha256,
            "doubt": link_doubt(pdf.how, pdf.detail),
        },
        "licensed_full_text": None
        if check is None
        else {"paper_id": check.paper_id, "licence": check.licence, "url": check.source_url},
        "url": p.full_text_url,
        "open_access": p.open_access,
        "retrieval": retrieval,
    }


def guidance(
    ctx: Ctx, state: StageState, labels: dict[str, bool], *, by_anyone: bool = False
) -> Guidance:
    """Stopping guidance on ``labels`` (in the order decided); ``by_anyone``: they are every
    reviewer's (a revealed pair's stage), so the advice says "decided by at least one
    reviewer", not "screened" (beside it, "screened by you" and "settled" count otherwise)."""
    total = len(state.items)
    size = min(total, max(CHECK_MIN, round(CHECK_SHARE * total)))
    sample = check_sample(state.items, size, ctx.study.id)
    decided = [labels[k] for k in sample if k in labels]
    shown = decided if len(decided) >= min(CHECK_SHOWN, size) and decided else None
    return Guidance(
        stopping_guidance(
            list(labels.values()),
            total,
            shown,
            counted="decided by at least one reviewer" if by_anyone else "screened",
        ),
        {
            "size": size,
            "decided": len(decided),
            "method": (
                f"a uniform random check set of {size} of the {total} records (each "
                "record's place in it drawn from its key and the Study's id, so records "
                "added later do not redraw it), "
                f"{len(decided)} decided so far; the share of includes among "
                "them estimates the includes in all (Wilson 95% interval), minus those "
                "found. Until every check-set record is decided the estimate leans high: "
                "the model shows likely includes first."
            ),
        },
    )


def progress(store: Store, ctx: Ctx, state: StageState) -> CardProgress:
    """A card's progress: the reviewer's figures, everyone's unless the stage is blind, and
    what the update rounds brought (:func:`update_news`)."""
    visible = not ctx.config.blind(state.stage)
    mine, everyone = state.counts(mine=True), state.counts(mine=False) if visible else None
    return CardProgress(mine, everyone, not visible, update_news(store, ctx, state))


#: the update rounds' groups per (items, rounds): (their keys, the latest round's count) —
#: placing every group in its round took 23 ms a card at 4,400 records, 0.6 ms from here
#: (medians, a loaded 2-core machine); the reviewer's remaining ones are counted afresh
_UPDATE_GROUPS: OrderedDict[tuple[str, tuple[object, ...]], tuple[tuple[str, ...], int]] = (
    OrderedDict()
)
_UPDATE_LOCK = threading.Lock()


def update_news(store: Store, ctx: Ctx, state: StageState) -> UpdateNews | None:
    """At title/abstract, once the Study has an update round: the records the update rounds
    added to screen, the latest round's, and how many the reviewer has still to screen —
    each record placed in its round as PRISMA 2020's columns place it (its group's earliest
    member), so the screening page and the flow agree."""
    if state.stage != "title_abstract":
        return None
    with store.read() as conn:
        plan = study_plan(conn, ctx.study.id)
    last = len(plan.labels) - 1
    if last == 0:
        return None
    placed = (tuple(sorted(plan.rounds.whole.items())), plan.rounds.began)
    key = (ctx.screen.fingerprint, placed)
    with _UPDATE_LOCK:
        found = _UPDATE_GROUPS.get(key)
    if found is None:
        keys: list[str] = []
        latest = 0
        for group in ctx.screen.groups:
            column = min((plan.column(m) for m in group.members), default=0)
            if column:
                keys.append(group.key)
                latest += column == last
        found = (tuple(keys), latest)
        with _UPDATE_LOCK:
            _UPDATE_GROUPS[key] = found
            while len(_UPDATE_GROUPS) > 64:
                _UPDATE_GROUPS.popitem(last=False)
    keys_added, latest = found
    awaiting = sum(1 for k in keys_added if state.is_remaining(k))
    began = plan.rounds.began[-1][1].isoformat()
    return UpdateNews(last, plan.labels[-1], began, len(keys_added), latest, awaiting)


def settings_view(
    study: repo.StudyRow,
    role: str,
    config: ScreeningConfig,
    stored: screening.SettingsRow | None,
    names: Callable[[Iterable[str]], dict[str, str]],
) -> ScreeningSettingsView:
    """The Study's screening settings as ``role`` sees them (``names``: account ids → user
    names, for who changed them last)."""
    by = stored.updated_by if stored else None
    return ScreeningSettingsView(
        study.id,
        study.name,
        config,
        role,
        can_configure=role == "owner",
        can_screen=role in ("owner", "editor"),
        updated_at=stored.updated_at if stored else None,
        updated_by=by,
        updated_by_name=names([by])[by] if by else None,
    )
