"""Embedders: wordllama offline, Ollama over a real loopback server, optional ST."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import numpy as np
import pytest

from litdesk._errors import ConfigError
from litdesk.adapters.embeddings import (
    Embedder,
    EmbedderError,
    JointEmbedder,
    OllamaEmbedder,
    UseEmbedder,
    WordLlamaEmbedder,
    cross_lingual_part,
    embedder_name,
    make_embedder,
)


@pytest.fixture(scope="session")
def wordllama(tmp_path_factory: pytest.TempPathFactory) -> WordLlamaEmbedder:
    return WordLlamaEmbedder(tmp_path_factory.mktemp("wl") / "models")


def test_wordllama_offline_normalised_and_meaningful(wordllama: WordLlamaEmbedder) -> None:
    assert isinstance(wordllama, Embedder)
    assert wordllama.name == embedder_name("wordllama")
    v = wordllama.embed(
        ["heat stress in wheat", "wheat plants under high temperature", "CMB dark matter"]
    )
    assert v.dtype == np.float32 and v.shape == (3, wordllama.dim)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]
    assert wordllama.embed([]).shape == (0, wordllama.dim)


def test_wordllama_tokenizer_linked_into_cache(
    tmp_path: Path, wordllama: WordLlamaEmbedder
) -> None:
    cache = tmp_path / "models"
    WordLlamaEmbedder(cache)
    linked = list((cache / "tokenizers").glob("*.json"))
    assert linked and all(p.is_symlink() for p in linked)


def test_unknown_specs_and_missing_options() -> None:
    with pytest.raises(ConfigError):
        make_embedder("word2vec", cache_dir=Path("."))
    with pytest.raises(ConfigError):
        make_embedder("ollama", cache_dir=Path("."))
    with pytest.raises(ConfigError):
        make_embedder("ollama:nomic-embed-text", cache_dir=Path("."))  # no client
    assert embedder_name("ollama:nomic-embed-text") == "ollama-nomic-embed-text"


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers is installed here",
)
def test_sentence_transformers_missing_is_a_clear_config_error() -> None:
    with pytest.raises(ConfigError, match="sentence-transformers"):
        make_embedder("sentence-transformers:all-MiniLM-L6-v2", cache_dir=Path("."))


class _Ollama(BaseHTTPRequestHandler):
    mode = "ok"
    seen: list[dict[str, object]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "body": body})
        if type(self).mode == "500":
            self.send_response(500)
            self.end_headers()
            return
        if type(self).mode == "bad":
            payload = b'{"embeddings": [[1, 2]]}'
        else:
            vecs = [[float(len(t)), 1.0, 0.0] for t in body["input"]]
            payload = json.dumps({"embeddings": vecs}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def ollama_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ollama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Ollama.seen = []
    _Ollama.mode = "ok"
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ollama_embed_over_loopback(ollama_url: str) -> None:
    with httpx.Client(timeout=5) as client:
        emb = make_embedder(
            "ollama:nomic", cache_dir=Path("."), client=client, ollama_url=ollama_url
        )
        assert isinstance(emb, OllamaEmbedder)
        v = emb.embed(["a", "abc"] * 40)
        assert v.shape == (80, 3) and emb.dim == 3
        assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    assert [s["path"] for s in _Ollama.seen] == ["/api/embed", "/api/embed"]  # batches of 64
    assert _Ollama.seen[0]["body"]["model"] == "nomic"  # type: ignore[index]


@pytest.mark.parametrize("mode", ["500", "bad"])
def test_ollama_failures_are_typed(ollama_url: str, mode: str) -> None:
    _Ollama.mode = mode
    with httpx.Client(timeout=5) as client:
        emb = OllamaEmbedder(client, "nomic", base_url=ollama_url)
        with pytest.raises(EmbedderError):
            emb.embed(["a", "b"])


def test_ollama_unreachable_is_typed() -> None:
    with httpx.Client(timeout=1) as client:
        emb = OllamaEmbedder(client, "nomic", base_url="http://127.0.0.1:9")
        with pytest.raises(EmbedderError, match="failed"):
            emb.embed(["a"])


def test_wordllama_fast_pooling_equals_wordllama_embed(wordllama: WordLlamaEmbedder) -> None:
    texts = [
        "Heat stress reduced the kernel weight of wheat. " * 20,
        "",
        "x",
        "Sedimentos do estuário com cádmio; señal débil — ünïcödé ✓",
    ] * 70  # more than one batch
    fast = wordllama.embed(texts)
    ref = wordllama.reference_embed(texts)
    nonempty = [i for i, t in enumerate(texts) if t]
    assert np.allclose(fast[nonempty], ref[nonempty], atol=1e-5)
    assert np.all(fast[1] == 0)  # an empty text has no direction


@pytest.fixture(scope="session")
def use_m3() -> UseEmbedder:
    return UseEmbedder()


def test_use_m3_offline_cross_lingual(use_m3: UseEmbedder) -> None:
    assert use_m3.name == embedder_name("use-m3") and use_m3.dim == 512
    question = "What share of Chinese articles are open access?"
    v = use_m3.embed(
        [
            question,
            "Da produção científica chinesa, 3,3% dos artigos está em acesso aberto.",
            "El coeficiente alfa de Cronbach del cuestionario fue de 0,853.",
            "",  # empty text: a row all the same
        ]
    )
    assert v.dtype == np.float32 and v.shape == (4, 512)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]  # the Portuguese answer is nearer than the Spanish aside
    assert use_m3.embed([]).shape == (0, 512)


def test_use_m3_is_loaded_once_per_process(use_m3: UseEmbedder) -> None:
    """Every App makes its embedder; each loaded USE-m3 again at its first text (1.4 s of
    CPU). Embedders of one process share the loaded encoder now, and embed the same."""
    use_m3.embed(["warm"])
    other = UseEmbedder()
    started = time.thread_time()
    vectors = other.embed(["the same text"])
    assert time.thread_time() - started < 0.5  # no loading (about 1.4 s)
    assert other.model is use_m3.model
    assert np.array_equal(vectors, use_m3.embed(["the same text"]))


def test_joint_embedder_averages_the_cosines(
    wordllama: WordLlamaEmbedder, use_m3: UseEmbedder
) -> None:
    joint = JointEmbedder([wordllama, use_m3])
    assert joint.name == "wordllama-l2-256+use-m3-512" == embedder_name("wordllama+use-m3")
    assert joint.dim == 256 + 512
    texts = ["heat stress in wheat", "wheat plants under high temperature"]
    j = joint.embed(texts)
    a, b = wordllama.embed(texts), use_m3.embed(texts)
    assert np.isclose(j[0] @ j[1], ((a[0] @ a[1]) + (b[0] @ b[1])) / 2, atol=1e-5)
    assert np.allclose(np.linalg.norm(j, axis=1), 1.0, atol=1e-5)
    with pytest.raises(ConfigError):
        make_embedder("wordllama+", cache_dir=Path("."))
    with pytest.raises(ConfigError):
        JointEmbedder([wordllama])


def test_cross_lingual_part_is_use_m3_alone_or_in_a_joint(
    use_m3: UseEmbedder, wordllama: WordLlamaEmbedder
) -> None:
    assert cross_lingual_part(use_m3) is use_m3
    assert cross_lingual_part(JointEmbedder([wordllama, use_m3])) is use_m3
    assert cross_lingual_part(wordllama) is None
