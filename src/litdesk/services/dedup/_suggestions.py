"""What an export file says about its records beyond the Paper, read for deduplication:
another tool's duplicate flags (suggestions with their source, never merges) and
translated or original-language titles (compared as title variants).

* EndNote marks every record of a duplicate set with the caption "Duplicate" (kept in the
  record's extras as ``caption``);
* tables from other tools (ASReview datatools, the Nagtegaal and Rathbone sets) carry a
  ``duplicate_record_id`` (or ``duplicate_of``) column naming the record a row duplicates,
  or a ``duplicate`` / ``is_duplicate`` flag column.

A suggestion is reported beside litdesk's own decision on it (same group or not); it never
changes a group.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["Suggestion", "alt_titles", "duplicate_suggestions"]

#: extras keys holding another title of the record (RIS/MEDLINE ``TT``, EndNote
#: ``translated-title``, CSL ``original-title``, biblatex ``origtitle``), compared lower-case
_ALT_TITLE_KEYS: Final = frozenset(
    {"tt", "translated-title", "translated title", "original-title", "original title", "origtitle"}
)
#: columns naming the record a row duplicates (compared normalised: lower case, "_")
_TARGET_KEYS: Final = frozenset(
    {"duplicate_record_id", "duplicate_of", "duplicate_id", "duplicate_of_id", "duplicates"}
)
_FLAG_KEYS: Final = frozenset({"duplicate", "is_duplicate", "duplicate_flag"})
_TRUE: Final = frozenset({"1", "true", "yes", "y", "duplicate", "t"})
_KEY_NORM: Final = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Suggestion:
    """Another tool says record ``record`` is a duplicate (of record ``of`` when it names
    one; input indices). ``source`` says which tool or column, ``value`` what it held."""

    record: int
    of: int | None
    source: str
    value: str

    def to_dict(self) -> dict[str, Any]:
        return {"record": self.record, "of": self.of, "source": self.source, "value": self.value}


def _norm(key: str) -> str:
    return _KEY_NORM.sub("_", key.strip().lower()).strip("_")


def alt_titles(extras: Mapping[str, Sequence[str]]) -> list[str]:
    """The record's other titles (translated or original-language) from its extras."""
    return [v for k, vals in extras.items() if k.strip().lower() in _ALT_TITLE_KEYS for v in vals]


def duplicate_suggestions(
    records: Sequence[tuple[str, str | None, Mapping[str, Sequence[str]]]],
) -> list[Suggestion]:
    """The duplicate suggestions of other tools among ``records`` (``(file, source_id,
    extras)`` in input order). A named record is looked up by its own id in the same file;
    an id not found is kept as the suggestion's value with ``of`` None."""
    by_id: dict[tuple[str, str], int] = {}
    for i, (file, source_id, _) in enumerate(records):
        if source_id:
            by_id.setdefault((file, source_id.strip()), i)
    out: list[Suggestion] = []
    for i, (file, _, extras) in enumerate(records):
        for key, values in extras.items():
            norm = _norm(key)
            for value in values:
                v = value.strip()
                if not v:
                    continue
                if norm == "caption" and v.lower() == "duplicate":
                    out.append(Suggestion(i, None, "EndNote: caption 'Duplicate'", v))
                elif norm in _TARGET_KEYS:
                    target = by_id.get((file, v))
                    if target != i:
                        out.append(Suggestion(i, target, f"column {key!r}", v[:200]))
                elif norm in _FLAG_KEYS and v.lower() in _TRUE:
                    out.append(Suggestion(i, None, f"column {key!r}", v[:200]))
    return out
