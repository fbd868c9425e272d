"""Chat model backends: one interface, three implementations.

* :class:`AnthropicBackend` — the official SDK, ``max_retries=0``; its client (an HTTPS
  connection pool) is shared by the backends of one key, URL and timeout (``_clients``).
* :class:`OpenAICompatBackend` — the official openai SDK with a ``base_url``
  (Ollama, llama.cpp, vLLM, …), ``max_retries=0``.
* :class:`NoModelBackend` — no model at all: an extractive answer made of the
  cited excerpts, so litdesk answers with nothing installed.

Thinking levels add output tokens for hidden reasoning (2k / 4k / 8k). A reply
whose visible text is empty while the model stopped at its token limit raises
:class:`HiddenReasoningOnly`. A request may carry a JSON schema (structured output:
Anthropic ``output_config``, OpenAI ``response_format``); a reply says whether hidden
reasoning was seen and whether the model refused.

The Anthropic key goes only to ``https://api.anthropic.com`` or to a base URL set
explicitly (https, or http on loopback for tests and local proxies): the SDK is always
given its base URL, so no ``ANTHROPIC_BASE_URL`` environment variable can redirect it.
"""

from __future__ import annotations

import ipaddress
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from litdesk._errors import ConfigError, ExternalError
from litdesk.core.library import Excerpt, extractive_answer

from ._clients import borrow_anthropic, give_back, openai_http_client

__all__ = [
    "ANTHROPIC_API_URL",
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
    "check_anthropic_base_url",
    "make_backend",
]

Thinking = Literal["off", "low", "medium", "high"]
THINKING_BUDGET: Final[dict[str, int]] = {"off": 0, "low": 2048, "medium": 4096, "high": 8192}
DEFAULT_MAX_TOKENS: Final = 1200
ANTHROPIC_API_URL: Final = "https://api.anthropic.com"
_THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


class ModelError(ExternalError):
    """The model server failed or answered something unusable."""

    default_code = "model"


class HiddenReasoningOnly(ModelError):
    """The model spent its whole budget on hidden reasoning and wrote no answer."""

    default_code = "hidden_reasoning"


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One model call: system rule, user message, and the excerpts behind them."""

    system: str
    user: str
    excerpts: tuple[Excerpt, ...] = ()
    max_tokens: int = DEFAULT_MAX_TOKENS
    thinking: Thinking = "off"
    question: str = ""  # the plain question (the no-model backend picks sentences by it)
    json_schema: Mapping[str, Any] | None = None  # structured output (the answer's shape)
    schema_name: str = "answer"


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The visible text of a reply and why the model stopped."""

    text: str
    stop_reason: str | None = None
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    reasoning: bool = False  # hidden reasoning (thinking blocks, reasoning content) was seen
    refusal: str | None = None  # the model's refusal text, when it refused


