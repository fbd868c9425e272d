"""Typed errors of screening prioritisation."""

from __future__ import annotations

from litdesk._errors import InputError

__all__ = ["DecisionsFileError", "ScreeningInputError"]


class ScreeningInputError(InputError):
    """Screening input is unusable: labels missing or not 0/1, no included record, an index
    out of range, a decision given twice (CLI exit status 2)."""

    default_code = "screening_input"


class DecisionsFileError(ScreeningInputError):
    """A decisions file cannot be read: no identifier or decision column, an unknown
    decision, a file or cell over the limits, malformed CSV."""

    default_code = "bad_decisions_file"
