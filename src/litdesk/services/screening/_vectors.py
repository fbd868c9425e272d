"""The sentence-encoder rows the hand-over model reads (``litdesk-handover``, issue 28).

A job of the store's queue (kind ``screening.embed``, one active per Study: its owner is
:func:`embed_owner`, submitted with ``reuse_active``) embeds the title and abstract of each
record of the Study's working set that has no row yet with the app's sentence encoder
(USE-m3, 512 dimensions, no label read) and stores the rows by the text's SHA-256, one
transaction per batch: a worker killed mid-job loses at most the batch it was embedding,
and the job, claimed again when its lease ends, embeds only what is still missing. When it
has stored rows it queues the Study's retrains, so that the ranking reads them.

A job embeds for at most :data:`SLICE_SECONDS` and then hands the rest to a new job of the
queue (:attr:`SentenceRows.requeue`), so that the retrains queued meanwhile on the same
runner (the screening runner of a server) run between two slices instead of after the whole
embedding of a large Study.

Until every record of the working set has its row the retrain uses the default model (the
stored scores name the model that made them, and the screen shows it).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from litdesk.adapters.embeddings import Embedder
from litdesk.adapters.store import Store, screening
from litdesk.services.jobs import Handler, JobContext

from ._items import ScreenSet, StudyCache

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["BATCH", "EMBED_KIND", "EMBEDDER", "SentenceRows", "embed_owner", "text_sha"]

EMBED_KIND: Final = "screening.embed"
#: the stored rows' embedder name (the model was measured with this one only)
EMBEDDER: Final = "use-m3-512"
#: texts embedded and stored per transaction
BATCH: Final = 64
#: seconds a job embeds before it hands the rest to a new job (retrains run in between)
SLICE_SECONDS: Final = 10.0


def embed_owner(study_id: str) -> str:
    """The queue owner of a Study's embedding job (one active per Study)."""
    return f"study:{study_id}:screening:embed"


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SentenceRows:
    """Reads and makes a Study's stored rows; ``embedder`` makes the sentence encoder on
    first use (``None``: no encoder, the hand-over model never has rows)."""

    def __init__(
        self,
        store: Store,
        cache: StudyCache,
        texts: Callable[[ScreenSet], list[str]],
        embedder: Callable[[], Embedder] | None,
        *,
        slice_s: float = SLICE_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.cache = cache
        self.texts = texts
        self.embedder = embedder
        self.slice_s = slice_s
        self.monotonic = monotonic
        #: called with a Study's id when the job stored rows (the area queues its retrains)
        self.on_stored: Callable[[str], None] = lambda _study_id: None
        #: queues a new embedding job of the Study for the rest (whether it was queued;
        #: when not, the job goes on embedding itself)
        self.requeue: Callable[[str], bool] = lambda _study_id: False

    def rows(self, study_id: str, screen: ScreenSet) -> npt.NDArray[np.float32] | None:
        """The working set's rows in its order (float32, one per group), or ``None`` while
        a record has none."""
        import numpy as np

        if self.embedder is None:
            return None
        shas = [text_sha(t) for t in self.texts(screen)]
        with self.store.read() as conn:
            # while rows are missing (the job still embedding) only their keys are read
            if len(screening.known_vectors(conn, study_id, EMBEDDER, shas)) < len(set(shas)):
                return None
            found = screening.get_vectors(conn, study_id, EMBEDDER, shas)
        if len(found) < len(set(shas)):  # a Study's rows are never deleted: this is a guard
            return None
        return np.vstack([np.frombuffer(found[s], dtype=np.float32) for s in shas])

    def run(self, study_id: str, ctx: JobContext | None = None) -> dict[str, Any]:
        """Embed and store the rows still missing (batch by batch; stops between batches
        when the job must, and after :attr:`slice_s` when a new job takes the rest)."""
        if self.embedder is None:
            return {"embedded": 0, "missing": None, "embedder": None}
        screen = self.cache.screen_set(study_id)
        by_sha = {text_sha(t): t for t in self.texts(screen)}
        with self.store.read() as conn:
            known = screening.known_vectors(conn, study_id, EMBEDDER, list(by_sha))
        missing = [sha for sha in by_sha if sha not in known]
        embedded = 0
        handed_on = False
        started = self.monotonic()
        for start in range(0, len(missing), BATCH):
            if ctx is not None and (
                ctx.should_stop or not ctx.progress(embedded, len(missing), "embedding")
            ):
                break
            if embedded and self.monotonic() - started >= self.slice_s:
                handed_on = self.requeue(study_id)
                if handed_on:
                    break
                started = self.monotonic()  # not queued: go on here, one slice at a time
            part = missing[start : start + BATCH]
            vectors = self.embedder().embed([by_sha[sha] for sha in part])
            rows = {sha: vectors[i].astype("<f4").tobytes() for i, sha in enumerate(part)}
            with self.store.write() as conn:
                screening.put_vectors(conn, study_id, EMBEDDER, rows)
            embedded += len(part)
        left = len(missing) - embedded
        if embedded and not left:
            self.on_stored(study_id)
        out: dict[str, Any] = {"embedded": embedded, "missing": left, "embedder": EMBEDDER}
        if handed_on:
            out["handed_on"] = True  # a new job of the queue embeds the rest
        return out

    def handler(self) -> Handler:
        def run(ctx: JobContext) -> dict[str, Any] | None:
            return self.run(str(ctx.params["study_id"]), ctx)

        return run
