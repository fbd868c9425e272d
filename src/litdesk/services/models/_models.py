"""The embedder and the chat backend of one app, made on first use (loading a local model
takes seconds; a CLI command that never embeds never loads it) and closed once with the
app."""

from __future__ import annotations

import threading

import httpx

from litdesk._settings import Settings
from litdesk.adapters.embeddings import Embedder, UseEmbedder, make_embedder
from litdesk.adapters.llm import ChatBackend, make_backend

__all__ = ["Models"]


class Models:
    """The app's embedder (and the HTTP client of a served one) and chat backend."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # guards only the first construction of each part (worker threads may race to it)
        self._lock = threading.Lock()
        self._embedder: Embedder | None = None
        self._sentences: Embedder | None = None
        self._backend: ChatBackend | None = None
        self._client: httpx.Client | None = None

    def embedder(self) -> Embedder:
        """The settings' embedder (``embedder``), made once."""
        with self._lock:
            if self._embedder is None:
                s = self.settings
                base = s.openai_base_url.rstrip("/").removesuffix("/v1")
                if s.embedder.strip().startswith("ollama:"):
                    timeout = httpx.Timeout(120.0, connect=s.http_connect_timeout)
                    self._client = httpx.Client(timeout=timeout, follow_redirects=False)
                self._embedder = make_embedder(
                    s.embedder,
                    cache_dir=s.resolved_data_dir() / "models" / "wordllama",
                    client=self._client,
                    ollama_url=base,
                )
            return self._embedder

    def sentence_embedder(self) -> Embedder:
        """The offline sentence encoder screening's hand-over model reads (USE-m3, 512
        dimensions, whatever ``embedder`` says: the model was measured with it), made once."""
        with self._lock:
            if self._sentences is None:
                self._sentences = UseEmbedder()
            return self._sentences

    def backend(self) -> ChatBackend:
        """The settings' chat backend (``llm_backend``, ``chat_model``), made once."""
        with self._lock:
            if self._backend is None:
                s = self.settings
                self._backend = make_backend(
                    s.llm_backend,
                    model=s.chat_model,
                    anthropic_api_key=s.anthropic_api_key.get_secret_value()
                    if s.anthropic_api_key
                    else None,
                    openai_base_url=s.openai_base_url,
                    openai_api_key=s.openai_api_key.get_secret_value()
                    if s.openai_api_key
                    else None,
                    anthropic_base_url=s.anthropic_base_url,
                )
            return self._backend

    def close(self) -> None:
        """Close what was made (the embedder's client, the backend's HTTP client)."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
            backend, self._backend = self._backend, None
            self._embedder = None
            self._sentences = None
        close = getattr(backend, "close", None)
        if callable(close):
            close()
