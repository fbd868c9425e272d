"""Remote subject suggestions (``app.subjects.remote_suggest``): OpenAlex autocomplete for
the search form's active term, asked through the app's one provider transport (exact host,
no redirects, byte limit, timeouts, OpenAlex's pacing, the account's and the lab's daily
allowance, the record/replay cassette) and shown after the offline vocabularies' answer.

Policy (what a keystroke costs):

* nothing is asked when the offline answer already fills the list (``limit`` suggestions),
  for a term shorter than :data:`~litdesk.core.vocab.MIN_REMOTE_TERM` characters, in
  semantic mode or the author field;
* an answer is kept per (provider, entity, normalised term) for :data:`REMOTE_TTL_SECONDS`
  (at most :data:`REMOTE_CACHE_ENTRIES` terms, the oldest dropped first), so retyping or
  backspacing over a term costs no call;
* trouble never raises: the view's ``status`` says ``unavailable`` (no key, a replay
  cassette without this exchange, the network, an unreadable answer), ``allowance_spent``
  or ``rate_limited``, with one plain sentence; the browser says it once and stops asking.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk.adapters.http import CassetteMiss, ProviderTransport, TransportFailed, TransportRefused
from litdesk.core.vocab import (
    MAX_REMOTE_TERM,
    MIN_REMOTE_TERM,
    RemoteAnswerInvalid,
    RemoteSubject,
    autocomplete_request,
    normalise,
    parse_autocomplete,
    quote_label,
    remote_key,
    remote_vocabulary_name,
)

__all__ = [
    "REMOTE_CACHE_ENTRIES",
    "REMOTE_LIMIT",
    "REMOTE_TTL_SECONDS",
    "RemoteAnswer",
    "RemoteStatus",
    "RemoteSuggestView",
    "RemoteSuggestion",
    "RemoteSuggestions",
    "remote_term_fits",
    "remote_view",
]

#: How long an answer is kept (seconds) and how many terms are kept at most.
REMOTE_TTL_SECONDS: Final = 3_600.0
REMOTE_CACHE_ENTRIES: Final = 2_048
#: Remote suggestions shown at most (after the offline ones).
REMOTE_LIMIT: Final = 5
_PROVIDER: Final = "openalex"
_SOURCE: Final = "OpenAlex (CC0)"
_SLOW_DOWN: Final = "Remote suggestions paused for a moment: OpenAlex asked litdesk to slow down."

RemoteStatus = Literal["ok", "skipped", "unavailable", "allowance_spent", "rate_limited"]
TransportFor = Callable[[str], ProviderTransport]


@dataclass(frozen=True, slots=True)
class RemoteSuggestView:
    """The remote suggestions for the active term (``active``: the span a pick replaces),
    each shaped as an offline suggestion (``kind`` ``remote``); ``status`` and a plain
    ``message`` when there are none on purpose or by trouble; ``cached``: answered from
    the server's cache (no call)."""

    active: Mapping[str, Any] | None
    suggestions: tuple[RemoteSuggestion, ...]
    status: RemoteStatus = "ok"
    message: str = ""
    cached: bool = False
    attribution: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "active": dict(self.active) if self.active is not None else None,
            "suggestions": [s.to_dict() for s in self.suggestions],
            "status": self.status,
            "message": self.message,
            "cached": self.cached,
            "attribution": self.attribution,
        }


@dataclass(frozen=True, slots=True)
class RemoteSuggestion:
    """A remote subject as the suggestion list shows it: shaped as an offline suggestion
    (``kind`` ``remote``), plain text, no link out, inserted as its quoted label."""

    subject: RemoteSubject

    def to_dict(self) -> dict[str, Any]:
        subject = self.subject
        return subject.to_dict() | {
            "matched": subject.label,
            "kind": "remote",
            "insert": quote_label(subject.label),
            "insert_controlled": None,
            "insert_synonyms": None,
            "synonyms": [],
            "url": None,
            "page": None,
            "vocabulary_name": remote_vocabulary_name(subject.vocabulary) or subject.vocabulary,
        }


@dataclass(frozen=True, slots=True)
class RemoteAnswer:
    """What the provider gave for a term (or why nothing)."""

    subjects: tuple[RemoteSubject, ...]
    status: RemoteStatus = "ok"
    message: str = ""


def _unavailable(why: str) -> RemoteAnswer:
    return RemoteAnswer((), "unavailable", f"Remote suggestions unavailable: {why}.")


