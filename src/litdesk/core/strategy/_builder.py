"""The concept-group builder (pure, no model): literal terms → one litdesk query.

Up to :data:`MAX_GROUPS` groups of up to :data:`MAX_TERMS` alternatives. Every term is
quoted as a literal phrase (so ``AND``, ``(``, ``TITLE:`` or ``*`` inside a term are
just text), alternatives are joined with OR inside a group, and the included groups
with AND. The query is at most :data:`MAX_QUERY_CHARS` characters and parses back
(:func:`litdesk.core.query.parse_query`) to exactly those terms in that structure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.core.query import And, Or, QuerySyntaxError, Term, escape_quotes, parse_query
from litdesk.core.words import plural

__all__ = [
    "MAX_GROUPS",
    "MAX_LABEL_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "MAX_TERM_CHARS",
    "BuiltQuery",
    "ConceptGroup",
    "StrategyInputError",
    "build_query",
    "clean_text",
    "dedupe_key",
    "group_terms",
    "parse_group_option",
]

MAX_GROUPS: Final = 6
MAX_TERMS: Final = 8
MAX_QUERY_CHARS: Final = 2_000
MAX_TERM_CHARS: Final = 160
MAX_LABEL_CHARS: Final = 80
_WS: Final = re.compile(r"\s+")


class StrategyInputError(InputError):
    """Concept groups that cannot be built into a query (too many, empty, too long, …)."""

    default_code = "strategy_input"


def clean_text(value: str, what: str, limit: int) -> str:
    """``value`` with whitespace collapsed; refused when it is empty, over ``limit``
    characters, or holds a control, format or surrogate character."""
    for ch in value:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Cf", "Co", "Cn") and ch not in "\t\r\n":
            raise StrategyInputError(
                f"{what} holds the character U+{ord(ch):04X}, which is not allowed",
                code="control",
            )
    text = _WS.sub(" ", value).strip()
    if not text:
        raise StrategyInputError(f"{what} is empty", code="empty")
    if len(text) > limit:
        raise StrategyInputError(
            f"{what} is longer than {limit:,} characters ({len(text):,})", code="length"
        )
    return text


def dedupe_key(term: str) -> str:
    """The key under which two terms are the same (NFKC, case-insensitive, whitespace
    collapsed)."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", term).casefold()).strip()


@dataclass(frozen=True, slots=True)
class ConceptGroup:
    """One concept: its literal alternatives (OR) and whether it is in the query."""

    terms: tuple[str, ...]
    label: str = ""
    included: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "terms": list(self.terms), "included": self.included}


@dataclass(frozen=True, slots=True)
class BuiltQuery:
    """The query text and what went into it (duplicates removed are named)."""

    query: str
    groups: tuple[ConceptGroup, ...]
    removed_duplicates: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "characters": len(self.query),
            "groups": [g.to_dict() for g in self.groups],
            "removed_duplicates": list(self.removed_duplicates),
            "warnings": list(self.warnings),
        }


def _quote(term: str) -> str:
    return '"' + escape_quotes(term) + '"'  # typographic quotes too (they open phrases)


def _check_term(term: str, where: str) -> str:
    text = clean_text(term, where, MAX_TERM_CHARS)
    if not any(ch.isalnum() for ch in text):
        raise StrategyInputError(f"{where} has no letter or digit: {text!r}", code="term")
    return text


def _group_text(group: ConceptGroup) -> str:
    parts = [_quote(t) for t in group.terms]
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def build_query(groups: Sequence[ConceptGroup]) -> BuiltQuery:
    """The query for ``groups``: quoted literals, OR inside a group, AND across the
    included groups. Duplicates inside a group (NFKC, case-insensitive) are removed and
    named; anything else that does not fit is refused with :class:`StrategyInputError`."""
    if not groups:
        raise StrategyInputError("give at least one concept group", code="empty")
    if len(groups) > MAX_GROUPS:
        raise StrategyInputError(
            f"at most {MAX_GROUPS} concept groups ({len(groups)} given)", code="groups"
        )
    cleaned: list[ConceptGroup] = []
    removed: list[str] = []
    for n, group in enumerate(groups, 1):
        label = (
            clean_text(group.label, f"the label of group {n}", MAX_LABEL_CHARS)
            if (group.label.strip())
            else ""
        )
        if not group.terms:
            raise StrategyInputError(f"group {n} has no term", code="empty")
        if len(group.terms) > MAX_TERMS:
            raise StrategyInputError(
                f"group {n} has {len(group.terms)} terms (at most {MAX_TERMS})", code="terms"
            )
        seen: set[str] = set()
        terms: list[str] = []
        for i, raw in enumerate(group.terms, 1):
            term = _check_term(raw, f"term {i} of group {n}")
            key = dedupe_key(term)
            if key in seen:
                removed.append(term)
                continue
            seen.add(key)
            terms.append(term)
        cleaned.append(ConceptGroup(tuple(terms), label, group.included))
    included = [g for g in cleaned if g.included]
    if not included:
        raise StrategyInputError("include at least one concept group", code="none_included")
    query = " AND ".join(_group_text(g) for g in included)
    if len(query) > MAX_QUERY_CHARS:
        raise StrategyInputError(
            f"the built query is {len(query):,} characters (at most {MAX_QUERY_CHARS:,}): "
            "remove terms or groups",
            code="length",
        )
    _check_round_trip(query, included)
    warnings = tuple(f"duplicate term removed: {t}" for t in removed)
    left_out = len(cleaned) - len(included)
    if left_out:
        warnings += (f"{plural(left_out, 'group')} not included in the query",)
    return BuiltQuery(query, tuple(cleaned), tuple(removed), warnings)


def group_terms(query: str) -> list[list[str]]:
    """The groups of literal terms a built query holds (the inverse of
    :func:`build_query` for the included groups); raises on any other shape."""
    root = parse_query(query).root
    groups = list(root.children) if isinstance(root, And) else [root]
    out: list[list[str]] = []
    for g in groups:
        leaves = list(g.children) if isinstance(g, Or) else [g]
        terms: list[str] = []
        for leaf in leaves:
            if not isinstance(leaf, Term) or not leaf.phrase or leaf.field is not None:
                raise StrategyInputError("not a concept-group query", code="shape")
            terms.append(leaf.text)
        out.append(terms)
    return out


def _check_round_trip(query: str, included: Sequence[ConceptGroup]) -> None:
    try:
        back = group_terms(query)
    except QuerySyntaxError as exc:  # pragma: no cover - a builder bug, never user input
        raise StrategyInputError(f"the built query does not parse: {exc.message}") from exc
    if back != [list(g.terms) for g in included]:  # pragma: no cover - a builder bug
        raise StrategyInputError("the built query does not read back as its groups")


def parse_group_option(value: str) -> tuple[str, ...]:
    """``"a|b|c"`` (the CLI's ``--group``) → its terms; ``\\|`` is a literal bar."""
    terms: list[str] = []
    buf: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value) and value[i + 1] in "|\\":
            buf.append(value[i + 1])
            i += 2
            continue
        if ch == "|":
            terms.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    terms.append("".join(buf))
    return tuple(terms)
