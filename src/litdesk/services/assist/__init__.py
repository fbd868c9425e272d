"""AI assistance: consent bound to content, allowances in the store, one guarded model
call per request (no automatic retry), and the features built on them."""

from ._allowance import AllowanceRefused, AssistAllowance, Ticket
from ._call import (
    CANCELLED_NOTICE,
    Assistant,
    AssistBackend,
    AssistUnavailable,
    CallRecord,
    ModelAnswer,
    ModelCall,
    Role,
    assist_backend,
)
from ._check import CHECK_CALL, ModelCheck, check_model
from ._extract import (
    AssistedEvidence,
    EvidenceAssistant,
    ExtractionPreview,
    ExtractionSource,
    ProvenanceView,
    SuggestionDraft,
)

__all__ = [
    "CANCELLED_NOTICE",
    "CHECK_CALL",
    "AllowanceRefused",
    "AssistedEvidence",
    "EvidenceAssistant",
    "ExtractionPreview",
    "ExtractionSource",
    "ProvenanceView",
    "SuggestionDraft",
    "AssistAllowance",
    "AssistBackend",
    "AssistUnavailable",
    "Assistant",
    "CallRecord",
    "ModelAnswer",
    "ModelCall",
    "ModelCheck",
    "Role",
    "Ticket",
    "assist_backend",
    "check_model",
]
