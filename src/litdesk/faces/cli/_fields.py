"""``--field key=value`` options of the evidence commands (a Study's extraction form)."""

from __future__ import annotations

from litdesk._errors import InputError

__all__ = ["field_values"]


def field_values(pairs: list[str] | None) -> dict[str, str]:
    """``--field key=value`` options as a mapping (a key given twice: the last wins)."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(
                f"--field takes key=value (a field of the Study's form), not {pair[:60]!r}",
                code="arguments",
            )
        out[key.strip()] = value
    return out
