"""The prioritisation model's retrain as a job of the store's queue (kind
``screening.retrain``, one active per Study and stage — and, while the stage is blind, per
reviewer: its owner is :func:`retrain_owner`, submitted with ``reuse_active``).

The handler reads the Study's items and decisions, fits the Study's model (:class:`Ranker` over
TF-IDF features of title, abstract and keywords of each group's merged record, fitted once
per working set and cached in the process; the hand-over model also reads the USE-m3 rows
of :mod:`._vectors` once every record has one — until then the default model, and the
embedding job is queued) on the labels so far and stores every item's
score with the next version in one transaction: until it commits the previous scores stay
in force, so a worker killed mid-retrain leaves them (the job is claimed again when its
lease ends). Decisions that arrive while it trains are picked up by training again before
the job ends (a bounded number of rounds).

A reviewer's own model (job parameter ``reviewer``, stored under that reviewer): trained on
that reviewer's current decisions only, in the order they made them — nothing of anyone
else's, so that in a blind stage its scores, order and counts tell nothing of the others'.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, Final, Required, TypedDict

from sqlalchemy.engine import Connection

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk.adapters.store import Store, screening
from litdesk.core.screening import (
    HANDOVER_MODEL,
    STAGES,
    SVM_MODEL,
    Features,
    ModelConfig,
    Ranker,
    ScreeningRecord,
    Stage,
    build_features,
    named_model,
)
from litdesk.services.jobs import Handler, JobContext, JobRunner, Jobs

from ._cards import subject_terms
from ._config import ScreeningConfig
from ._items import ScreenSet, StudyCache
from ._prisma import not_retrieved_now
from ._state import counted_history, stage_state
from ._vectors import SentenceRows

__all__ = [
    "MAX_ROUNDS",
    "RETRAIN_KIND",
    "Retrainer",
    "TrainResult",
    "encoder_texts",
    "retrain_jobs",
    "retrain_owner",
    "run_jobs",
    "screening_record",
]

RETRAIN_KIND: Final = "screening.retrain"
#: trainings one job runs at most while decisions keep arriving
MAX_ROUNDS: Final = 5
_CACHED: Final = 4


def retrain_owner(study_id: str, stage: Stage, reviewer: str = "") -> str:
    """The queue owner of a Study's stage retrain (one active per Study and stage, and per
    reviewer for a reviewer's own model)."""
    shared = f"study:{study_id}:screening:{stage}"
    return f"{shared}:reviewer:{reviewer}" if reviewer else shared


def retrain_jobs(
    study_id: str, stage: Stage, *, blind: bool, reviewers: Iterable[str] = ()
) -> list[tuple[dict[str, str], str]]:
    """The retrains (job parameters, queue owner) that decisions at ``stage`` call for: the
    shared model's — unless the stage is blind, where nobody sees it until the reveal (the
    reveal queues it once, on everyone's decisions) — and, while blind, each of
    ``reviewers``' own model's."""
    params = {"study_id": study_id, "stage": stage}
    if not blind:
        return [(params, retrain_owner(study_id, stage))]
    return [
        (params | {"reviewer": r}, retrain_owner(study_id, stage, r))
        for r in sorted(set(reviewers))
    ]


def screening_record(screen: ScreenSet, index: int) -> ScreeningRecord:
    """What the model reads of an item: its merged record's title, abstract, keywords."""
    group = screen.groups[index]
    return ScreeningRecord.of(group.paper.title, group.paper.abstract, subject_terms(group))


class TrainResult(TypedDict, total=False):
    """A retrain's result (its job's result document): whether a model was fitted, on how
    many decisions (``labels``), and the version its scores were stored under."""

    trained: Required[bool]
    labels: int
    version: int
    #: the model that made the scores (``litdesk-svm-2`` while the hand-over's rows are missing)
    model: str


