"""Embedding backends for the PDF library (wordllama default, sentence-transformers, Ollama)."""

from ._embedders import (
    Embedder,
    EmbedderError,
    OllamaEmbedder,
    SentenceTransformersEmbedder,
    WordLlamaEmbedder,
    embedder_name,
    make_embedder,
)

__all__ = [
    "Embedder",
    "EmbedderError",
    "OllamaEmbedder",
    "SentenceTransformersEmbedder",
    "WordLlamaEmbedder",
    "embedder_name",
    "make_embedder",
]
