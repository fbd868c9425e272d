"""Embedding backends for the PDF library (wordllama default, sentence-transformers, Ollama)."""

from ._embedders import (
    Embedder,
    EmbedderError,
    JointEmbedder,
    OllamaEmbedder,
    SentenceTransformersEmbedder,
    UseEmbedder,
    WordLlamaEmbedder,
    cross_lingual_part,
    embedder_name,
    is_local_embedder,
    make_embedder,
)

__all__ = [
    "Embedder",
    "EmbedderError",
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
