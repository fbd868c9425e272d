"""One OpenAlex work's citation links (a singleton ``/works/{id}`` answer) → WorkLinks:
its id, title, ``referenced_works`` and ``related_works`` (canonical ``W…`` ids, each list
capped; a longer list sets ``truncated``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from litdesk.core.records import normalize_openalex_id

from ._common import ProviderParseError, load_json

__all__ = ["MAX_LINKS", "WorkLinks", "parse_openalex_links"]

PROVIDER: Final = "openalex"
#: Ids read per list from referenced_works / related_works; longer lists set truncated.
MAX_LINKS: Final = 2_000


@dataclass(frozen=True, slots=True)
class WorkLinks:
    work: str
    title: str
    referenced: tuple[str, ...]
    related: tuple[str, ...]
    truncated: bool


def _ids(value: object, cap: int) -> tuple[tuple[str, ...], bool]:
    if not isinstance(value, list):
        return (), False
    out: dict[str, None] = {}
    for item in value:
        w = normalize_openalex_id(item) if isinstance(item, str) else None
        if w is not None:
            out[w] = None
        if len(out) >= cap:
            return tuple(out), len(value) > cap
    return tuple(out), False


def parse_openalex_links(body: bytes, *, max_ids: int = MAX_LINKS) -> WorkLinks:
    """Parse one work's links, or raise :class:`ProviderParseError` (never the body)."""
    doc = load_json(PROVIDER, body)
    if not isinstance(doc, dict):
        raise ProviderParseError(PROVIDER, "a work answer that is not an object", body)
    work = normalize_openalex_id(doc.get("id"))
    if work is None:
        raise ProviderParseError(PROVIDER, "a work answer without a work id", body)
    referenced, t1 = _ids(doc.get("referenced_works"), max_ids)
    related, t2 = _ids(doc.get("related_works"), max_ids)
    title = doc.get("title") or doc.get("display_name") or ""
    return WorkLinks(
        work=work,
        title=" ".join(str(title).split())[:500],
        referenced=referenced,
        related=related,
        truncated=t1 or t2,
    )
