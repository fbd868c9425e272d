"""Typed errors of screening prioritisation."""

from __future__ import annotations

from litdesk._errors import InputError

__all__ = ["ScreeningInputError"]


class ScreeningInputError(InputError):
    """Screening input is unusable: labels missing or not 0/1, no included record, an index
    out of range, a decision given twice (CLI exit status 2)."""

    default_code = "screening_input"
