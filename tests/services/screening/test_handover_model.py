"""The hand-over model in the service (issue 28): a Study that chooses ``litdesk-handover``
has its records embedded by a job of the queue (USE-m3, the app's sentence encoder), rows
kept in the store per text; until every record has its row the retrain uses the default
model, and the stored scores and the screen say which model is in force. A job stopped
mid-way keeps the batches it stored and embeds only the rest when run again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.services.screening._study import make_study

from litdesk.adapters.embeddings import UseEmbedder
from litdesk.adapters.store import screening as store_screening
from litdesk.core.screening import DEFAULT_MODEL
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    EMBED_KIND,
    EMBEDDER,
    RETRAIN_KIND,
    ConfigureRequest,
    DecideRequest,
    ItemsRequest,
    NextRequest,
    ProgressRequest,
    ScreeningRequestError,
    StudyScreenRequest,
    _vectors,
    embed_owner,
    retrain_owner,
    text_sha,
)

TA = "title_abstract"


class Counting:
    """The app's sentence encoder, counting the texts it was asked to embed; ``fail_after``
    batches: raise on the next one (a worker dying mid-job)."""

    def __init__(self, inner: Any, fail_after: int | None = None) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self.batches = 0
        self.fail_after = fail_after
        self.name, self.dim = inner.name, inner.dim

    def embed(self, texts: list[str]) -> Any:
        if self.fail_after is not None and self.batches >= self.fail_after:
            raise RuntimeError("worker died")
        self.batches += 1
        self.texts += texts
        return self.inner.embed(texts)


def _keys(app: App, sid: str) -> list[str]:
    rows = app.screening.items(ItemsRequest(sid, page_size=500), owner=app.owner).rows
    return [r["record_key"] for r in rows]


def _two_decisions(app: App, sid: str) -> None:
    keys = _keys(app, sid)
    for key, verdict in zip(keys, ("include", "exclude"), strict=False):
        app.screening.decide(DecideRequest(sid, TA, key, verdict), owner=app.owner)  # type: ignore[arg-type]


def _texts(app: App, sid: str) -> list[str]:
    screen = app.screening.cache.screen_set(sid)
    return app.screening.rows.texts(screen)


def _stored(app: App, sid: str) -> dict[str, bytes]:
    with app.store.read() as conn:
        return store_screening.get_vectors(conn, sid, EMBEDDER)


def test_the_model_is_a_setting_and_a_bad_name_is_refused(app: App, export: Path) -> None:
    sid = make_study(app, "Choice", [export])
    view = app.screening.settings(StudyScreenRequest(sid), owner=app.owner).to_dict()
    assert view["model"] == DEFAULT_MODEL
    svm = app.screening.configure(ConfigureRequest(sid, model="litdesk-svm-2"), owner=app.owner)
    assert svm.settings.model == "litdesk-svm-2"
    changed = app.screening.configure(
        ConfigureRequest(sid, model="litdesk-handover"), owner=app.owner
    ).to_dict()
    assert changed["model"] == "litdesk-handover"
    # choosing it queues the embedding job (nothing is embedded on the request path)
    assert app.jobs.active_of(EMBED_KIND, owner=embed_owner(sid)) is not None
    assert _stored(app, sid) == {}
    with pytest.raises(ScreeningRequestError) as err:
        ConfigureRequest(sid, model="elas_u4")
    assert err.value.code == "bad_model"


def test_falls_back_to_the_default_until_every_record_has_its_row(app: App, export: Path) -> None:
    sid = make_study(app, "Handover", [export])
    app.screening.configure(ConfigureRequest(sid, model="litdesk-svm-2"), owner=app.owner)
    _two_decisions(app, sid)
    assert app.screening.work_retrain(sid, TA, owner=app.owner).name == "litdesk-svm-2"
    with app.store.read() as conn:
        svm = store_screening.get_model(conn, sid, TA)
    assert svm is not None and svm.model == "litdesk-svm-2"

    app.screening.configure(ConfigureRequest(sid, model="litdesk-handover"), owner=app.owner)
    encoder = Counting(app.models.sentence_embedder())
    app.screening.rows.embedder = lambda: encoder
    # a retrain that finds no rows: the default model again, and the embedding job queued
    fallback = app.screening.retrainer.train(sid, TA)
    assert fallback["trained"] and fallback["model"] == "litdesk-svm-2"
    assert app.jobs.active_of(EMBED_KIND, owner=embed_owner(sid)) is not None
    progress = app.screening.progress(ProgressRequest(sid, TA), owner=app.owner).to_dict()
    assert progress["model"]["name"] == "litdesk-svm-2"

    # the CLI's `screen retrain` (no server): the embedding job, then the retrain it queues
    model = app.screening.work_retrain(sid, TA, owner=app.owner)
    texts = _texts(app, sid)
    assert (model.name, model.state) == ("litdesk-handover", "ready")
    assert sorted(encoder.texts) == sorted(set(texts))  # every text once, no label read
    stored = _stored(app, sid)
    assert set(stored) == {text_sha(t) for t in texts}
    first = texts[0]
    row = np.frombuffer(stored[text_sha(first)], dtype="<f4")
    expected = UseEmbedder().embed([first])[0]  # USE-m3 itself (the app's remembers rows)
    assert row.shape == (512,) and np.allclose(row, expected, atol=1e-6)
    with app.store.read() as conn:
        handover = store_screening.get_model(conn, sid, TA)
    assert handover is not None and handover.model == "litdesk-handover"
    assert handover.version > svm.version
    assert handover.scores != svm.scores  # the sentence encoder's SVM counts in the order
    card = app.screening.next(NextRequest(sid, TA), owner=app.owner)
    assert card.order.model.name == "litdesk-handover"
    assert "litdesk-handover" in card.order.label
    # the rows are kept: a later retrain reads them and embeds nothing again
    embedded = len(encoder.texts)
    app.screening.decide(DecideRequest(sid, TA, _keys(app, sid)[2], "exclude"), owner=app.owner)
    again = app.screening.work_retrain(sid, TA, owner=app.owner)
    assert again.name == "litdesk-handover" and len(encoder.texts) == embedded
    # back to the default model: its scores, named so
    app.screening.configure(ConfigureRequest(sid, model="litdesk-svm-2"), owner=app.owner)
    assert app.screening.work_retrain(sid, TA, owner=app.owner).name == "litdesk-svm-2"


def test_a_job_stopped_mid_way_keeps_its_batches_and_embeds_only_the_rest(
    any_settings: Any, export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_vectors, "BATCH", 10)
    with open_app_sync(any_settings) as app:
        sid = make_study(app, "Stopped", [export])
        _two_decisions(app, sid)
        texts = set(_texts(app, sid))
        assert len(texts) > 20
        app.screening.configure(ConfigureRequest(sid, model="litdesk-handover"), owner=app.owner)
        dying = Counting(app.models.sentence_embedder(), fail_after=2)
        app.screening.rows.embedder = lambda: dying
        app.screening.rows.slice_s = float("inf")  # one job to the failure (no hand-on)
        with pytest.raises(RuntimeError):
            app.screening.rows.run(sid)
        assert len(_stored(app, sid)) == 20  # the two batches stored before the failure
        shas = [text_sha(t) for t in texts]
        with app.store.read() as conn:  # the keys alone say which rows are there
            assert store_screening.known_vectors(conn, sid, EMBEDDER, shas) == set(
                _stored(app, sid)
            )
        assert app.screening.rows.rows(sid, app.screening.cache.screen_set(sid)) is None
        # no retrain with the hand-over model while rows are missing
        assert app.screening.retrainer.train(sid, TA)["model"] == "litdesk-svm-2"
        fresh = Counting(app.models.sentence_embedder())
        app.screening.rows.embedder = lambda: fresh
        done = app.screening.rows.run(sid)
        assert done == {"embedded": len(texts) - 20, "missing": 0, "embedder": EMBEDDER}
        assert set(fresh.texts).isdisjoint(dying.texts) and len(fresh.texts) == len(texts) - 20
        assert set(_stored(app, sid)) == {text_sha(t) for t in texts}
        # when it has stored the rows it queues the retrains, which use them
        assert app.jobs.active_of(RETRAIN_KIND, owner=retrain_owner(sid, TA)) is not None
        assert app.screening.work_retrain(sid, TA, owner=app.owner).name == "litdesk-handover"


def test_an_embedding_job_hands_the_rest_on_after_its_slice(
    app: App, export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one batch per slice: the job stores it, queues a new job for the rest and ends, so
    # retrains queued meanwhile on the screening runner run between two slices
    monkeypatch.setattr(_vectors, "BATCH", 10)
    sid = make_study(app, "Sliced", [export])
    _two_decisions(app, sid)
    texts = set(_texts(app, sid))
    app.screening.configure(ConfigureRequest(sid, model="litdesk-handover"), owner=app.owner)
    for job in app.jobs.list(owner=embed_owner(sid), kinds=[EMBED_KIND], limit=5):
        app.jobs.cancel(job.id, owner=embed_owner(sid))
    app.screening.rows.slice_s = 0.0
    first = app.screening.rows.run(sid)
    assert first == {
        "embedded": 10, "missing": len(texts) - 10, "embedder": EMBEDDER, "handed_on": True
    }  # fmt: skip
    assert app.jobs.active_of(EMBED_KIND, owner=embed_owner(sid)) is not None
    # the CLI's way (no server) runs the queued slices one after another to the end
    assert app.screening.work_retrain(sid, TA, owner=app.owner).name == "litdesk-handover"
    assert set(_stored(app, sid)) == {text_sha(t) for t in texts}
    # retrains and embeddings have their own runner, not the imports' and indexes' one
    assert set(app.screening_runner.handlers) == {RETRAIN_KIND, EMBED_KIND}
    assert not {RETRAIN_KIND, EMBED_KIND} & set(app.job_runner.handlers)
