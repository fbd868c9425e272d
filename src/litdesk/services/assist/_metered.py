"""A chat backend whose every model call is reserved from the store's allowance.

The paper chat, ``litdesk ask`` and report builds call their model through this wrapper:
each ``complete`` reserves one call of the owner's pool (``chat`` or ``report``) before the
request goes out, and records how it ended (``ok``, or ``failed`` for any error: a call
that was sent counts). The no-model backend (extractive answers) reserves nothing.

A refusal because another call of the same owner is still in flight is a short wait, not
an error: a report build's calls follow each other, and a question asked while one of the
owner's calls runs waits for it (at most ``wait_seconds``). Every other refusal (a daily
allowance spent, the store failing) raises :class:`AllowanceRefused` before anything is
sent."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from litdesk.adapters.llm import ChatBackend, ChatReply, ChatRequest

from ._allowance import AllowanceRefused, AssistAllowance, Ticket

__all__ = ["MeteredBackend"]

#: Seconds between two tries while another call of the owner is in flight.
_POLL: Final = 0.2


class MeteredBackend:
    """``inner`` with each model call reserved for ``owner`` under ``feature``."""

    def __init__(
        self,
        inner: ChatBackend,
        allowance: AssistAllowance,
        *,
        owner: str,
        feature: str,
        wait_seconds: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
        on_reserved: Callable[[Ticket], None] | None = None,
    ) -> None:
        """``on_reserved(ticket)`` runs after each reservation, before the request goes out
        (a background job writes the ticket down, so that the attempt which takes it over
        after this process died can close it: see :meth:`AssistAllowance.abandon`)."""
        self.inner = inner
        self.allowance = allowance
        self.owner = owner
        self.feature = feature
        self.wait_seconds = wait_seconds
        self._sleep = sleep
        self.on_reserved = on_reserved
        #: model calls this wrapper made (reserved and sent)
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def is_model(self) -> bool:
        return self.inner.is_model

    def _reserve(self) -> Ticket:
        deadline = time.monotonic() + self.wait_seconds
        while True:
            try:
                return self.allowance.reserve(self.owner, self.feature)
            except AllowanceRefused as exc:
                if exc.code != "in_flight" or time.monotonic() >= deadline:
                    raise
            self._sleep(_POLL)

    def complete(self, request: ChatRequest) -> ChatReply:
        if not self.inner.is_model:  # extractive: no model call, nothing reserved
            return self.inner.complete(request)
        ticket = self._reserve()
        if self.on_reserved is not None:
            try:
                self.on_reserved(ticket)
            except BaseException:  # nothing was sent: the reservation is given back
                self.allowance.release(ticket)
                raise
        try:
            reply = self.inner.complete(request)
        except BaseException:
            self.allowance.finish(ticket, "failed")
            raise
        self.allowance.finish(ticket, "ok")
        self.calls += 1
        return reply
