"""The litdesk query language: a tokenizer and a recursive-descent parser (pure).

Grammar (operators upper case only; lower-case ``and``/``or``/``not`` are terms)::

    query   := or
    or      := and ("OR" and)*
    and     := unary (["AND"] unary)*          # adjacency is an implicit AND
    unary   := "NOT" unary | primary
    primary := "(" or ")" | FIELD ":" (term | phrase | "(" or ")") | term | phrase

Precedence NOT > AND > OR. Phrases are double-quoted with backslash escapes; a
backslash outside quotes escapes the next character. Field prefixes are
``TITLE:``, ``ABSTRACT:``, ``AUTHOR:``/``AUTH:``, ``AUTH_LAST:`` (last author) and ``MESH:``
(a MeSH heading as a controlled term: PubMed ``[MeSH Terms]``, Europe PMC ``MESH:``; the
other providers refuse it with the reason);
any other upper-case ``NAME:`` prefix is refused with code ``field``.

Limits: 4,096 characters, 200 tokens, 200 nodes, nesting depth 16; control
characters (other than tab, CR and LF, which are whitespace) are refused.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Final, Literal

from ._errors import QuerySyntaxError, SyntaxCode

__all__ = [
    "DEFAULT_FIELDS",
    "PHRASE_QUOTES",
    "QUOTE_CHARS",
    "FIELD_PREFIXES",
    "QUERY_LIMITS",
    "And",
    "Field",
    "Node",
    "Not",
    "Or",
    "Query",
    "Term",
    "escape_quotes",
    "iter_terms",
    "parse_plain_text",
    "parse_query",
    "render",
]

Field = Literal["title", "abstract", "author", "author_last", "mesh"]
#: The default field for unfielded terms (``SearchFilters.field``).
DefaultField = Literal["all", "title", "abstract", "author"]
DEFAULT_FIELDS: Final = ("all", "title", "abstract", "author")

FIELD_PREFIXES: Final[dict[str, Field]] = {
    "TITLE": "title",
    "ABSTRACT": "abstract",
    "AUTHOR": "author",
    "AUTH": "author",
    "AUTH_LAST": "author_last",
    "MESH": "mesh",
}
_FIELD_LABEL: Final[dict[str, str]] = {
    "title": "TITLE",
    "abstract": "ABSTRACT",
    "author": "AUTHOR",
    "author_last": "AUTH_LAST",
    "mesh": "MESH",
}


@dataclass(frozen=True, slots=True)
class _Limits:
    chars: int = 4096
    tokens: int = 200
    nodes: int = 200
    depth: int = 16


QUERY_LIMITS: Final = _Limits()

_OPERATORS: Final = frozenset({"AND", "OR", "NOT"})
#: proximity operators of other databases written ``NAME/n`` (Europe PMC, Embase, Scopus, WoS)
_PROXIMITY_SLASH: Final = frozenset({"NEAR", "W", "PRE", "NEXT"})
_STRUCTURAL: Final = frozenset({"AND", "OR", "NOT", "LPAREN", "RPAREN", "FIELD"})
_OPERATOR_KINDS: Final = frozenset({"AND", "OR", "NOT", "LPAREN", "RPAREN"})
#: only ever ``match``-ed at a token's start, which the tokenizer then moves past (a field or
#: the word ``_read_word`` reads): linear over a query, judged so in tests/test_linear_patterns.py
_FIELD_RE: Final = re.compile(r"[A-Z][A-Z_]*+:")
_WS: Final = re.compile(r"\s+")
#: “ ” „ ‟ and the full-width ＂ read as ``"``
PHRASE_QUOTES: Final = str.maketrans(dict.fromkeys("\u201c\u201d\u201e\u201f\uff02", '"'))
#: the characters that open and close a phrase (``"`` and the typographic ones); escaped
#: (``\“``) each is itself, kept as typed
QUOTE_CHARS: Final = '"\u201c\u201d\u201e\u201f\uff02'

_ALLOWED_CONTROLS: Final = frozenset("\t\n\r")


# --------------------------------------------------------------------------- AST


@dataclass(frozen=True, slots=True)
class Term:
    """A word or a quoted phrase. ``field`` is ``None`` for the default field.

    ``position``/``end`` are the 1-based first and last character in the query text.
    """

    text: str
    phrase: bool = False
    field: Field | None = None
    position: int = 0
    end: int = 0
    #: an unquoted word ending in an unescaped ``*`` (``therap*``, ``covid-19*``): truncation,
    #: every word the stem begins; ``text`` then ends in that ``*``. Decided by the reader,
    #: not by the text: an escaped ``therap\*`` and a quoted ``"therap*"`` hold a literal
    #: star and are not truncated.
    truncated: bool = False

    @property
    def stem(self) -> str:
        """The word without its truncation ``*`` (the text itself when not truncated)."""
        return self.text[:-1] if self.truncated else self.text

    @property
    def compound_stem(self) -> bool:
        """A truncated word whose stem holds a character other than a letter or digit
        (``covid-19*``, ``t-cell*``): to a database's word index the stem is several words,
        the last one truncated — something each database says differently or not at all."""
        return self.truncated and not self.stem.isalnum()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "phrase" if self.phrase else "term",
            "text": self.text,
            "field": self.field,
            "position": self.position,
            "end": self.end,
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True)
class Not:
    child: Node

    def to_dict(self) -> dict[str, Any]:
        return {"type": "not", "child": self.child.to_dict()}


@dataclass(frozen=True, slots=True)
class And:
    children: tuple[Node, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "and", "children": [c.to_dict() for c in self.children]}


@dataclass(frozen=True, slots=True)
class Or:
    children: tuple[Node, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "or", "children": [c.to_dict() for c in self.children]}


Node = Term | Not | And | Or


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: the tree, the text it came from and what syntax it used.

    ``has_boolean_syntax`` is true when the text has operators, parentheses or
    field prefixes. ``default_field`` is the field the text was parsed for (it
    matters only for the author rule: with ``author`` and no operators the whole
    input is one author phrase).
    """

    text: str
    root: Node
    has_boolean_syntax: bool
    default_field: DefaultField = "all"
    #: True when the text has AND/OR/NOT or parentheses (field prefixes alone are not).
    has_operators: bool = False

    @property
    def terms(self) -> tuple[Term, ...]:
        return tuple(iter_terms(self.root))

    @property
    def has_phrase(self) -> bool:
        return any(t.phrase for t in iter_terms(self.root))

    @property
    def has_truncation(self) -> bool:
        return any(t.truncated for t in iter_terms(self.root))

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "default_field": self.default_field,
            "has_boolean_syntax": self.has_boolean_syntax,
            "has_operators": self.has_operators,
            "canonical": render(self.root),
            "tree": self.root.to_dict(),
        }


