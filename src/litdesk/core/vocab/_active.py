"""The query's active term and the insertion of a picked subject (pure, linear time).

The *active term* is the term or phrase the caret is in (or just after): a quoted phrase
on its own, or the run of plain words since the last operator (``AND``/``OR``/``NOT``),
parenthesis, phrase or field prefix — so ``diabetes AND insulin resist`` has the active
term ``insulin resist``. A field prefix (``TITLE:``) stays in front of the term.

:func:`insert_subject` replaces only that span with the subject's label, quoted where the
query language needs it (whitespace, parentheses, quotes, colons, backslashes, a bare
operator or a field-shaped word), and keeps the rest of the query as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from litdesk.core.query import PHRASE_QUOTES, escape_quotes

__all__ = [
    "MAX_ACTIVE_CHARS",
    "ActiveTerm",
    "active_term",
    "controlled_term",
    "insert_subject",
    "quote_label",
    "synonym_group",
]

#: The longest active term that drives suggestions (characters).
MAX_ACTIVE_CHARS: Final = 160
_OPERATORS: Final = frozenset({"AND", "OR", "NOT"})
#: a field prefix (``TI:``) at a word's start; not after a capital, so that a search in a run
#: of capitals tries each run once (without it, 0.4 s of CPU for 16,000 of them: quadratic)
_FIELD_PREFIX: Final = re.compile(r"(?<![A-Z_])[A-Z][A-Z_]*:")
_PLAIN: Final = re.compile(r"[\w\-'.,/+]+")


@dataclass(frozen=True, slots=True)
class ActiveTerm:
    """The span ``[start, end)`` of the query that a pick replaces and its text without
    quotes (``text``: what the vocabulary is asked for)."""

    start: int
    end: int
    text: str
    phrase: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text, "phrase": self.phrase}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "word", "phrase", "op", "paren"
    start: int
    end: int


def _tokens(query: str) -> list[_Token]:
    """Words, phrases (an unterminated one runs to the end), operators and parentheses,
    with their spans; a field prefix is cut off its word as an operator token."""
    out: list[_Token] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            out.append(_Token("paren", i, i + 1))
            i += 1
        elif ch == '"':
            j = i + 1
            while j < n and query[j] != '"':
                j += 2 if query[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(_Token("phrase", i, end))
            i = end
        else:
            j = i
            while j < n and not query[j].isspace() and query[j] not in '()"':
                j += 2 if query[j] == "\\" else 1
            j = min(j, n)
            word = query[i:j]
            prefix = _FIELD_PREFIX.match(word)
            if prefix:
                out.append(_Token("op", i, i + prefix.end()))
                if prefix.end() < len(word):
                    out.append(_Token("word", i + prefix.end(), j))
            elif word in _OPERATORS:
                out.append(_Token("op", i, j))
            else:
                out.append(_Token("word", i, j))
            i = j
    return out


def _unquote(text: str) -> str:
    body = text[1:-1] if len(text) >= 2 and text.endswith('"') else text[1:]
    return re.sub(r"\\(.)", r"\1", body)


def active_term(query: str, caret: int | None = None) -> ActiveTerm | None:
    """The active term at ``caret`` (default: the end), or ``None`` when the caret is not
    in or after a term (after an operator, a parenthesis or a space before one)."""
    caret = len(query) if caret is None else max(0, min(caret, len(query)))
    query = query.translate(PHRASE_QUOTES)  # “…” are phrase quotes, as in the grammar
    tokens = _tokens(query)
    at = -1
    for index, token in enumerate(tokens):
        if token.start <= caret <= token.end:
            at = index
            if token.kind in ("word", "phrase"):
                break
        elif token.start > caret:
            break
    if at < 0:
        # the caret is in whitespace: the words just before it are active only when the
        # caret is at the end of the query (typing on)
        if caret != len(query.rstrip()) and caret != len(query):
            return None
        before = [t for t in tokens if t.end <= caret]
        if not before:
            return None
        at = tokens.index(before[-1])
    token = tokens[at]
    if token.kind == "phrase":
        text = _unquote(query[token.start : token.end])
        return _checked(ActiveTerm(token.start, token.end, text.strip(), phrase=True))
    if token.kind != "word":
        return None
    first = at
    while first > 0 and tokens[first - 1].kind == "word":
        first -= 1
    last = at
    while last + 1 < len(tokens) and tokens[last + 1].kind == "word":
        last += 1
    start, end = tokens[first].start, tokens[last].end
    text = re.sub(r"\\(.)", r"\1", " ".join(query[start:end].split()))
    return _checked(ActiveTerm(start, end, text))


def _checked(term: ActiveTerm) -> ActiveTerm | None:
    if not term.text or len(term.text) > MAX_ACTIVE_CHARS:
        return None
    return term


def quote_label(label: str) -> str:
    """``label`` as one term of the query language: as it is when it is a plain word,
    else a quoted phrase (backslashes and quotes escaped)."""
    plain = (
        _PLAIN.fullmatch(label) is not None
        and label not in _OPERATORS
        and not _FIELD_PREFIX.match(label)
    )
    if plain:
        return label
    return '"' + escape_quotes(label) + '"'


def insert_subject(query: str, term: ActiveTerm, label: str) -> tuple[str, int]:
    """The query with ``term``'s span replaced by ``label`` (quoted where needed) and the
    caret just after it."""
    text = quote_label(label)
    head, tail = query[: term.start], query[term.end :]
    return head + text + tail, len(head) + len(text)


def controlled_term(label: str, prefix: str) -> str:
    """``label`` searched as a controlled term of the vocabulary whose field prefix is
    ``prefix`` (``MESH`` → ``MESH:"Insulin Resistance"``): providers with such a field
    compile it (PubMed ``[MeSH Terms]``, Europe PMC ``MESH:``), the others refuse it."""
    return f"{prefix}:" + '"' + escape_quotes(label) + '"'


def synonym_group(label: str, synonyms: tuple[str, ...]) -> str:
    """The label and its synonyms as one OR group (duplicates, case-insensitive, once)."""
    seen: dict[str, str] = {}
    for text in (label, *synonyms):
        seen.setdefault(text.casefold(), text)
    terms = [quote_label(t) for t in seen.values()]
    return terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")"