@runtime_checkable
class ChatBackend(Protocol):
    """What the answer service needs from a model."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def is_model(self) -> bool:
        """False for the no-model backend (no translation variant, extractive answers)."""
        ...

    def complete(self, request: ChatRequest) -> ChatReply: ...


def _hidden_only(text: str, stop: str | None, model: str, thinking: str) -> None:
    if not text.strip() and stop in {"max_tokens", "length"}:
        raise HiddenReasoningOnly(
            f"model {model} produced only hidden reasoning and reached its token limit "
            f"(thinking={thinking}); turn thinking off or lower, or ask again",
            model=model,
        )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_anthropic_base_url(url: str | None) -> str:
    """The base URL the Anthropic key may go to: the official API, or an explicit https
    URL, or http on loopback. Anything else is a :class:`ConfigError` (the URL's path and
    query are not echoed)."""
    if url is None or not url.strip():
        return ANTHROPIC_API_URL
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if parts.username or parts.password:
        raise ConfigError("the Anthropic base URL must not carry credentials", code="base_url")
    if parts.scheme == "https" and host:
        return url.strip()
    if parts.scheme == "http" and _loopback(host):
        return url.strip()
    raise ConfigError(
        "the Anthropic base URL must be https, or http on loopback (127.0.0.1, ::1, localhost)",
        code="base_url",
    )


def _host(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host


def _budget(request: ChatRequest) -> int:
    if request.thinking not in THINKING_BUDGET:
        raise ConfigError(f"unknown thinking level {request.thinking!r}")
    return THINKING_BUDGET[request.thinking]


class AnthropicBackend:
    """Anthropic Messages API through the official SDK (no retries)."""

    def __init__(
        self, *, api_key: str, model: str, timeout: float = 120.0, base_url: str | None = None
    ) -> None:
        import anthropic

        self._sdk = anthropic
        self._base_url = check_anthropic_base_url(base_url)
        self._client, self._token = borrow_anthropic(api_key, self._base_url, timeout)
        self._held = True
        self._model = model

    name = "anthropic"
    is_model = True

    @property
    def model(self) -> str:
        return self._model

    @property
    def host(self) -> str:
        """Where requests go (host[:port]): shown before anything is sent."""
        return _host(self._base_url)

    def close(self) -> None:
        """Give the shared SDK client back (its connections stay open for the next backend
        of this configuration; the runtime's shutdown closes idle ones). Once only."""
        if self._held:
            self._held = False
            give_back(self._token)

    def complete(self, request: ChatRequest) -> ChatReply:
        budget = _budget(request)
        kwargs: dict[str, Any] = {
            "model": self._model,
            "max_tokens": request.max_tokens + budget,
            "system": request.system,
            "messages": [{"role": "user", "content": request.user}],
        }
        if budget:
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if request.json_schema is not None:
            kwargs["output_config"] = {
                "format": {"type": "json_schema", "schema": dict(request.json_schema)}
            }
        try:
            msg = self._client.messages.create(**kwargs)
        except self._sdk.APIStatusError as exc:
            raise ModelError(f"Anthropic answered HTTP {exc.status_code}") from None
        except self._sdk.APIError as exc:
            raise ModelError(f"Anthropic call failed: {type(exc).__name__}") from None
        text = "".join(getattr(b, "text", "") for b in msg.content if b.type == "text").strip()
        reasoning = any(b.type in {"thinking", "redacted_thinking"} for b in msg.content)
        _hidden_only(text, msg.stop_reason, self._model, request.thinking)
        usage = {"input": msg.usage.input_tokens, "output": msg.usage.output_tokens}
        refusal = "refused" if msg.stop_reason == "refusal" else None
        return ChatReply(text, msg.stop_reason, self._model, usage, reasoning, refusal)


class OpenAICompatBackend:
    """Any OpenAI-compatible chat server through the official openai SDK (no retries)."""

    def __init__(
        self, *, base_url: str, model: str, api_key: str | None = None, timeout: float = 120.0
    ) -> None:
        import openai

        self._sdk = openai
        self._base_url = base_url
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            max_retries=0,
            timeout=timeout,
            http_client=openai_http_client(timeout),  # one TLS context per process
        )
        self._model = model
        # close() while a call runs in another thread (a cancelled job stops waiting for
        # it) closes the pool when that call returns: closing a connection under a blocked
        # read leaves the read hanging until the timeout, and with it the runtime's shutdown
        self._calls = 0
        self._closing = False
        self._guard = threading.Lock()

    name = "openai"
    is_model = True

    @property
    def model(self) -> str:
        return self._model

    @property
    def host(self) -> str:
        """Where requests go (host[:port]): shown before anything is sent."""
        return _host(self._base_url)

    def close(self) -> None:
        """Close the SDK's connection pool (once a call under way has returned)."""
        with self._guard:
            if self._calls:
                self._closing = True
                return
        self._client.close()

    def _begin(self) -> None:
        with self._guard:
            if self._closing:
                raise ModelError("the model backend is closed")
            self._calls += 1

    def _end(self) -> None:
        with self._guard:
            self._calls -= 1
            last = self._closing and not self._calls
        if last:
            self._client.close()

    def complete(self, request: ChatRequest) -> ChatReply:
        budget = _budget(request)
        extra: dict[str, Any] = {}
        if budget:
            extra["reasoning_effort"] = request.thinking
        options: dict[str, Any] = {}
        if request.json_schema is not None:
            options["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": dict(request.json_schema),
                    "strict": True,
                },
            }
        self._begin()
        try:
            resp = self._client.chat.completions.create(
                model=self._model,
                messages=[
                    {"role": "system", "content": request.system},
                    {"role": "user", "content": request.user},
                ],
                max_tokens=request.max_tokens + budget,
                extra_body=extra or None,
                **options,
            )
        except self._sdk.APIStatusError as exc:
            raise ModelError(f"model server answered HTTP {exc.status_code}") from None
        except self._sdk.APIError as exc:
            raise ModelError(f"model server call failed: {type(exc).__name__}") from None
        finally:
            self._end()
        if not resp.choices:
            raise ModelError("model server answered no choices")
        choice = resp.choices[0]
        raw = choice.message.content or ""
        text = _THINK_BLOCK.sub("", raw).strip()
        reasoning = bool(
            _THINK_BLOCK.search(raw)
            or getattr(choice.message, "reasoning_content", None)
            or getattr(choice.message, "reasoning", None)
        )
        _hidden_only(text, choice.finish_reason, self._model, request.thinking)
        usage: dict[str, int] = {}
        if resp.usage is not None:
            usage = {"input": resp.usage.prompt_tokens, "output": resp.usage.completion_tokens}
        refusal = getattr(choice.message, "refusal", None) or None
        return ChatReply(
            text,
            choice.finish_reason,
            resp.model or self._model,
            usage,
            reasoning,
            str(refusal)[:500] if refusal else None,
        )