def iter_terms(node: Node) -> list[Term]:
    """Every leaf, left to right."""
    out: list[Term] = []
    stack: list[Node] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Term):
            out.append(cur)
        elif isinstance(cur, Not):
            stack.append(cur.child)
        else:
            stack.extend(reversed(cur.children))
    return out


def escape_quotes(text: str) -> str:
    """``text`` with a backslash before each backslash and phrase quote (any of
    :data:`QUOTE_CHARS`): what goes between ``"`` and ``"`` to be read back as ``text``."""
    return "".join("\\" + c if c == "\\" or c in QUOTE_CHARS else c for c in text)


def _quote(text: str) -> str:
    return '"' + escape_quotes(text) + '"'


def _escape_word(text: str) -> str:
    out = "".join("\\" + c if c.isspace() or c in "()\\*" or c in QUOTE_CHARS else c for c in text)
    if text in _OPERATORS or _FIELD_RE.match(text):
        out = "\\" + out
    return out


def render(node: Node) -> str:
    """The canonical litdesk form of a tree (re-parses to the same tree): a literal ``*``
    in a word is escaped (``\\*``), a truncation ``*`` is not."""
    if isinstance(node, Term):
        prefix = f"{_FIELD_LABEL[node.field]}:" if node.field else ""
        if node.phrase:
            return prefix + _quote(node.text)
        if node.truncated:
            return prefix + _escape_word(node.stem) + "*"
        return prefix + _escape_word(node.text)
    if isinstance(node, Not):
        inner = render(node.child)
        return f"NOT ({inner})" if isinstance(node.child, (And, Or)) else f"NOT {inner}"
    sep = " AND " if isinstance(node, And) else " OR "
    parts = []
    for child in node.children:
        text = render(child)
        parts.append(f"({text})" if isinstance(child, (And, Or)) else text)
    return sep.join(parts)


# --------------------------------------------------------------------- tokenizer

_TokKind = Literal["LPAREN", "RPAREN", "AND", "OR", "NOT", "TERM", "PHRASE", "FIELD"]


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: _TokKind
    value: str
    start: int  # 0-based, inclusive
    end: int  # 0-based, exclusive
    #: a word ending in an unescaped ``*`` (truncation)
    truncated: bool = False


