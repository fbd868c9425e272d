"""Errors told to people, shared by the CLI and the web face.

Every error a person sees says what happened and what to do, in plain words, built from
the error's fields (its family, code, details and message) — never its class name or an
HTTP code, which stay in the folded details and the JSON API:

* a provider's transport failure (timeout, rate limit, refused, 5xx, no network) as the
  lane notices say it: ``Europe PMC did not answer in 30 seconds. Try again, or search
  the other databases.``;
* a replayed search the recording lacks: what happened, and how to search for real;
* the families: the message (written for people where litdesk raises it) and what to do
  next for that family (correct the input; check the address; wait; ask the admin).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from litdesk._errors import (
    ConfigError,
    ExternalError,
    InputError,
    IntegrityError,
    LitdeskError,
    NotFoundError,
    RefusedError,
)
from litdesk.core.providers import PROVIDERS, display_name, lane_notice, wait_words

__all__ = ["Explained", "explain", "explain_code", "explain_status", "sentence"]

#: lane statuses a transport error may carry (see ``adapters.http``)
_LANE_STATUSES: Final = frozenset(
    {"rate_limited", "unsupported", "unavailable", "timeout", "parse_error", "budget_exhausted"}
)
#: codes whose remedy is to wait (queues full, allowances spent, busy sessions)
_WAIT_CODES: Final = frozenset(
    {"too_many_jobs", "imports_busy", "allowance", "chat_busy", "rate_limited"}
)


@dataclass(frozen=True, slots=True)
class Explained:
    """What happened (``text``) and what to do (``hint``; "" when the text says it)."""

    text: str
    hint: str = ""

    def __str__(self) -> str:
        return f"{self.text} {self.hint}".strip()


def sentence(text: str) -> str:
    """``no Study 'x'`` → ``No Study 'x'.``: a capital first letter and a full stop."""
    text = " ".join(text.split())
    if not text:
        return ""
    if text[0].islower():
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _provider_of(exc: LitdeskError) -> str | None:
    named = exc.details.get("provider")
    if isinstance(named, str) and named in PROVIDERS:
        return named
    head = exc.message.split(":", 1)[0].strip()
    return head if head in PROVIDERS else None


def _transport(exc: LitdeskError) -> Explained | None:
    """A provider exchange that failed or was refused before sending (any family)."""
    status = getattr(exc, "lane_status", None)
    provider = _provider_of(exc)
    if not isinstance(status, str) or status not in _LANE_STATUSES or provider is None:
        return None
    retry = exc.details.get("retry_after")
    seconds = (
        float(retry) if isinstance(retry, (int, float)) and not isinstance(retry, bool) else None
    )
    return Explained(lane_notice(status, provider, message=exc.message, retry_after=seconds))


def _replay_miss(provider: str | None) -> Explained:
    source = display_name(provider) if provider else "the databases"
    return Explained(
        f"This search is not among the recorded answers litdesk is replaying, so "
        f"{source} {'was' if provider else 'were'} not asked.",
        "Search for something the recording holds, or start litdesk without --replay "
        "to search the databases.",
    )


def explain(exc: LitdeskError) -> Explained:
    """The error told to a person: what happened and what to do next."""
    if exc.code == "cassette_miss":
        return _replay_miss(_provider_of(exc))
    told = _transport(exc)
    if told is not None:
        return told
    text = sentence(exc.message)
    if exc.code in _WAIT_CODES:
        retry = exc.details.get("retry_after")
        seconds = float(retry) if isinstance(retry, (int, float)) else None
        return Explained(text, f"Wait and try again {wait_words(seconds)}.")
    if exc.hint is not None:  # the error's own advice
        return Explained(text, exc.hint)
    if isinstance(exc, InputError):
        return Explained(text, "Correct it and try again.")
    if isinstance(exc, NotFoundError):
        return Explained(
            text, "It may have been removed, or its name or id is mistyped: pick it from its list."
        )
    if isinstance(exc, RefusedError):
        return Explained(text, "Nothing was changed.")
    if isinstance(exc, ExternalError):
        return Explained(
            text, "Something litdesk depends on did not answer. Try again in a minute."
        )
    if isinstance(exc, ConfigError):
        return Explained(text, "litdesk's settings need to change for this (see docs/settings.md).")
    if isinstance(exc, IntegrityError):
        return Explained(
            text,
            "Data litdesk read back failed its checks; nothing was changed. If it keeps "
            "happening, the log has the details.",
        )
    return Explained(text, "Try again; if it keeps happening, see the server log.")


_BY_STATUS: Final = {
    404: Explained(
        "There is no page at this address.", "Check the address, or go to Search or Studies."
    ),
    405: Explained("This page cannot be used that way.", "Go back and use the page's buttons."),
    413: Explained("What was sent is too large.", "Send a smaller file or less text."),
    500: Explained(
        "Something went wrong inside litdesk.",
        "Try again; if it keeps happening, the server log has the details.",
    ),
}


def explain_status(status: int) -> Explained:
    """A framework error (no such page, wrong method, too large, internal) in words."""
    return _BY_STATUS.get(
        status, Explained("The request could not be answered.", "Go back and try again.")
    )


def explain_code(code: str, message: str) -> Explained | None:
    """An error known only by its stored code and message (a live search's end): the
    words for the codes whose message is not written for people, else ``None``."""
    if code == "cassette_miss":
        return _replay_miss(None)
    return None
