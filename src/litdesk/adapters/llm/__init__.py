"""Chat model backends: Anthropic, OpenAI-compatible servers, and no model (extractive)."""

from ._backends import (
    THINKING_BUDGET,
    AnthropicBackend,
    ChatBackend,
    ChatReply,
    ChatRequest,
    HiddenReasoningOnly,
    ModelError,
    NoModelBackend,
    OpenAICompatBackend,
    Thinking,
    make_backend,
)

__all__ = [
    "THINKING_BUDGET",
    "AnthropicBackend",
    "ChatBackend",
    "ChatReply",
    "ChatRequest",
    "HiddenReasoningOnly",
    "ModelError",
    "NoModelBackend",
    "OpenAICompatBackend",
    "Thinking",
    "make_backend",
]