class RemoteSuggestions:
    """Asks OpenAlex autocomplete for a term through ``transport_for(owner)`` (the app's
    transport reserving in that owner's allowance) and keeps the answers for a while."""

    def __init__(
        self,
        transport_for: TransportFor,
        *,
        clock: Clock = SYSTEM_CLOCK,
        entities: Sequence[str] = ("topics",),
        ttl: float = REMOTE_TTL_SECONDS,
        max_entries: int = REMOTE_CACHE_ENTRIES,
    ) -> None:
        self._transport_for = transport_for
        self._clock = clock
        self.entities = tuple(entities)
        self._ttl = ttl
        self._max = max_entries
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[str, str, str], tuple[float, tuple[RemoteSubject, ...]]]
        self._cache = OrderedDict()
        #: calls made (sent or replayed), for the tests and the bench
        self.calls = 0

    def cached(self, text: str) -> tuple[RemoteSubject, ...] | None:
        """The kept answer for ``text`` over every entity (``None``: one is missing)."""
        now = self._clock.monotonic()
        out: list[RemoteSubject] = []
        with self._lock:
            for entity in self.entities:
                key = (_PROVIDER, entity, remote_key(text))
                hit = self._cache.get(key)
                if hit is None or hit[0] <= now:
                    return None
                self._cache.move_to_end(key)
                out.extend(hit[1])
        return tuple(out)

    def _keep(self, entity: str, text: str, subjects: tuple[RemoteSubject, ...]) -> None:
        with self._lock:
            key = (_PROVIDER, entity, remote_key(text))
            self._cache[key] = (self._clock.monotonic() + self._ttl, subjects)
            self._cache.move_to_end(key)
            while len(self._cache) > self._max:
                self._cache.popitem(last=False)

    async def ask(self, text: str, *, owner: str) -> RemoteAnswer:
        """The subjects for ``text`` (from the cache, else one call per entity)."""
        found: list[RemoteSubject] = []
        transport = self._transport_for(owner)
        for entity in self.entities:
            answer = await self._ask_one(transport, entity, text)
            if answer.status != "ok":
                return answer
            found.extend(answer.subjects)
        return RemoteAnswer(tuple(found))

    async def _ask_one(self, transport: ProviderTransport, entity: str, text: str) -> RemoteAnswer:
        request = autocomplete_request(entity, text)
        self.calls += 1
        try:
            exchange = await transport.fetch(request)
        except CassetteMiss:
            return _unavailable("this server answers from a recording that does not hold them")
        except TransportRefused as exc:
            if exc.lane_status == "budget_exhausted":
                return RemoteAnswer(
                    (),
                    "allowance_spent",
                    "Remote suggestions paused: today's OpenAlex allowance is spent.",
                )
            if exc.lane_status == "rate_limited":
                return RemoteAnswer((), "rate_limited", _SLOW_DOWN)
            if exc.lane_status == "unavailable":
                return _unavailable("no OpenAlex API key is set on this server")
            return _unavailable("OpenAlex cannot be asked from here")
        except TransportFailed:
            return _unavailable("OpenAlex did not answer")
        if exchange.status == 404:
            subjects: tuple[RemoteSubject, ...] = ()
        elif exchange.status == 429:
            return RemoteAnswer((), "rate_limited", _SLOW_DOWN)
        elif not 200 <= exchange.status < 300:
            return _unavailable(f"OpenAlex answered with an error (HTTP {exchange.status})")
        else:
            try:
                subjects = parse_autocomplete(exchange.body, entity)
            except RemoteAnswerInvalid:
                return _unavailable("OpenAlex's answer could not be read")
        self._keep(entity, text, subjects)
        return RemoteAnswer(subjects)


def remote_view(
    active: Mapping[str, Any] | None,
    offline: Sequence[Mapping[str, Any]],
    answer: RemoteAnswer,
    *,
    cached: bool,
    limit: int = REMOTE_LIMIT,
) -> RemoteSuggestView:
    """The remote rows not already offered offline (by label), at most ``limit``."""
    if answer.status != "ok":
        return RemoteSuggestView(active, (), answer.status, answer.message, cached)
    shown = {normalise(str(s.get("label", ""))) for s in offline}
    rows: list[RemoteSuggestion] = []
    for subject in answer.subjects:
        if normalise(subject.label) in shown:
            continue
        shown.add(normalise(subject.label))
        rows.append(RemoteSuggestion(subject))
        if len(rows) >= limit:
            break
    return RemoteSuggestView(active, tuple(rows), "ok", "", cached, _SOURCE if rows else "")


def remote_term_fits(text: str) -> bool:
    """Whether a term is asked remotely at all (its length, spaces collapsed)."""
    return MIN_REMOTE_TERM <= len(" ".join(text.split())) <= MAX_REMOTE_TERM
