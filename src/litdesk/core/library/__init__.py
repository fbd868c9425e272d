"""The local PDF library's pure logic: chunking, scans, retrieval, the citation gate."""

from ._chunking import CHUNKING_VERSION, Chunk, chunk_pages, normalise_text
from ._gate import (
    CITATION_RULE,
    Excerpt,
    GateResult,
    GroundedAnswer,
    PromptMessages,
    build_prompt,
    check_answer,
    extractive_answer,
    run_gate,
)
from ._retrieval import (
    DEFAULT_TOP_K,
    MAX_TOP_K,
    Candidate,
    allocate,
    per_paper_minimum,
    rrf,
    salient_words,
)
from ._scan import REFERENCE_HEADINGS, FoundIds, cut_references, find_ids
from ._support import (
    ABSTAIN_BELOW,
    DocFrequencies,
    abstention_text,
    judge,
    question_terms,
    support,
    terms,
)
from ._vectors import EXACT_BELOW, VectorIndex, normalise_rows, top_k_exact

__all__ = [
    "ABSTAIN_BELOW",
    "CHUNKING_VERSION",
    "CITATION_RULE",
    "DEFAULT_TOP_K",
    "EXACT_BELOW",
    "MAX_TOP_K",
    "REFERENCE_HEADINGS",
    "Candidate",
    "Chunk",
    "DocFrequencies",
    "Excerpt",
    "FoundIds",
    "GateResult",
    "GroundedAnswer",
    "PromptMessages",
    "VectorIndex",
    "abstention_text",
    "allocate",
    "build_prompt",
    "check_answer",
    "chunk_pages",
    "cut_references",
    "extractive_answer",
    "find_ids",
    "judge",
    "normalise_rows",
    "normalise_text",
    "per_paper_minimum",
    "question_terms",
    "rrf",
    "run_gate",
    "salient_words",
    "support",
    "terms",
    "top_k_exact",
]