class NoModelBackend:
    """No model: answers are the leading sentences of the excerpts, each cited."""

    name = "none"
    model = "extractive"
    is_model = False
    host = ""

    def complete(self, request: ChatRequest) -> ChatReply:
        _budget(request)
        return ChatReply(
            extractive_answer(request.question or request.user, request.excerpts), "end", self.model
        )


@dataclass(frozen=True, slots=True)
class BackendTarget:
    """Which backend, where its requests go (host[:port]) and which model it asks — read
    from the settings without building the backend (no SDK imported, no client, no TLS
    context): what a consent notice shows before anything is sent."""

    name: str
    host: str
    model: str


def backend_target(
    kind: str,
    *,
    model: str | None = None,
    anthropic_api_key: str | None = None,
    openai_base_url: str | None = None,
    anthropic_base_url: str | None = None,
) -> BackendTarget:
    """The target of the backend :func:`make_backend` builds from the same settings, after
    the same checks (each a :class:`ConfigError`)."""
    if kind == "none":
        return BackendTarget(NoModelBackend.name, NoModelBackend.host, NoModelBackend.model)
    if kind not in {"anthropic", "openai"}:
        raise ConfigError(f"unknown llm_backend {kind!r}: use none, anthropic or openai")
    if not model:
        raise ConfigError(f"llm_backend {kind!r} needs LITDESK_CHAT_MODEL")
    if kind == "anthropic":
        if not anthropic_api_key:
            raise ConfigError("llm_backend 'anthropic' needs LITDESK_ANTHROPIC_API_KEY")
        return BackendTarget(kind, _host(check_anthropic_base_url(anthropic_base_url)), model)
    if not openai_base_url:
        raise ConfigError("llm_backend 'openai' needs LITDESK_OPENAI_BASE_URL")
    return BackendTarget(kind, _host(openai_base_url), model)


def make_backend(
    kind: str,
    *,
    model: str | None = None,
    anthropic_api_key: str | None = None,
    openai_base_url: str | None = None,
    openai_api_key: str | None = None,
    anthropic_base_url: str | None = None,
    timeout: float = 120.0,
) -> ChatBackend:
    """The backend named by the ``llm_backend`` setting (its target: :func:`backend_target`)."""
    target = backend_target(
        kind, model=model, anthropic_api_key=anthropic_api_key,
        openai_base_url=openai_base_url, anthropic_base_url=anthropic_base_url,
    )  # fmt: skip
    if target.name == "anthropic":
        assert anthropic_api_key is not None  # backend_target checked it
        return AnthropicBackend(
            api_key=anthropic_api_key, model=target.model, base_url=anthropic_base_url,
            timeout=timeout,
        )  # fmt: skip
    if target.name == "openai":
        assert openai_base_url is not None
        return OpenAICompatBackend(
            base_url=openai_base_url, model=target.model, api_key=openai_api_key, timeout=timeout
        )
    return NoModelBackend()