def _err(message: str, code: SyntaxCode, start: int, end: int) -> QuerySyntaxError:
    """Build an error from 0-based [start, end) offsets."""
    position = start + 1
    return QuerySyntaxError(message, code=code, position=position, end=max(end, position))


def _check_text(text: str) -> None:
    if len(text) > QUERY_LIMITS.chars:
        raise _err(
            f"the query is longer than {QUERY_LIMITS.chars:,} characters",
            "length",
            QUERY_LIMITS.chars,
            len(text),
        )
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category == "Cc" and ch not in _ALLOWED_CONTROLS:
            raise _err(f"control character U+{ord(ch):04X} is not allowed", "control", i, i + 1)
        if category == "Cs":
            raise _err(
                f"U+{ord(ch):04X} is half of a surrogate pair, not a character",
                "unsupported",
                i,
                i + 1,
            )
    if not text.strip():
        raise _err("the query is empty", "empty", 0, len(text))
    if not any(ch.isalnum() for ch in text):
        raise _err("the query has no letter or digit", "empty", 0, len(text))


def _read_phrase(text: str, i: int) -> tuple[_Tok, int]:
    n = len(text)
    j = i + 1
    buf: list[str] = []
    while j < n:
        ch = text[j]
        if ch == "\\":
            if j + 1 >= n:
                raise _err("a backslash must be followed by a character", "escape", j, j + 1)
            buf.append(text[j + 1])
            j += 2
            continue
        if ch in QUOTE_CHARS:
            break
        buf.append(ch)
        j += 1
    else:
        raise _err("unterminated quoted phrase", "quote", i, n)
    value = _WS.sub(" ", "".join(buf)).strip()
    if not value:
        raise _err("empty quoted phrase", "quote", i, j + 1)
    return _Tok("PHRASE", value, i, j + 1), j + 1


def _read_word(text: str, i: int) -> tuple[_Tok, int]:
    n = len(text)
    j = i
    buf: list[str] = []
    escaped = False
    #: 0-based offsets of the unescaped ``*`` in the word
    stars: list[int] = []
    while j < n:
        ch = text[j]
        if ch.isspace() or ch in "()" or ch in QUOTE_CHARS:
            break
        if ch == "\\":
            if j + 1 >= n:
                raise _err("a backslash must be followed by a character", "escape", j, j + 1)
            buf.append(text[j + 1])
            escaped = True
            j += 2
            continue
        if ch == "*":
            stars.append(j)
        buf.append(ch)
        j += 1
    value = "".join(buf)
    if not value.strip():
        raise _err("an escaped space alone is not a term", "escape", i, j)
    kind: _TokKind = "TERM"
    if not escaped and value in _OPERATORS:
        kind = "AND" if value == "AND" else "OR" if value == "OR" else "NOT"
    if not escaped:
        _refuse_proximity(value, i, j)
    truncated = _check_stars(value, stars, i, j)
    return _Tok(kind, value, i, j, truncated), j


def _check_stars(value: str, stars: list[int], start: int, end: int) -> bool:
    """Whether the word is truncated (one unescaped ``*``, last, after a letter or digit);
    any other unescaped ``*`` is refused at its position: a wildcard inside or before a word,
    or a ``*`` after punctuation, would be sent as something each database reads its own way
    (escape it, ``\\*``, to search the character)."""
    if not stars:
        return False
    last = stars[-1]
    if len(stars) == 1 and last == end - 1 and len(value) > 1 and value[-2].isalnum():
        return True
    inner = [k for k in stars if k != end - 1]
    bad = inner[0] if inner else last
    if inner:
        why = "a * inside or before a word (a wildcard) is not supported"
    elif len(value) == 1:
        why = "a * alone is not a term"
    else:
        why = "a * truncates a word only after a letter or digit"
    raise _err(
        f"{why}: only a trailing * truncates (therap*); escape it (\\*) to search the character",
        "unsupported",
        bad,
        bad + 1,
    )


def _is_proximity_operator(value: str) -> bool:
    """``NEAR``, ``NEAR/3``, ``W/5``, ``PRE/2``, ``ADJ``, ``ADJ3`` (upper case, as operators)."""
    name, slash, number = value.partition("/")
    if slash:
        return name in _PROXIMITY_SLASH and number.isascii() and number.isdigit()
    if value.startswith("ADJ"):
        rest = value[3:]
        return not rest or (rest.isascii() and rest.isdigit())
    return value == "NEAR"


