"""One guarded model call: consent checked against the exact text, the allowance
reserved in the store (released when a later check refuses), one request with no
automatic retry, and the answer's stop reason checked before anything is parsed.

Backends are chosen per role from the settings: ``chat`` (``llm_backend``,
``chat_model``) and ``generation`` (``generation_backend`` / ``generation_model``,
defaulting to the chat ones)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal, Protocol

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import ConfigError, LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.llm import (
    BackendTarget,
    ChatReply,
    ChatRequest,
    HiddenReasoningOnly,
    Thinking,
    backend_target,
    make_backend,
)
from litdesk.adapters.store import Store
from litdesk.core.assist import AnswerRefused, ConsentNotice, check_consent, check_stop

from ._allowance import AssistAllowance, Ticket

__all__ = [
    "CANCELLED_NOTICE",
    "AssistBackend",
    "AssistUnavailable",
    "Assistant",
    "CallRecord",
    "ModelAnswer",
    "ModelCall",
    "Role",
    "assist_backend",
    "assist_target",
]

Role = Literal["chat", "generation"]
CANCELLED_NOTICE: Final = (
    "the request was cancelled; the model backend may already have processed it "
    "(the call counts against the allowance)"
)


class AssistUnavailable(ConfigError):
    """No model backend is configured for this role (``llm_backend`` is ``none``)."""

    default_code = "assist_unavailable"


class AssistBackend(Protocol):
    """What a guarded call needs from a model backend."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def host(self) -> str: ...

    def complete(self, request: ChatRequest) -> ChatReply: ...


def _role_backend(settings: Settings, role: Role) -> tuple[str, str | None]:
    """The backend kind and model of ``role`` (never the no-model backend)."""
    if role == "generation":
        kind = settings.generation_backend or settings.llm_backend
        model = settings.generation_model or settings.chat_model
    else:
        kind, model = settings.llm_backend, settings.chat_model
    if kind == "none":
        raise AssistUnavailable(
            "AI assistance needs a model: set LITDESK_LLM_BACKEND (anthropic or openai) and "
            "LITDESK_CHAT_MODEL",
            code="assist_unavailable",
        )
    return kind, model


def assist_target(settings: Settings, role: Role) -> BackendTarget:
    """Where the backend of ``role`` sends and which model it asks, checked as
    :func:`assist_backend` checks them, without building it: a consent notice needs no
    SDK, client or TLS context (the model call's work)."""
    kind, model = _role_backend(settings, role)
    key = settings.anthropic_api_key.get_secret_value() if settings.anthropic_api_key else None
    target = backend_target(
        kind, model=model, anthropic_api_key=key, openai_base_url=settings.openai_base_url,
        anthropic_base_url=settings.anthropic_base_url,
    )  # fmt: skip
    if not target.host:
        raise AssistUnavailable("the model backend names no host", code="assist_unavailable")
    return target


def assist_backend(settings: Settings, role: Role) -> AssistBackend:
    """The backend of ``role`` from the settings (never the no-model backend)."""
    assist_target(settings, role)  # its checks, before anything is built
    kind, model = _role_backend(settings, role)
    key = settings.anthropic_api_key.get_secret_value() if settings.anthropic_api_key else None
    okey = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    backend = make_backend(
        kind,
        model=model,
        anthropic_api_key=key,
        openai_base_url=settings.openai_base_url,
        openai_api_key=okey,
        anthropic_base_url=settings.anthropic_base_url,
        timeout=settings.assist_timeout_seconds,
    )
    return backend  # type: ignore[return-value]  # the two model backends have ``host``


@dataclass(frozen=True, slots=True)
class ModelCall:
    """What one feature asks: the fixed rules, the exact user text, the answer's shape."""

    feature: str
    system: str
    user: str
    schema: Mapping[str, Any]
    schema_name: str
    max_tokens: int
    max_answer_chars: int


@dataclass(frozen=True, slots=True)
class CallRecord:
    """Where and when a call went: the provenance kept with what it produced."""

    backend: str
    model: str
    host: str
    requested_at: str
    answered_at: str
    stop_reason: str | None
    reasoning: bool
    usage: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": self.model,
            "host": self.host,
            "requested_at": self.requested_at,
            "answered_at": self.answered_at,
            "stop_reason": self.stop_reason,
            "reasoning": self.reasoning,
            "usage": dict(self.usage),
        }


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    """The visible answer text (reasoning removed) and the call's record."""

    text: str
    record: CallRecord


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")


