"""The screening area (``app.screening``, issue 28): a Study's working set screened at
title/abstract, then at full text, one record at a time — settings, the next record in the
order in force, a record's card, decisions and undo (append-only), full-text retrieval,
a record's history, progress with stopping guidance, the records behind a number — one
method per use case, the acting account as ``owner=``.

Roles (team mode, as the studies area): readers view; members (editors) screen; the Study's
owner configures. Blind: while a stage has dual review and is not revealed, a reviewer sees
only their own decisions (and resolutions) and their own figures.

Every decision, undo and retrieval note is appended under the Study's screening lock in
one write transaction (two reviewers at the same moment: both kept, in order). After a
decision the model's retrain is queued (``screening.retrain``, one per Study and stage; while
blind the reviewer's own model's, the shared one's once at the reveal); the next record never
waits for it: it uses the scores in force. A Study whose model is the hand-over
(``litdesk-handover``) also has its records embedded by a job (``screening.embed``,
:mod:`._vectors`); retrains use the default model until then.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Final

from sqlalchemy.engine import Connection

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import LitdeskError, NotFoundError
from litdesk.adapters.embeddings import Embedder
from litdesk.adapters.store import Store, repo, screening
from litdesk.adapters.store import accounts as access
from litdesk.core.screening import (
    HANDOVER_MODEL,
    STAGES,
    Stage,
)
from litdesk.core.words import plural
from litdesk.services.dedup import WorkingGroup
from litdesk.services.jobs import Handler, JobRunner, Jobs

from ._cards import (
    Ctx,
    entry_of,
    members,
    model_in_force,
    paper_fields,
    random_key,
    settings_view,
    update_news,
    visible_rows,
)
from ._cards import full_text as full_text_of
from ._cards import guidance as guidance_of
from ._cards import progress as card_progress
from ._config import ScreeningConfig
from ._items import ScreenSet, StudyCache
from ._parts import AreaParts
from ._prisma import not_retrieved_groups, not_retrieved_now
from ._requests import (
    CardRequest,
    ConfigureRequest,
    DecideRequest,
    HistoryRequest,
    ItemsRequest,
    NextRequest,
    Order,
    ProgressRequest,
    RetrievalRequest,
    ScreeningRequestError,
    StudyScreenRequest,
    UndoRequest,
)
from ._retrain import (
    RETRAIN_KIND,
    Retrainer,
    encoder_texts,
    retrain_jobs,
    retrain_owner,
    run_jobs,
)
from ._state import (
    FT_WAITS,
    NOT_RETRIEVED,
    StageState,
    counted_history,
    item_keys,
    stage_items,
    stage_state,
)
from ._team_area import TeamScreening
from ._vectors import EMBED_KIND, SentenceRows, embed_owner
from ._views import (
    CardOrder,
    CardView,
    DecisionEntry,
    DecisionView,
    HistoryView,
    ItemRow,
    ItemsView,
    ModelState,
    ProgressView,
    RetrievalNote,
    RetrievalView,
    ScreeningSettingsView,
)

__all__ = ["ScreeningArea"]

#: orders kept in the process (each a tuple of a Study's item keys)
_ORDERS_KEPT: Final = 32
_WORDS: Final = {"title_abstract": "title and abstract", "full_text": "full-text"}


class NotScreenable(NotFoundError):
    """The record is not an item of the Study at that stage."""

    default_code = "record_not_screenable"


class ScreeningArea(TeamScreening):
    """Screening a Study's working set, for any owner (see the module docstring).

    ``wake`` tells this process's job runner that a retrain was queued."""

    def __init__(
        self,
        store: Store,
        jobs: Jobs,
        *,
        clock: Clock = SYSTEM_CLOCK,
        wake: Callable[[], None] | None = None,
        lease_s: float = 60.0,
        embedder: Callable[[], Embedder] | None = None,
    ) -> None:
        """``lease_s``: the job lease of a retrain run in the caller's thread
        (:meth:`work_retrain`; the app passes ``Settings.jobs_lease_seconds``);
        ``embedder``: makes the sentence encoder the hand-over model reads (the app's
        ``models.sentence_embedder``; ``None``: that model always falls back)."""
        self.store = store
        self._lease_s = lease_s
        self.jobs = jobs
        self.clock = clock
        self._wake = wake
        self.cache = StudyCache(store)
        self.rows = SentenceRows(store, self.cache, encoder_texts, embedder)
        self.rows.on_stored = self._rows_stored
        self.rows.requeue = self._more_rows
        self.retrainer = Retrainer(
            store, self.cache, clock=clock, rows=self.rows, want_rows=self._want_rows
        )
        self._lock = threading.Lock()
        #: (Study, stage) → the model version a retrain was queued for unscored records
        self._unscored: dict[tuple[str, str, str], int | None] = {}
        #: orders of every item (ranked per model version, random per seed), recent ones
        self._orders: OrderedDict[tuple[object, ...], tuple[str, ...]] = OrderedDict()
        #: account id → user name (names never change; ids that are no account map to
        #: themselves: the single user, a reviewer named in an imported file)
        self._names: dict[str, str] = {}

    def handlers(self) -> dict[str, Handler]:
        """The job handlers of this area: the model's retrain, the records' embedding."""
        return {RETRAIN_KIND: self.retrainer.handler(), EMBED_KIND: self.rows.handler()}

    def _charged(self, study_id: str) -> str:
        """The account a Study's screening jobs count against: its owner's (not the Study's)."""
        with self.store.read() as conn:
            return access.study_creator(conn, study_id)

    def _submit(
        self, kind: str, params: dict[str, str], owner: str, account: str | None = None
    ) -> bool:
        try:  # a running retrain reused runs again after it: no decision goes unread
            account = account or self._charged(params["study_id"])
            self.jobs.submit(kind, params, owner=owner, reuse_active=True, account=account,
                             rerun_reused=kind == RETRAIN_KIND)  # fmt: skip
        except LitdeskError:  # too many jobs, the store: nothing lost, the scores in force stay
            return False
        if self._wake is not None:
            self._wake()
        return True

    def _more_rows(self, study_id: str) -> bool:
        """A new embedding job for the rest of the Study's rows, queued while the current one
        runs (not ``reuse_active``, which would answer the current one)."""
        try:
            account = self._charged(study_id)
            self.jobs.submit(
                EMBED_KIND, {"study_id": study_id}, owner=embed_owner(study_id), account=account
            )
        except LitdeskError:  # too many jobs, the store: the current job goes on instead
            return False
        if self._wake is not None:
            self._wake()
        return True

    def _want_rows(self, study_id: str) -> bool:
        """Queue the Study's embedding job (one active per Study)."""
        return self._submit(EMBED_KIND, {"study_id": study_id}, embed_owner(study_id))

    def _rows_stored(self, study_id: str) -> None:
        """Every record has its row now: retrain each stage with the hand-over model."""
        for stage in STAGES:
            self._after_decision(study_id, stage, self._deciders(study_id, stage))

    def _deciders(self, study_id: str, stage: Stage) -> set[str]:
        """The reviewers with an entry at ``stage`` (whose own models a new model retrains)."""
        screen = self.cache.screen_set(study_id)
        _, _, rows = self.cache.history(study_id, screen)
        return {r.reviewer for r in rows if r.stage == stage}

    # -- shared steps ---------------------------------------------------------------------

    def _now(self) -> str:
        return self.clock.utcnow().isoformat(timespec="microseconds")

    def _study(
        self, conn: Connection, ref: str, owner: str, need: access.Need
    ) -> tuple[repo.StudyRow, str]:
        return repo.study_with_role(conn, ref, account=owner, need=need)

    @staticmethod
    def _config(
        conn: Connection, study_id: str
    ) -> tuple[ScreeningConfig, screening.SettingsRow | None]:
        stored = screening.get_settings(conn, study_id)
        return ScreeningConfig.from_json(stored.data if stored else None), stored

    def _ctx(
        self, ref: str, owner: str, need: access.Need = "read", *, reconcile: bool = False
    ) -> Ctx:
        """Everything a use case reads, from one read transaction when the cached items are
        still the Study's (the next record's path); the items rebuilt otherwise."""
        if reconcile:
            with self.store.read() as conn:
                study, _ = self._study(conn, ref, owner, need)
            self.cache.screen_set(study.id, reconcile=True)
            ref = study.id
        with self.store.read() as conn:
            study, role = self._study(conn, ref, owner, need)
            config, _ = self._config(conn, study.id)
            retrieval = [(r.record_key, r.status) for r in screening.list_retrieval(conn, study.id)]
            screen = self.cache.cached(study.id, screening.record_fingerprint(conn, study.id))
            whose = {s: owner if config.blind(s) else "" for s in STAGES}  # blind: their own
            if screen is not None:
                recorded, seq_of, rows = self.cache.history(study.id, screen, conn=conn)
                models = {
                    s: self.retrainer.scores(study.id, s, whose[s], conn=conn) for s in STAGES
                }
        if screen is None:
            screen = self.cache.screen_set(study.id)
            recorded, seq_of, rows = self.cache.history(study.id, screen)
            models = {s: self.retrainer.scores(study.id, s, whose[s]) for s in STAGES}
        missing = frozenset(not_retrieved_groups(retrieval, screen.group_of))
        history = counted_history(recorded, missing)
        return Ctx(study, role, config, screen, history, seq_of, rows, models, recorded, missing)

    def _writer(self, ref: str, owner: str) -> tuple[str, ScreenSet]:
        """The Study's id (``owner`` may screen it) and its items, made before the write
        transaction (building them may regroup the records, a write of its own)."""
        with self.store.read() as conn:
            study, _ = self._study(conn, ref, owner, "write")
        return study.id, self.cache.screen_set(study.id)

    def _group(self, ctx: Ctx, key: str) -> WorkingGroup:
        group = ctx.screen.group(key)
        if group is None:
            raise NotScreenable(f"record {key[:80]!r} is not in this Study's working set")
        return group

    def _visible(self, ctx: Ctx, stage: Stage, owner: str) -> bool:
        """May ``owner`` see the other reviewers' decisions at ``stage``?"""
        return not ctx.config.blind(stage)

    def _reviewer_names(self, account_ids: Iterable[str]) -> dict[str, str]:
        """Each of ``account_ids`` → its account's user name (the id where it names none)."""
        ids = set(account_ids)
        with self._lock:
            unknown = ids - self._names.keys()
        if unknown:
            with self.store.read() as conn:
                found = access.account_names(conn, unknown)
            with self._lock:
                if len(self._names) > 50_000:  # bounded
                    self._names.clear()
                self._names.update({i: found.get(i, i) for i in unknown})
        with self._lock:
            return {i: self._names.get(i, i) for i in ids}

    def _entry(self, ctx: Ctx, row: screening.DecisionRow) -> DecisionEntry:
        return entry_of(ctx, row, self._reviewer_names((row.reviewer,))[row.reviewer])

    # -- settings -------------------------------------------------------------------------

    def settings(self, request: StudyScreenRequest, *, owner: str) -> ScreeningSettingsView:
        """The Study's screening settings (the defaults until its owner changes them)."""
        with self.store.read() as conn:
            study, role = self._study(conn, request.study, owner, "read")
            config, stored = self._config(conn, study.id)
        return settings_view(study, role, config, stored, self._reviewer_names)

    def configure(self, request: ConfigureRequest, *, owner: str) -> ScreeningSettingsView:
        """Change the Study's screening settings (its owner only; in the Study's history)."""
        now = self._now()
        with self.store.write() as conn:
            study, role = self._study(conn, request.study, owner, "owner")
            self.store.lock(conn, screening.SCREENING_LOCK, study.id)
            config, _ = self._config(conn, study.id)
            changed = config.changed(request)
            screening.put_settings(conn, study.id, changed.to_json(), by=owner, now=now)
            access.add_history(conn, study.id, owner, "screening_configured", None, now)
            stored = screening.get_settings(conn, study.id)
        if changed.model != config.model and changed.model == HANDOVER_MODEL:
            self._want_rows(study.id)
        for stage in STAGES:  # a new model's scores; revealed: the shared model's (blind: own)
            if changed.model != config.model or changed.blind(stage) != config.blind(stage):
                self._after_decision(study.id, stage, self._deciders(study.id, stage))
        return settings_view(study, role, changed, stored, self._reviewer_names)

    # -- decisions ------------------------------------------------------------------------

    def _after_decision(self, study_id: str, stage: Stage, reviewers: Iterable[str] = ()) -> bool:
        """Queue the stage's retrain (one active per Study and stage) or, while blind, each
        of ``reviewers``' own (the shared one waits for the reveal: :func:`retrain_jobs`);
        False when the queue refused one (the scores in force stay)."""
        try:  # one read for the jobs queued here; charged to the Study's owner
            with self.store.read() as conn:
                config, _ = self._config(conn, study_id)
                account = access.study_creator(conn, study_id)
        except NotFoundError:  # the Study is gone: nothing to retrain
            return False
        queued = True
        for params, who in retrain_jobs(
            study_id, stage, blind=config.blind(stage), reviewers=reviewers
        ):
            queued = self._submit(RETRAIN_KIND, params, who, account) and queued
        return queued

    def _decision_view(
        self, study_id: str, stage: Stage, row: screening.DecisionRow, owner: str, queued: bool
    ) -> DecisionView:
        ctx = self._ctx(study_id, owner)
        key = ctx.screen.group_of.get(row.record_key, row.record_key)
        mine = ctx.history.current(stage=stage, reviewer=owner).get((key, stage, owner))
        outcome = None
        if self._visible(ctx, stage, owner):
            outcome = ctx.history.outcome(key, stage, ctx.config.policy(stage))
        return DecisionView(
            ctx.study.id,
            stage,
            key,
            self._entry(ctx, row),
            None if mine is None else mine.verdict,
            outcome,
            queued,
        )

    def decide(self, request: DecideRequest, *, owner: str) -> DecisionView:
        """Append the reviewer's include / exclude / maybe on a record at a stage (a later
        one supersedes it; both stay in the history). At full text the record must have
        passed title/abstract and an exclusion needs a reason from the Study's list."""
        stage = request.stage
        study_id, screen = self._writer(request.study, owner)
        with self.store.write() as conn:
            study, role = self._study(conn, study_id, owner, "write")
            self.store.lock(conn, screening.SCREENING_LOCK, study.id)
            config, _ = self._config(conn, study.id)
            if (group := screen.group(request.record_key)) is None:
                raise NotScreenable(
                    f"record {request.record_key[:80]!r} is not in this Study's working set"
                )
            reason = request.reason
            if stage == "full_text":
                history, _, _ = self.cache.history(study.id, screen, conn=conn)
                if role != "owner" and config.blind("title_abstract"):
                    raise NotScreenable(FT_WAITS, code="blind")
                if group.key not in stage_items(screen, history, config, "full_text"):
                    raise NotScreenable(
                        f"record {group.key[:80]!r} is not at the full-text stage: only "
                        "records included or marked maybe at title/abstract are",
                        code="not_at_full_text",
                    )
                if (key := group.key) in not_retrieved_now(conn, study.id, screen.group_of):
                    raise ScreeningRequestError(NOT_RETRIEVED % key[:80], code="not_retrieved")
                if request.verdict == "exclude":
                    reason = config.exclusion_reason(reason)
            elif reason:
                reason = config.reason_in_list(reason) or reason
            row = screening.add_decision(
                conn,
                study.id,
                record_key=group.key,
                stage=stage,
                reviewer=owner,
                kind="decision",
                verdict=request.verdict,
                reason=reason,
                note=request.note,
                source=request.source,
                made_at=self._now(),
            )
        queued = self._after_decision(study.id, stage, (owner,))
        return self._decision_view(study.id, stage, row, owner, queued)

    def undo(self, request: UndoRequest, *, owner: str) -> DecisionView:
        """Append an undo of the reviewer's last current decision at the stage (on the
        record when named): the decision it had superseded, if any, is current again."""
        stage = request.stage
        study_id, screen = self._writer(request.study, owner)
        with self.store.write() as conn:
            study, _ = self._study(conn, study_id, owner, "write")
            self.store.lock(conn, screening.SCREENING_LOCK, study.id)
            history, seq_of, rows = self.cache.history(study.id, screen, conn=conn)
            key = None
            if request.record_key is not None:
                group = screen.group(request.record_key)
                key = group.key if group is not None else request.record_key
            target = None
            for row in reversed(rows):
                seq = seq_of.get(row.id)
                if (
                    seq is None
                    or row.kind != "decision"
                    or row.reviewer != owner
                    or row.stage != stage
                    or history.status(seq) != "current"
                ):
                    continue
                if key is None or screen.group_of.get(row.record_key, row.record_key) == key:
                    target = row
                    break
            if target is None:
                where = f" on record {key[:80]!r}" if key else ""
                raise NotFoundError(
                    f"you have no decision{where} at {stage} to undo", code="nothing_to_undo"
                )
            made = screening.add_decision(
                conn,
                study.id,
                record_key=target.record_key,
                stage=stage,
                reviewer=owner,
                kind="undo",
                verdict=None,
                source=request.source,
                made_at=self._now(),
                undoes=target.id,
            )
        queued = self._after_decision(study.id, stage, (owner,))
        return self._decision_view(study.id, stage, made, owner, queued)

    def retrieval(self, request: RetrievalRequest, *, owner: str) -> RetrievalView:
        """Record whether the full text of a record at the full-text stage was retrieved
        (append-only; the latest note counts; PRISMA's reports not retrieved): its full-text
        labels count or not now, in the models (while blind: in each reviewer's own)."""
        study_id, screen = self._writer(request.study, owner)
        with self.store.write() as conn:
            study, _ = self._study(conn, study_id, owner, "write")
            self.store.lock(conn, screening.SCREENING_LOCK, study.id)
            group = screen.group(request.record_key)
            if group is None:
                raise NotScreenable(
                    f"record {request.record_key[:80]!r} is not in this Study's working set"
                )
            row = screening.add_retrieval(
                conn,
                study.id,
                record_key=group.key,
                retrieved=request.retrieved,
                note=request.note,
                by=owner,
                at=self._now(),
            )
        self._after_decision(study.id, "full_text", self._deciders(study.id, "full_text"))
        return RetrievalView(study.id, group.key, row.status, row.note, row.at, row.by)

    # -- reading --------------------------------------------------------------------------

    def history(self, request: HistoryRequest, *, owner: str) -> HistoryView:
        """Every entry on a record (both stages; its members' keys too), oldest first, with
        its status; blind stages show only the reviewer's own entries and resolutions."""
        ctx = self._ctx(request.study, owner)
        group = self._group(ctx, request.record_key)
        blind = {s: ctx.config.blind(s) for s in ("title_abstract", "full_text")}
        entries = []
        for row in ctx.rows:
            if ctx.screen.group_of.get(row.record_key, row.record_key) != group.key:
                continue
            if blind.get(row.stage, False) and row.reviewer != owner and row.kind != "resolution":
                continue
            entries.append(self._entry(ctx, row))
        with self.store.read() as conn:
            kept = [
                r
                for r in screening.list_retrieval(conn, ctx.study.id)
                if ctx.screen.group_of.get(r.record_key, r.record_key) == group.key
            ]
        by_name = self._reviewer_names(r.by for r in kept)
        notes: list[RetrievalNote] = [
            {"status": r.status, "note": r.note, "at": r.at, "by": r.by, "by_name": by_name[r.by]}
            for r in kept
        ]
        return HistoryView(
            ctx.study.id, group.key, group.paper.title, tuple(entries), dict(blind), tuple(notes)
        )

    def _state(self, ctx: Ctx, stage: Stage, owner: str) -> StageState:
        sees = ctx.role == "owner"
        return stage_state(
            ctx.screen, ctx.history, ctx.config, stage, owner, sees_blind=sees,
            not_retrieved=ctx.not_retrieved,
        )  # fmt: skip

    def _model(self, ctx: Ctx, state: StageState) -> tuple[ModelState, dict[str, float]]:
        return model_in_force(ctx, state)  # blind: the reader's own

    def _order(self, key: tuple[object, ...], make: Callable[[], list[str]]) -> tuple[str, ...]:
        """An order of every item, made once per Study's items and model version / seed."""
        with self._lock:
            found = self._orders.get(key)
            if found is not None:
                self._orders.move_to_end(key)
                return found
        made = tuple(make())
        with self._lock:
            self._orders[key] = made
            while len(self._orders) > _ORDERS_KEPT:
                self._orders.popitem(last=False)
        return made

    def _pick(
        self,
        ctx: Ctx,
        state: StageState,
        order: Order,
        seed: int,
        skip: tuple[str, ...] = (),
        owner: str = "",
    ) -> tuple[str | None, CardOrder, float | None]:
        """The next item for ``owner`` in ``order`` (past ``skip``), the order's description
        and the item's score (ranked). Each order of all items is made once per model version
        (the reviewer's own while blind) or seed, and walked to its first remaining item."""
        model, scores = self._model(ctx, state)
        whose = owner if model.blind else ""

        if state.stage == "full_text":  # PRISMA counts these done: not retrieved, not assessed
            skip = (*skip, *ctx.not_retrieved)

        def free(k: str) -> bool:
            return state.is_remaining(k) and k not in skip

        fp = ctx.screen.fingerprint
        keys = list(ctx.screen.keys)
        if order == "original":
            described = CardOrder(order, "original order (as identified)", model)
            head = next((k for k in ctx.screen.keys if free(k)), None)
            return head, described, None
        if order == "random" or not scores:
            if order == "ranked":
                seed = 1
                label = f"random (no model yet: {model.waiting_for})"
            else:
                label = f"random (seed {seed})"
            described = CardOrder("random", label, model, seed, wants_model=order == "ranked")
            ordered = self._order(
                (ctx.study.id, fp, "random", seed),
                lambda: sorted(keys, key=lambda k: random_key(seed, k)),
            )
            best = next((k for k in ordered if free(k)), None)
            return best, described, None
        trained = plural(model.trained_on, "decision")
        described = CardOrder(
            order,
            (
                f"ranked by a model trained on your {trained} (v{model.version}, {model.name}"
                if model.blind
                else f"ranked by model v{model.version} trained on {trained} ({model.name}"
            )
            + (", retraining)" if model.state == "retraining" else ")"),
            model,
            wants_model=True,
        )
        floor = float("-inf")
        ordered = self._order(
            (ctx.study.id, fp, state.stage, "ranked", model.version, *((whose,) if whose else ())),
            lambda: sorted(keys, key=lambda k: (-scores.get(k, floor), random_key(1, k))),
        )
        best = next((k for k in ordered if free(k)), None)
        if ordered and ordered[-1] not in scores:
            # items the model has not scored (new since it was trained; they come last
            # until then): queue a retrain, once per model version in this process
            asked = (ctx.study.id, state.stage, whose)
            with self._lock:
                ask = self._unscored.get(asked) != model.version
                self._unscored[asked] = model.version
            if ask:
                self._after_decision(ctx.study.id, state.stage, (whose,) if whose else ())
        return best, described, (None if best is None else scores.get(best))

    def _card(
        self,
        ctx: Ctx,
        state: StageState,
        key: str | None,
        order: CardOrder,
        owner: str,
        score: float | None = None,
    ) -> CardView:
        progress = card_progress(self.store, ctx, state)
        if key is None:
            return CardView(ctx.study.id, state.stage, True, order, progress)
        group = self._group(ctx, key)
        decisions = tuple(self._entry(ctx, r) for r in visible_rows(ctx, group.key, owner))
        mine = state.mine.get(group.key)
        full_text = (
            full_text_of(self.store, ctx, group, self._reviewer_names)
            if state.stage == "full_text"
            else None
        )
        return CardView(
            ctx.study.id,
            state.stage,
            False,
            order,
            progress,
            record_key=group.key,
            members=members(group, self.store, ctx.study.id),
            decisions=decisions,
            my_verdict=None if mine is None else mine.verdict,
            highlight={
                "include": list(ctx.config.include_keywords),
                "exclude": list(ctx.config.exclude_keywords),
            },
            criteria={"inclusion": ctx.config.inclusion, "exclusion": ctx.config.exclusion},
            reasons=ctx.config.reasons,
            full_text=full_text,
            score=score,
            **paper_fields(group),
        )

    def next(self, request: NextRequest, *, owner: str) -> CardView:
        """The next record for the reviewer at the stage in the order asked (the Study's
        default order otherwise); ``done`` when nothing is left for them. Never waits for
        a retrain: the scores in force order the records."""
        ctx = self._ctx(request.study, owner)
        state = self._state(ctx, request.stage, owner)
        order = request.order or ctx.config.default_order
        key, described, score = self._pick(ctx, state, order, request.seed, request.skip, owner)
        return self._card(ctx, state, key, described, owner, score)

    def card(self, request: CardRequest, *, owner: str) -> CardView:
        """One record's card at the stage (its group's merged record, members and the
        reviewer's decisions), whether or not it is the next."""
        ctx = self._ctx(request.study, owner)
        group = self._group(ctx, request.record_key)
        state = self._state(ctx, request.stage, owner)
        if group.key not in state.items:
            raise NotScreenable(
                f"record {group.key[:80]!r} is not at the {_WORDS[request.stage]} stage",
                code="not_at_stage",
            )
        model, scores = self._model(ctx, state)
        order = CardOrder("record", "a record chosen by key", model)
        return self._card(ctx, state, group.key, order, owner, scores.get(group.key))

    def progress(self, request: ProgressRequest, *, owner: str) -> ProgressView:
        """Progress at a stage (the reviewer's own; everyone's unless blind), stopping
        guidance (the recall curve, consecutive irrelevant records, the includes remaining
        estimated from a random check set) and the model's state."""
        return self._progress(self._ctx(request.study, owner, reconcile=True), request.stage, owner)

    def progress_stages(self, study: str, *, owner: str) -> dict[Stage, ProgressView | None]:
        """:meth:`progress` at every stage, from one read of the Study (the Study page's
        screening line); a stage whose progress cannot be read is ``None``, and so is
        every stage when the Study cannot be (an account that may not see it)."""
        try:
            ctx = self._ctx(study, owner, reconcile=True)
        except LitdeskError:
            return dict.fromkeys(STAGES)
        out: dict[Stage, ProgressView | None] = {}
        for stage in STAGES:
            try:
                out[stage] = self._progress(ctx, stage, owner)
            except LitdeskError:
                out[stage] = None
        return out

    def _progress(self, ctx: Ctx, stage: Stage, owner: str) -> ProgressView:
        state = self._state(ctx, stage, owner)
        blind = ctx.config.blind(stage)
        labels = state.my_labels if blind else state.labels
        labels = {k: v for k, v in labels.items() if k in set(state.items)}
        pair = ctx.config.policy(stage).reviewers_required > 1
        guidance = guidance_of(ctx, state, labels, by_anyone=pair and not blind)
        model, _ = self._model(ctx, state)
        return ProgressView(
            ctx.study.id,
            stage,
            len(state.items),
            state.counts(mine=True),
            None if blind else state.counts(mine=False),
            blind,
            guidance,
            model,
            ctx.config.default_order,
            single_reviewer=not ctx.config.dual_review[stage]
            and all(r.reviewer == owner for r in ctx.rows if r.stage == stage),
            updates=update_news(self.store, ctx, state),
        )

    def items(self, request: ItemsRequest, *, owner: str) -> ItemsView:
        """One page of the records behind a number at a stage (``status``: all,
        remaining (for the reviewer), screened, included, excluded, maybe, conflict,
        mine); blind stages filter by the reviewer's own decisions."""
        ctx = self._ctx(request.study, owner, reconcile=True)
        stage = request.stage
        state = self._state(ctx, stage, owner)
        blind = ctx.config.blind(stage)
        if request.status == "conflict" and blind:
            raise ScreeningRequestError(
                "conflicts are hidden until the Study's owner reveals this stage",
                code="blind",
            )

        keys = item_keys(state, request.status, blind=blind)
        remaining = set(state.remaining)
        size = request.page_size
        pages = max(1, -(-len(keys) // size))
        page = min(request.page, pages)
        rows: list[ItemRow] = []
        for k in keys[(page - 1) * size : page * size]:
            group = ctx.screen.groups[ctx.screen.position[k]]
            mine = state.mine.get(k)
            o = state.outcomes.get(k)
            rows.append(
                {
                    "record_key": k,
                    "title": group.paper.title,
                    "year": group.paper.year,
                    "members": len(group.members),
                    "my_verdict": None if mine is None else mine.verdict,
                    "verdict": None if blind or o is None else o.verdict,
                    "status": None if blind or o is None else o.status,
                    "reason": None if blind or o is None else o.reason,
                    "remaining": k in remaining,
                }
            )
        return ItemsView(
            ctx.study.id, stage, request.status, tuple(rows), len(keys), page, pages, blind
        )

    # -- the retrain job ------------------------------------------------------------------

    def work_retrain(
        self, study: str, stage: Stage, *, owner: str, embed: bool = True
    ) -> ModelState:
        """Run the stage's queued retrain in this thread (the CLI without a server, tests,
        benches) — with the hand-over model, the Study's embedding job first when a record
        has no row yet (``embed=False``: the retrain only; the hand-over falls back to the
        default model until every record has its row): the model as it then stands."""
        with self.store.read() as conn:
            row, _ = self._study(conn, study, owner, "read")
            config, _ = self._config(conn, row.id)
        retrains = [(RETRAIN_KIND, retrain_owner(row.id, stage))]
        if config.blind(stage):  # and the reader's own model's
            retrains.append((RETRAIN_KIND, retrain_owner(row.id, stage, owner)))
        if not embed:
            retrain = JobRunner(
                self.jobs, {RETRAIN_KIND: self.retrainer.handler()}, lease_s=self._lease_s
            )
            run_jobs(self.jobs, retrain, tuple(retrains))
        else:
            if (
                config.model == HANDOVER_MODEL
                and self.rows.embedder is not None
                and self.rows.rows(row.id, self.cache.screen_set(row.id)) is None
            ):
                self._want_rows(row.id)
                embedding = JobRunner(
                    self.jobs, {EMBED_KIND: self.rows.handler()}, lease_s=self._lease_s
                )
                run_jobs(self.jobs, embedding, ((EMBED_KIND, embed_owner(row.id)),))
            runner = JobRunner(self.jobs, self.handlers(), lease_s=self._lease_s)
            run_jobs(self.jobs, runner, ((EMBED_KIND, embed_owner(row.id)), *retrains))
        ctx = self._ctx(row.id, owner)
        model, _ = self._model(ctx, self._state(ctx, stage, owner))
        return model


def _as_parts(area: ScreeningArea) -> AreaParts:
    """Type check only: the area is what its team methods take it for (``_parts``)."""
    return area
