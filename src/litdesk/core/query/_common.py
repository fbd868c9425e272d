"""Helpers shared by the provider compilers (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlencode, urlsplit

from litdesk.core.search import HOSTS, CompiledRequest, CompileRefused, ProviderName, SearchFilters

from ._errors import QueryFilterError
from ._grammar import And, Node, Not, Query, Term, iter_terms, parse_query

__all__ = [
    "FIELD_NAMES",
    "MAX_CURSOR_CHARS",
    "MAX_URL_BYTES",
    "YEAR_MAX",
    "YEAR_MIN",
    "ResolvedField",
    "all_fields",
    "check_limit",
    "check_negations",
    "ensure_query",
    "finish",
    "full_url",
    "has_operators",
    "offset_cursor",
    "refuse_compound_truncation",
    "refuse_semantic",
    "refuse_truncation",
    "resolved_field",
    "split_and",
    "text_cursor",
    "year_range",
]

MAX_URL_BYTES: Final = 4094
MAX_CURSOR_CHARS: Final = 4096
YEAR_MIN: Final = 1800
YEAR_MAX: Final = 2199

ResolvedField = Literal["all", "title", "abstract", "author", "author_last", "mesh"]

FIELD_NAMES: Final[dict[str, str]] = {
    "all": "all fields",
    "title": "the title",
    "abstract": "the abstract",
    "author": "authors",
    "author_last": "the last author",
    "mesh": "MeSH subject headings (MESH:)",
}


def ensure_query(query: str | Query, filters: SearchFilters) -> Query:
    """Parse text for ``filters.field``; re-parse a tree parsed for another default field."""
    if isinstance(query, Query):
        if query.default_field == filters.field:
            return query
        return parse_query(query.text, field=filters.field)
    return parse_query(query, field=filters.field)


def resolved_field(term: Term, filters: SearchFilters) -> ResolvedField:
    return term.field or filters.field


@dataclass(frozen=True, slots=True)
class _Split:
    positives: tuple[Node, ...]
    negatives: tuple[Node, ...]


def split_and(node: And) -> _Split:
    pos = tuple(c for c in node.children if not isinstance(c, Not))
    neg = tuple(c.child for c in node.children if isinstance(c, Not))
    return _Split(pos, neg)


def check_negations(provider: str, root: Node) -> None:
    """Refuse a NOT that is not ``<positive> AND NOT <x>`` (a pure negation, ``a OR NOT b``,
    ``NOT NOT a``): providers evaluate NOT as "except", which needs something to subtract from."""

    def walk(node: Node, parent: Node | None) -> None:
        if isinstance(node, Term):
            return
        if isinstance(node, Not):
            if not isinstance(parent, And):
                where = "on its own" if parent is None else "inside OR or NOT"
                raise CompileRefused(
                    provider,
                    f"NOT {where} cannot be expressed; write it as 'term AND NOT other'",
                )
            walk(node.child, node)
            return
        if isinstance(node, And) and not split_and(node).positives:
            raise CompileRefused(
                provider, "every term of an AND group is negated; nothing to subtract from"
            )
        for child in node.children:
            walk(child, node)

    walk(root, None)


def all_fields(query: Query, filters: SearchFilters) -> set[ResolvedField]:
    return {resolved_field(t, filters) for t in iter_terms(query.root)}


def has_operators(root: Node) -> bool:
    return not isinstance(root, Term) and not (
        isinstance(root, And) and all(isinstance(c, Term) for c in root.children)
    )


def year_range(filters: SearchFilters) -> tuple[int, int] | None:
    """``(from, to)`` with open ends filled with 1800 / 2199, or ``None`` without a year filter."""
    lo, hi = filters.year_from, filters.year_to
    if lo is None and hi is None:
        return None
    for name, value in (("from", lo), ("to", hi)):
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not YEAR_MIN <= value <= YEAR_MAX
        ):
            raise QueryFilterError(
                f"year {name} must be a year from {YEAR_MIN} to {YEAR_MAX}, not {value!r}"
            )
    a = lo if lo is not None else YEAR_MIN
    b = hi if hi is not None else YEAR_MAX
    if a > b:
        raise QueryFilterError(f"year from ({a}) is after year to ({b})")
    return a, b


def check_limit(provider: str, limit: int, maximum: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= maximum:
        raise CompileRefused(provider, f"page size must be 1 to {maximum:,}, not {limit!r}")
    return limit


def _check_cursor_text(provider: str, cursor: str) -> None:
    if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise CompileRefused(provider, f"cursor must be 1 to {MAX_CURSOR_CHARS:,} characters")
    if any(not ch.isprintable() or ch.isspace() for ch in cursor):
        raise CompileRefused(provider, "cursor has whitespace or control characters")


def text_cursor(provider: str, cursor: str | None, *, first: str = "*") -> str:
    if cursor is None:
        return first
    _check_cursor_text(provider, cursor)
    return cursor


def offset_cursor(provider: str, cursor: str | None) -> int:
    """A numeric offset cursor (``None`` and ``*`` are the first page)."""
    if cursor is None or cursor == "*":
        return 0
    _check_cursor_text(provider, cursor)
    if not cursor.isascii() or not cursor.isdigit() or len(cursor) > 9:
        raise CompileRefused(provider, f"cursor must be a result offset (digits), not {cursor!r}")
    return int(cursor)


def full_url(request: CompiledRequest) -> str:
    """The request's URL with its query string (as the transport sends it)."""
    if not request.params:
        return request.url
    return request.url + "?" + urlencode(list(request.params))


