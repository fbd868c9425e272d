"""Chat model backends: Anthropic, OpenAI-compatible servers, and no model (extractive)."""

from ._backends import (
    ANTHROPIC_API_URL,
    THINKING_BUDGET,
    AnthropicBackend,
    BackendTarget,
    ChatBackend,
    ChatReply,
    ChatRequest,
    HiddenReasoningOnly,
    ModelError,
    NoModelBackend,
    OpenAICompatBackend,
    Thinking,
    backend_target,
    check_anthropic_base_url,
    make_backend,
)
from ._clients import close_idle_clients, openai_tls_context, shared_clients
from ._probe import PROBE_TIMEOUT, ServerProbe, probe_ollama, probe_openai

__all__ = [
    "ANTHROPIC_API_URL",
    "PROBE_TIMEOUT",
    "THINKING_BUDGET",
    "ServerProbe",
    "probe_ollama",
    "probe_openai",
    "AnthropicBackend",
    "BackendTarget",
    "ChatBackend",
    "ChatReply",
    "ChatRequest",
    "HiddenReasoningOnly",
    "ModelError",
    "NoModelBackend",
    "OpenAICompatBackend",
    "Thinking",
    "backend_target",
    "check_anthropic_base_url",
    "close_idle_clients",
    "make_backend",
    "openai_tls_context",
    "shared_clients",
]
