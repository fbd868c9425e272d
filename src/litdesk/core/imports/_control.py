"""Control characters out of imported records (pure): one normaliser for every format.

A control character (NUL, ESC, DEL, … — everything in C0 but tab, line feed and carriage
return, and DEL) in an imported field would survive into the CSV/BibTeX/RIS that litdesk
writes, which litdesk itself then refuses to read back. :func:`strip_controls` removes
them from every text of a record — the Paper's fields, the extras and the source record
id — and says so with a ``control_characters`` notice naming the fields. The raw record
(evidence) is kept as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from litdesk.core.records import Paper

from ._trace import Notice, RecordTrace

__all__ = ["CONTROL_BYTES", "has_control", "strip_control_text", "strip_controls"]

_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: The bytes of the characters removed (for a cheap check of a whole file's bytes).
CONTROL_BYTES: Final = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


def has_control(value: str) -> bool:
    """True when ``value`` holds a character :func:`strip_control_text` removes."""
    if value.isprintable():
        return False
    return _CONTROL.search(value) is not None


def strip_control_text(value: str) -> str:
    """``value`` without its control characters."""
    return _CONTROL.sub("", value) if has_control(value) else value


def _dirty(values: Iterable[object]) -> bool:
    """True when a text (or a text in a tuple) of ``values`` holds a control character."""
    search = _CONTROL.search
    for v in values:
        if type(v) is str:
            if not v.isprintable() and search(v):
                return True
        elif type(v) is tuple:
            for x in v:
                if type(x) is str and not x.isprintable() and search(x):
                    return True
    return False


def _clean_paper(paper: Paper) -> tuple[Paper, list[str]]:
    changes: dict[str, object] = {}
    for name in type(paper).model_fields:
        value = getattr(paper, name)
        if isinstance(value, str):
            if has_control(value):
                cleaned = _CONTROL.sub("", value).strip()
                changes[name] = cleaned if cleaned or name in ("id", "title") else None
        elif isinstance(value, tuple) and any(isinstance(v, str) and has_control(v) for v in value):
            items = (_CONTROL.sub("", v).strip() if isinstance(v, str) else v for v in value)
            changes[name] = tuple(v for v in items if v)
    if not changes:
        return paper, []
    return paper.model_copy(update=changes), sorted(changes)


def strip_controls(record: RecordTrace) -> RecordTrace:
    """``record`` with no control character in any field (a notice when some were removed)."""
    extras_values = (v for values in record.extras.values() for v in values)
    if not (
        _dirty(vars(record.paper).values())
        or _dirty(extras_values)
        or (record.source_id is not None and has_control(record.source_id))
    ):
        return record
    paper, fields = _clean_paper(record.paper)
    extras = record.extras
    if any(has_control(v) for values in extras.values() for v in values):
        extras = {k: [strip_control_text(v) for v in values] for k, values in extras.items()}
        fields.extend(
            sorted(k for k, values in record.extras.items() if any(has_control(v) for v in values))
        )
    source_id = record.source_id
    if source_id is not None and has_control(source_id):
        source_id = strip_control_text(source_id) or None
        fields.append("source id")
    if not fields:
        return record
    shown = ", ".join(f[:40] for f in fields[:8]) + (
        f" (+{len(fields) - 8})" if len(fields) > 8 else ""
    )
    note = Notice(
        "control_characters",
        f"control characters removed from {shown}",
        line=record.first_line,
    )
    return record.replace(
        paper=paper, extras=extras, source_id=source_id, notices=(*record.notices, note)
    )
