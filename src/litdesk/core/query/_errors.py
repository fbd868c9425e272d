"""Errors of the query language and the request compilers."""

from __future__ import annotations

from typing import Final, Literal

from litdesk._errors import InputError

__all__ = ["SYNTAX_CODES", "IdentifierError", "QueryFilterError", "QuerySyntaxError", "SyntaxCode"]

SyntaxCode = Literal[
    "empty",
    "length",
    "control",
    "escape",
    "quote",
    "field",
    "operator",
    "group",
    "complexity",
    "unsupported",
]
SYNTAX_CODES: Final[frozenset[str]] = frozenset(
    {
        "empty",
        "length",
        "control",
        "escape",
        "quote",
        "field",
        "operator",
        "group",
        "complexity",
        "unsupported",
    }
)


class QuerySyntaxError(InputError):
    """The query text does not follow the grammar.

    ``position`` is the 1-based character position where the problem starts and
    ``end`` the 1-based position of its last character (``end >= position``).
    """

    default_code = "syntax"

    def __init__(self, message: str, *, code: SyntaxCode, position: int, end: int) -> None:
        end = max(end, position)
        super().__init__(
            f"{message} (at character {position})", code=code, position=position, end=end
        )
        self.reason = message
        self.position = position
        self.end = end


class QueryFilterError(InputError):
    """A search filter is out of range (a year outside 1800 to 2199, from after to, ...)."""

    default_code = "filter"


class IdentifierError(InputError):
    """An exact identifier (DOI, PMID, PMCID, ...) is malformed or of an unknown kind."""

    default_code = "identifier"
