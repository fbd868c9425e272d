"""AI assistance: consent bound to content, allowances in the store, one guarded model
call per request (no automatic retry), and the features built on them."""

from ._allowance import (
    CHAT_FEATURE,
    LIBRARY_FEATURES,
    REPORT_BUILD_FEATURE,
    AllowanceRefused,
    AssistAllowance,
    CallInterrupted,
    Ticket,
)
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
from ._metered import MeteredBackend

__all__ = [
    "CANCELLED_NOTICE",
    "CHAT_FEATURE",
    "CHECK_CALL",
    "LIBRARY_FEATURES",
    "REPORT_BUILD_FEATURE",
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
    "CallInterrupted",
    "CallRecord",
    "ModelAnswer",
    "ModelCall",
    "MeteredBackend",
    "ModelCheck",
    "Role",
    "Ticket",
    "assist_backend",
    "check_model",
]