def finish(
    provider: ProviderName,
    *,
    operation: Literal["search", "lookup", "fetch"],
    url: str,
    params: Sequence[tuple[str, str]],
    executed: str,
    lane: str,
    warnings: Sequence[str] = (),
) -> CompiledRequest:
    """Build the request; refuse a URL off the provider's hosts or longer than 4,094 bytes."""
    parts = urlsplit(url)
    if parts.scheme != "https" or parts.hostname not in HOSTS[provider] or parts.query:
        raise CompileRefused(provider, "request URL is not on the provider's https host")
    request = CompiledRequest(
        provider=provider,
        operation=operation,
        method="GET",
        url=url,
        params=tuple((str(k), str(v)) for k, v in params),
        executed_query=executed,
        lane=lane,
        warnings=tuple(dict.fromkeys(warnings)),
    )
    try:
        size = len(full_url(request).encode("utf-8"))
    except UnicodeEncodeError:
        raise CompileRefused(provider, "the request has text that cannot be encoded") from None
    if size > MAX_URL_BYTES:
        raise CompileRefused(
            provider, f"the request URL would be {size:,} bytes (at most {MAX_URL_BYTES:,})"
        )
    return request


def refuse_semantic(provider: str, mode: str) -> None:
    if mode == "semantic":
        raise CompileRefused(provider, "semantic search is only available from OpenAlex")
    if mode != "keyword":
        raise CompileRefused(provider, f"unknown search mode {mode!r}")


def refuse_truncation(provider: str, query: Query, why: str) -> None:
    """Refuse a truncated word (``therap*``) for a provider without truncation: sending the
    stem alone would search another word and silently change the query."""
    for term in iter_terms(query.root):
        if term.truncated:
            raise CompileRefused(
                provider,
                f"{why}: it cannot truncate {term.text!r} (position {term.position}); "
                "write the words out with OR",
            )


def refuse_compound_truncation(provider: str, query: Query, why: str) -> None:
    """Refuse a truncated word whose stem holds punctuation (``covid-19*``) for a provider
    whose documented syntax truncates a single word only: its index reads the stem as several
    words, so the ``*`` would truncate something else or nothing (never silently)."""
    for term in iter_terms(query.root):
        if term.compound_stem:
            raise CompileRefused(
                provider,
                f"{why}: it cannot truncate {term.text!r} (position {term.position}), whose "
                f'stem is several words; search the phrase "{term.stem}" or truncate a '
                "stem of letters and digits",
            )
