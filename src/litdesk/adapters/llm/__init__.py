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
from ._probe import PROBE_TIMEOUT, ServerProbe, probe_ollama, probe_openai

__all__ = [
    "PROBE_TIMEOUT",
    "THINKING_BUDGET",
    "ServerProbe",
    "probe_ollama",
    "probe_openai",
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