def _refuse_proximity(value: str, start: int, end: int) -> None:
    """Refuse proximity and fuzzy syntax other databases use: searched as words, ``NEAR/3`` or
    ``~3`` would silently become one more AND-ed term and change the query."""
    if _is_proximity_operator(value):
        raise _err(
            f"proximity operator {value} is not supported (only AND, OR, NOT); "
            "combine the words with AND, or quote the exact phrase",
            "unsupported",
            start,
            end,
        )
    if value.rstrip("0123456789").endswith("~"):
        raise _err(
            f"proximity or fuzzy search ({value!r}) is not supported; quote the exact phrase, "
            "or write the variants out with OR",
            "unsupported",
            start,
            end,
        )


def _tokenize(text: str, *, max_tokens: int | None = QUERY_LIMITS.tokens) -> list[_Tok]:
    # typographic double quotes (a strategy pasted from a word processor or a protocol) are
    # phrase quotes: “heart failure” was two terms, “heart and failure”, sent with the marks
    # (each is read as a quote where it is not escaped: an escaped one stays as typed)
    tokens: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "()":
            tokens.append(_Tok("LPAREN" if ch == "(" else "RPAREN", ch, i, i + 1))
            i += 1
        elif ch in QUOTE_CHARS:
            tok, i = _read_phrase(text, i)
            tokens.append(tok)
        else:
            m = _FIELD_RE.match(text, i)
            if m:
                name = m.group()[:-1]
                if name not in FIELD_PREFIXES:
                    known = ", ".join(f"{k}:" for k in FIELD_PREFIXES)
                    raise _err(f"unknown field {name}: (use {known})", "field", i, m.end())
                after = m.end()
                if after >= n or text[after].isspace() or text[after] == ")":
                    raise _err(f"nothing follows the field {name}:", "field", i, after)
                tokens.append(_Tok("FIELD", name, i, after))
                i = after
            else:
                tok, i = _read_word(text, i)
                tokens.append(tok)
        if max_tokens is not None and len(tokens) > max_tokens:
            last = tokens[-1]
            raise _err(
                f"the query has more than {QUERY_LIMITS.tokens} tokens",
                "complexity",
                last.start,
                last.end,
            )
    return tokens


# ------------------------------------------------------------------------ parser


