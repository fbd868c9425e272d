"""Remote subject suggestions (pure): the OpenAlex autocomplete request for a typed term and
the reading of its answer (untrusted JSON) into subjects of a remote vocabulary.

Wire format (``GET https://api.openalex.org/autocomplete/<entity>?q=<text>``)::

    {"meta": {"count": 183, "db_response_time_ms": 5, "page": 1, "per_page": 10},
     "results": [{"id": "https://openalex.org/T10017", "display_name": "…",
                  "hint": "…", "cited_by_count": 1, "works_count": 2,
                  "entity_type": "topic", "external_id": "…",
                  "filter_key": "topics.id"}, …]}

(for a topic the ``hint`` is its description and ``external_id`` its Wikipedia page; a
keyword's result may carry no ``entity_type``: it is then read by its id alone)

Each result becomes a :class:`RemoteSubject` of the vocabulary ``openalex_<entity_type>``
(``openalex_topic``, ``T10017``): the id is the OpenAlex key (the letter of the entity and
digits), the label its ``display_name`` as plain text (control characters removed, spaces
collapsed, at most :data:`MAX_REMOTE_LABEL` characters). A result of another entity, with
no usable id or label, is skipped; an answer that is not this shape raises
:class:`RemoteAnswerInvalid`. Reading is linear in the body's size (one ``json.loads``,
then at most :data:`MAX_REMOTE_RESULTS` results looked at)."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.core.search import CompiledRequest

from ._index import normalise

__all__ = [
    "MAX_REMOTE_LABEL",
    "MAX_REMOTE_RESULTS",
    "MAX_REMOTE_TERM",
    "MIN_REMOTE_TERM",
    "REMOTE_ENTITIES",
    "REMOTE_VOCABULARY_NAMES",
    "RemoteAnswerInvalid",
    "RemoteSubject",
    "autocomplete_request",
    "is_remote_vocabulary",
    "parse_autocomplete",
    "remote_key",
    "remote_vocabulary_name",
]

#: OpenAlex entities litdesk asks for subjects: the path segment → the ``entity_type`` its
#: results carry and the letter its ids start with.
REMOTE_ENTITIES: Final = {
    "topics": ("topic", "T"),
    "concepts": ("concept", "C"),
    "keywords": ("keyword", "K"),
}
#: Each remote vocabulary's display name (``openalex_topic`` → ``OpenAlex topic``).
REMOTE_VOCABULARY_NAMES: Final = {
    f"openalex_{kind}": f"OpenAlex {kind}" for kind, _ in REMOTE_ENTITIES.values()
}
#: Shortest and longest term asked remotely (shorter matches too much to be useful).
MIN_REMOTE_TERM: Final = 3
MAX_REMOTE_TERM: Final = 100
#: Results looked at per answer (OpenAlex sends at most ten); longest label kept.
MAX_REMOTE_RESULTS: Final = 25
MAX_REMOTE_LABEL: Final = 300
_HOST: Final = "https://api.openalex.org"
_ID: Final = re.compile(r"(?:https://openalex\.org/)?([A-Za-z])(\d{1,15})")
_KEYWORD_ID: Final = re.compile(r"(?:https://openalex\.org/keywords/)([a-z0-9][a-z0-9\-]{0,63})")
_VOCABULARY_PREFIX: Final = "openalex_"


class RemoteAnswerInvalid(InputError):
    """A remote suggestion answer is not the provider's autocomplete format."""

    default_code = "remote_answer"


@dataclass(frozen=True, slots=True)
class RemoteSubject:
    """One remote suggestion: ``vocabulary`` (``openalex_topic``), the provider's ``id``
    there (``T10017``), its ``label`` and a ``hint`` (plain text; may be empty)."""

    vocabulary: str
    id: str
    label: str
    hint: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "vocabulary": self.vocabulary,
            "id": self.id,
            "label": self.label,
            "hint": self.hint,
        }


def remote_vocabulary_name(vocabulary: str) -> str | None:
    """``OpenAlex topic`` for ``openalex_topic`` (``None``: not a remote vocabulary)."""
    return REMOTE_VOCABULARY_NAMES.get(vocabulary)


def is_remote_vocabulary(vocabulary: str) -> bool:
    """Whether ``vocabulary`` names a remote one (``openalex_topic`` …)."""
    return vocabulary in REMOTE_VOCABULARY_NAMES


def remote_key(text: str) -> str:
    """The cache key of a typed term (normalised as the offline index compares)."""
    return normalise(text)


def autocomplete_request(entity: str, text: str) -> CompiledRequest:
    """The OpenAlex autocomplete request for ``text`` (credentials are the transport's)."""
    if entity not in REMOTE_ENTITIES:
        raise InputError(f"OpenAlex has no subject entity {entity[:40]!r} litdesk asks for")
    term = " ".join(text.split())
    if not MIN_REMOTE_TERM <= len(term) <= MAX_REMOTE_TERM:
        raise InputError(
            f"a remote suggestion needs {MIN_REMOTE_TERM} to {MAX_REMOTE_TERM} characters",
            code="remote_term",
        )
    return CompiledRequest(
        provider="openalex",
        operation="lookup",
        method="GET",
        url=f"{_HOST}/autocomplete/{entity}",
        params=(("q", term),),
        executed_query=term,
        lane="openalex-autocomplete",
    )


def _plain(value: object, limit: int) -> str:
    """``value`` as one line of plain text (control and format characters dropped)."""
    if not isinstance(value, str):
        return ""
    cut = value[: limit * 4]  # bounded work before cleaning
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in cut
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    )
    return " ".join(kept.split())[:limit].strip()


def _ident(raw: object, letter: str) -> str | None:
    if not isinstance(raw, str) or len(raw) > 200:
        return None
    match = _ID.fullmatch(raw.strip())
    if match is not None and match.group(1).upper() == letter:
        return f"{letter}{match.group(2)}"
    if letter == "K":  # keywords are named by a slug: https://openalex.org/keywords/<slug>
        slug = _KEYWORD_ID.fullmatch(raw.strip())
        return slug.group(1) if slug is not None else None
    return None


def parse_autocomplete(body: bytes, entity: str) -> tuple[RemoteSubject, ...]:
    """The subjects of an autocomplete answer for ``entity`` (each id once, in order)."""
    if entity not in REMOTE_ENTITIES:
        raise RemoteAnswerInvalid(f"no subject entity {entity[:40]!r}")
    kind, letter = REMOTE_ENTITIES[entity]
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RemoteAnswerInvalid(
            f"the autocomplete answer is not JSON ({type(exc).__name__})"
        ) from None
    if not isinstance(doc, dict):
        raise RemoteAnswerInvalid("the autocomplete answer is not an object")
    results = doc.get("results")
    if not isinstance(results, list):
        raise RemoteAnswerInvalid("the autocomplete answer has no results list")
    out: dict[str, RemoteSubject] = {}
    for item in results[:MAX_REMOTE_RESULTS]:
        if not isinstance(item, dict):
            continue
        declared = item.get("entity_type")
        if declared is not None and declared != kind:
            continue
        ident = _ident(item.get("id"), letter)
        label = _plain(item.get("display_name"), MAX_REMOTE_LABEL)
        if ident is None or not label or ident in out:
            continue
        out[ident] = RemoteSubject(
            f"{_VOCABULARY_PREFIX}{kind}", ident, label, _plain(item.get("hint"), 200)
        )
    return tuple(out.values())