class Retrainer:
    """Fits and stores a stage's scores; keeps the feature matrices and the scores in
    force of recent Studies in this process."""

    def __init__(
        self,
        store: Store,
        cache: StudyCache,
        *,
        clock: Clock = SYSTEM_CLOCK,
        rows: SentenceRows | None = None,
        want_rows: Callable[[str], object] = lambda _study_id: None,
    ) -> None:
        """``rows``: the sentence-encoder rows the hand-over model reads; ``want_rows``
        queues a Study's embedding job (called when a record has no row yet)."""
        self.store = store
        self.cache = cache
        self.clock = clock
        self.rows = rows
        self.want_rows = want_rows
        self._lock = threading.Lock()
        self._features: OrderedDict[tuple[str, str, str], Features] = OrderedDict()
        self._scores: dict[tuple[str, str, str], screening.ModelRow] = {}

    # -- the scores in force --------------------------------------------------------------

    def scores(
        self,
        study_id: str,
        stage: Stage,
        reviewer: str = "",
        *,
        conn: Connection | None = None,
    ) -> screening.ModelRow | None:
        """The stored scores of the stage (re-read only when their version changed);
        ``reviewer``: that reviewer's own model's; ``conn``: read in that transaction."""
        if conn is None:
            with self.store.read() as own:
                return self._scores_in(own, study_id, stage, reviewer)
        return self._scores_in(conn, study_id, stage, reviewer)

    def _scores_in(
        self, conn: Connection, study_id: str, stage: Stage, reviewer: str
    ) -> screening.ModelRow | None:
        version = screening.model_version(conn, study_id, stage, reviewer)
        if version is None:
            return None
        key = (study_id, stage, reviewer)
        with self._lock:
            cached = self._scores.get(key)
        if cached is not None and cached.version == version[0]:
            return cached
        row = screening.get_model(conn, study_id, stage, reviewer)
        if row is not None:
            with self._lock:
                if len(self._scores) > 4 * _CACHED * len(STAGES):
                    self._scores.clear()
                self._scores[key] = row
        return row

    # -- training -------------------------------------------------------------------------

    def features(
        self, study_id: str, screen: ScreenSet, model: str = SVM_MODEL
    ) -> tuple[Features, ModelConfig]:
        """The working set's feature matrix (one row per group, in its order) for ``model``
        and the model that reads it: the default model while the hand-over model's rows
        are not all stored (its embedding job is then queued)."""
        if model != HANDOVER_MODEL or self.rows is None:
            model = SVM_MODEL
        config = named_model(model)
        key = (study_id, screen.fingerprint, model)
        with self._lock:
            found = self._features.get(key)
            if found is not None:
                self._features.move_to_end(key)
                return found, config
        records = [screening_record(screen, i) for i in range(len(screen.groups))]
        embedding = None
        if config.features.embedding:
            assert self.rows is not None
            embedding = self.rows.rows(study_id, screen)
            if embedding is None:
                self.want_rows(study_id)
                return self.features(study_id, screen, SVM_MODEL)
        built = build_features(records, config.features, embedding=embedding)
        with self._lock:
            self._features[key] = built
            while len(self._features) > _CACHED:
                self._features.popitem(last=False)
        return built, config

    def labels(
        self, study_id: str, stage: Stage, reviewer: str = ""
    ) -> tuple[ScreenSet, dict[str, bool]]:
        screen, labels, _ = self.labelled(study_id, stage, reviewer)
        return screen, labels

    def labelled(
        self, study_id: str, stage: Stage, reviewer: str = ""
    ) -> tuple[ScreenSet, dict[str, bool], ScreeningConfig]:
        """The working set, the stage's labels now and the Study's settings (``reviewer``:
        that reviewer's own decisions only, in the order made)."""
        screen = self.cache.screen_set(study_id)
        history, _, _ = self.cache.history(study_id, screen)
        with self.store.read() as conn:
            stored = screening.get_settings(conn, study_id)
            missing = not_retrieved_now(conn, study_id, screen.group_of)
        config = ScreeningConfig.from_json(stored.data if stored else None)
        # as progress counts them: no full-text label of a report recorded not retrieved
        counted = counted_history(history, missing)
        state = stage_state(screen, counted, config, stage, reviewer=reviewer)
        items = set(state.items)
        chosen = state.my_labels if reviewer else state.labels
        return screen, {k: v for k, v in chosen.items() if k in items}, config

    def train(self, study_id: str, stage: Stage, reviewer: str = "") -> TrainResult:
        """One training on the decisions now (``reviewer``: on theirs only, stored as their
        model): the scores stored with the next version (``trained: False`` when the labels
        hold no include or no exclude yet)."""
        screen, labels, settings = self.labelled(study_id, stage, reviewer)
        if not (any(labels.values()) and not all(labels.values())):
            return {"trained": False, "labels": len(labels)}
        features, config = self.features(study_id, screen, settings.model)
        ranker = Ranker(features, seed=1, config=config)
        ranker.decide_many((screen.position[k], v) for k, v in labels.items())
        ranker.retrain()
        fitted = ranker.scores()
        scores = {g.key: round(fitted[i], 6) for i, g in enumerate(screen.groups)}
        with self.store.write() as conn:
            version = screening.put_model(
                conn,
                study_id,
                stage,
                trained_on=len(labels),
                scores=scores,
                trained_at=self.clock.utcnow().isoformat(timespec="seconds"),
                model=config.name,
                reviewer=reviewer,
            )
        return {"trained": True, "version": version, "labels": len(labels), "model": config.name}

    def run(
        self, study_id: str, stage: Stage, ctx: JobContext | None = None, reviewer: str = ""
    ) -> TrainResult:
        """Train until the stored scores are fitted on every decision (or the rounds run
        out, or the job must stop); ``reviewer``: their own model, on their decisions."""
        result: TrainResult = {"trained": False}
        for _ in range(MAX_ROUNDS):
            # decisions that reused this job before now are read by this round; a later
            # one runs the job again once it ends (:meth:`JobContext.listing`)
            if ctx is not None and (ctx.should_stop or not ctx.listing()):
                break
            result = self.train(study_id, stage, reviewer)
            _, labels = self.labels(study_id, stage, reviewer)
            if len(labels) == result.get("labels"):
                break
        return result

    def handler(self) -> Handler:
        def run(ctx: JobContext) -> dict[str, Any] | None:
            params = ctx.params
            stage: Stage = "full_text" if params.get("stage") == "full_text" else "title_abstract"
            reviewer = str(params.get("reviewer") or "")
            return dict(self.run(str(params["study_id"]), stage, ctx, reviewer))

        return run


def encoder_texts(screen: ScreenSet) -> list[str]:
    """What the sentence encoder reads of each item: title and abstract, in the set's order."""
    return [screening_record(screen, i).text for i in range(len(screen.groups))]


def run_jobs(jobs: Jobs, runner: JobRunner, owners: tuple[tuple[str, str], ...]) -> None:
    """Run jobs here while one of ``owners``' (kind, owner) is active (by owner: another
    stage's or Study's active job is not this one): ``work_retrain`` without a server."""
    while any(
        j.active for kind, who in owners for j in jobs.list(owner=who, kinds=[kind], limit=5)
    ):
        if not runner.run_once():
            break