class Assistant:
    """Guarded model calls for one store and settings (a backend per role)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        role: Role = "generation",
        backend: AssistBackend | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.store = store
        self.settings = settings
        self.role = role
        self._backend = backend
        self._owns_backend = backend is None
        self._clock = clock
        self._target: BackendTarget | None = None
        self.allowance = AssistAllowance(store, settings, clock=clock)

    @property
    def target(self) -> BackendTarget:
        """Which backend, host and model a call goes to: the given backend's, else read
        from the settings (nothing is built for it)."""
        if self._backend is not None:
            b = self._backend
            return BackendTarget(b.name, b.host, b.model)
        if self._target is None:
            self._target = assist_target(self.settings, self.role)
        return self._target

    @property
    def backend(self) -> AssistBackend:
        if self._backend is None:
            self._backend = assist_backend(self.settings, self.role)
        return self._backend

    def close(self) -> None:
        """Close the backend's connections (when this assistant built it)."""
        close = getattr(self._backend, "close", None)
        if self._owns_backend and callable(close):
            close()
        self._backend = None if self._owns_backend else self._backend

    def __enter__(self) -> Assistant:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def notice(self, text: str) -> ConsentNotice:
        """What will be sent, where, and the token that consents to exactly that (no
        backend is built for it: a preview does none of the call's work)."""
        t = self.target
        return ConsentNotice(text=text, host=t.host, backend=t.name, model=t.model)

    async def call(
        self,
        call: ModelCall,
        *,
        owner: str,
        consent: str | None,
        preflight: Callable[[], None] | None = None,
        key: str | None = None,
    ) -> ModelAnswer:
        """Send ``call`` once, after consent, a reservation and ``preflight`` (a refusal
        there releases the reservation). Raises :class:`AnswerRefused` for a length stop,
        a refusal, only hidden reasoning or an empty answer; model errors pass through.
        Every call that was sent counts, whatever its outcome. ``key`` (a job's id): the
        reservation's key — a job claimed again after its worker died gets
        :class:`~._allowance.CallInterrupted` instead of a second call."""
        check_consent(consent, self.notice(call.user))
        ticket = await asyncio.to_thread(
            lambda: self.allowance.reserve(owner, call.feature, key=key)
        )
        if preflight is not None:
            try:
                preflight()
            except LitdeskError:
                await asyncio.to_thread(self.allowance.release, ticket)
                raise
        return await self._send(call, ticket)

    async def _send(self, call: ModelCall, ticket: Ticket) -> ModelAnswer:
        b = self.backend
        thinking: Thinking = self.settings.thinking  # type: ignore[assignment]  # pattern-checked
        request = ChatRequest(
            system=call.system,
            user=call.user,
            max_tokens=call.max_tokens,
            thinking=thinking,
            json_schema=call.schema,
            schema_name=call.schema_name,
        )
        started = self._clock.now()
        try:
            reply = await asyncio.to_thread(b.complete, request)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.to_thread(self.allowance.finish, ticket, "cancelled"))
            raise
        except HiddenReasoningOnly:
            await asyncio.to_thread(self.allowance.finish, ticket, "failed")
            raise AnswerRefused(
                "the model produced only hidden reasoning and reached its token limit; nothing "
                "was saved (turn thinking off or lower)",
                code="hidden_reasoning_only",
            ) from None
        except BaseException:
            await asyncio.to_thread(self.allowance.finish, ticket, "failed")
            raise
        record = CallRecord(
            backend=b.name,
            model=reply.model or b.model,
            host=b.host,
            requested_at=_iso(started),
            answered_at=_iso(self._clock.now()),
            stop_reason=reply.stop_reason,
            reasoning=reply.reasoning,
            usage=dict(reply.usage),
        )
        try:
            check_stop(
                reply.stop_reason, text=reply.text, reasoning=reply.reasoning, refusal=reply.refusal
            )
        except AnswerRefused:
            await asyncio.to_thread(self.allowance.finish, ticket, "failed")
            raise
        await asyncio.to_thread(self.allowance.finish, ticket, "ok")
        return ModelAnswer(reply.text, record)
