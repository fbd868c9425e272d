"""The one JSON decoder of the readers: numbers bounded, constants kept as text.

Python's ``json`` turns a number of more than 4,300 digits into a ``ValueError`` of the
integer-conversion limit, ``1e999`` into ``inf`` and ``NaN`` into a float no field can
hold. Here an integer of more than :data:`MAX_INT_DIGITS` digits, a float that is not
finite and the constants ``NaN``/``Infinity`` stay as their text (a string value the
readers then treat like any other unusable value: a notice, never a crash). Nesting
deeper than the interpreter's recursion limit is the caller's ``RecursionError``.
"""

from __future__ import annotations

import json
import math
from typing import Final

__all__ = ["DECODER", "MAX_INT_DIGITS", "loads"]

#: Integers longer than this (sign included) are kept as text.
MAX_INT_DIGITS: Final = 100


def _int(text: str) -> int | str:
    return int(text) if len(text) <= MAX_INT_DIGITS else text


def _float(text: str) -> float | str:
    if len(text) > MAX_INT_DIGITS * 4:
        return text
    value = float(text)
    return value if math.isfinite(value) else text


def _constant(text: str) -> str:
    return text


DECODER: Final = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def loads(text: str) -> object:
    """``json.loads`` with the bounded numbers of :data:`DECODER`."""
    return DECODER.decode(text)
