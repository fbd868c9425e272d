"""File format module (to be implemented): defines ``FORMATS``."""

from __future__ import annotations

from ._spec import FormatSpec

FORMATS: list[FormatSpec] = []