class _Parser:
    def __init__(self, text: str, tokens: list[_Tok]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0

    def peek(self) -> _Tok | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Tok:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def _need_operand(self, op: _Tok) -> None:
        nxt = self.peek()
        if nxt is None or nxt.kind in ("RPAREN", "AND", "OR"):
            raise _err(f"{op.value} needs a term after it", "operator", op.start, op.end)

    def parse_or(self, depth: int) -> Node:
        items = [self.parse_and(depth)]
        while (tok := self.peek()) is not None and tok.kind == "OR":
            self.take()
            self._need_operand(tok)
            items.append(self.parse_and(depth))
        return _make(Or, items)

    def parse_and(self, depth: int) -> Node:
        items = [self.parse_unary(depth)]
        while (tok := self.peek()) is not None and tok.kind not in ("OR", "RPAREN"):
            if tok.kind == "AND":
                self.take()
                self._need_operand(tok)
            items.append(self.parse_unary(depth))
        return _make(And, items)

    def parse_unary(self, depth: int) -> Node:
        tok = self.peek()
        if tok is None:  # pragma: no cover - guarded by callers
            raise _err("the query ends too early", "operator", len(self.text) - 1, len(self.text))
        if tok.kind == "NOT":
            self.take()
            self._need_operand(tok)
            return Not(self.parse_unary(depth))
        if tok.kind in ("AND", "OR"):
            raise _err(f"{tok.value} needs a term before it", "operator", tok.start, tok.end)
        if tok.kind == "RPAREN":
            raise _err("unmatched closing parenthesis", "group", tok.start, tok.end)
        if tok.kind == "LPAREN":
            return self.parse_group(depth)
        if tok.kind == "FIELD":
            return self.parse_field(depth)
        self.take()
        return Term(tok.value, tok.kind == "PHRASE", None, tok.start + 1, tok.end, tok.truncated)

    def parse_group(self, depth: int) -> Node:
        open_tok = self.take()
        if depth + 1 > QUERY_LIMITS.depth:
            raise _err(
                f"parentheses are nested deeper than {QUERY_LIMITS.depth}",
                "complexity",
                open_tok.start,
                open_tok.end,
            )
        nxt = self.peek()
        if nxt is None:
            raise _err("unclosed parenthesis", "group", open_tok.start, len(self.text))
        if nxt.kind == "RPAREN":
            raise _err("empty parentheses", "group", open_tok.start, nxt.end)
        inner = self.parse_or(depth + 1)
        close = self.peek()
        if close is None or close.kind != "RPAREN":
            raise _err("unclosed parenthesis", "group", open_tok.start, len(self.text))
        self.take()
        return inner

    def parse_field(self, depth: int) -> Node:
        ftok = self.take()
        field = FIELD_PREFIXES[ftok.value]
        nxt = self.peek()
        if nxt is None or nxt.start != ftok.end or nxt.kind not in ("TERM", "PHRASE", "LPAREN"):
            end = nxt.end if nxt is not None else ftok.end
            raise _err(
                f"{ftok.value}: must be followed by a term, a phrase or parentheses",
                "field",
                ftok.start,
                end,
            )
        if nxt.kind == "LPAREN":
            group = self.parse_group(depth)
            return _apply_field(group, field, ftok)
        self.take()
        return Term(nxt.value, nxt.kind == "PHRASE", field, ftok.start + 1, nxt.end, nxt.truncated)


def _make(kind: type[And] | type[Or], items: list[Node]) -> Node:
    if len(items) == 1:
        return items[0]
    flat: list[Node] = []
    for item in items:
        if isinstance(item, kind):
            flat.extend(item.children)
        else:
            flat.append(item)
    return kind(tuple(flat))


def _apply_field(node: Node, field: Field, ftok: _Tok) -> Node:
    if isinstance(node, Term):
        if node.field is not None and node.field != field:
            raise _err(
                f"field {_FIELD_LABEL[node.field]}: inside {ftok.value}:(...)",
                "field",
                node.position - 1,
                node.end,
            )
        return Term(node.text, node.phrase, field, node.position, node.end, node.truncated)
    if isinstance(node, Not):
        return Not(_apply_field(node.child, field, ftok))
    children = tuple(_apply_field(c, field, ftok) for c in node.children)
    return And(children) if isinstance(node, And) else Or(children)


def _count(node: Node) -> int:
    if isinstance(node, Term):
        return 1
    if isinstance(node, Not):
        return 1 + _count(node.child)
    return 1 + sum(_count(c) for c in node.children)


def parse_query(text: str, *, field: DefaultField = "all") -> Query:
    """Parse ``text`` into a :class:`Query` or raise :class:`QuerySyntaxError`.

    With ``field="author"`` and no operators, parentheses or field prefixes, the
    whole input is one author phrase (a byline, not several co-authors).
    """
    if not isinstance(text, str):
        raise QuerySyntaxError("the query must be text", code="empty", position=1, end=1)
    if field not in DEFAULT_FIELDS:
        raise QuerySyntaxError(
            f"unknown default field {field!r}", code="field", position=1, end=max(1, len(text))
        )
    _check_text(text)
    tokens = _tokenize(text)
    has_boolean = any(t.kind in _STRUCTURAL for t in tokens)
    has_ops = any(t.kind in _OPERATOR_KINDS for t in tokens)
    if field == "author" and not has_boolean:
        byline = " ".join(t.value for t in tokens)
        root: Node = Term(byline, True, None, tokens[0].start + 1, tokens[-1].end)
        return Query(text, root, False, field)
    parser = _Parser(text, tokens)
    root = parser.parse_or(0)
    leftover = parser.peek()
    if leftover is not None:
        raise _err("unmatched closing parenthesis", "group", leftover.start, leftover.end)
    nodes = _count(root)
    if nodes > QUERY_LIMITS.nodes:
        raise _err(
            f"the query has {nodes} nodes (at most {QUERY_LIMITS.nodes})",
            "complexity",
            0,
            len(text),
        )
    return Query(text, root, has_boolean, field, has_ops)


def parse_plain_text(text: str) -> Query:
    """Parse text meant for semantic search: the character rules apply, and text
    without operators, parentheses or fields may have any number of words (up to
    4,096 characters); text with Boolean syntax is parsed with every grammar limit."""
    if not isinstance(text, str):
        raise QuerySyntaxError("the query must be text", code="empty", position=1, end=1)
    _check_text(text)
    tokens = _tokenize(text, max_tokens=None)
    if any(t.kind in _STRUCTURAL for t in tokens):
        return parse_query(text)
    terms = [
        Term(t.value, t.kind == "PHRASE", None, t.start + 1, t.end, t.truncated) for t in tokens
    ]
    root: Node = terms[0] if len(terms) == 1 else And(tuple(terms))
    return Query(text, root, False, "all", False)
