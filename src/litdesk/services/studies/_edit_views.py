"""The views of a Study's edit, delete, trash and history use cases (``to_dict()``: the
JSON the API answers and the data the pages render)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

__all__ = ["ChangeView", "HistoryItem", "HistoryView", "TrashItem", "TrashView"]


class TrashItem(TypedDict):
    """An item in a trash: what it was (``kind``), its title for a person, who deleted it
    and when."""

    id: str
    kind: str
    target: str
    label: str
    study_id: str | None
    deleted_by: str
    deleted_at: str
    rows: int


class HistoryItem(TypedDict):
    """One change: when, who (account id and name), what, on what (``target`` as
    recorded; ``label``: a paper's title for its id)."""

    at: str
    account_id: str
    username: str
    action: str
    #: the action in words ("Added a paper")
    what: str
    target: str | None
    label: str | None


@dataclass(frozen=True, slots=True)
class ChangeView:
    """One change made (``edited``, ``deleted``, ``restored``, ``emptied``): to what, in
    which Study, and the trash item that undoes a deletion."""

    action: str
    kind: str
    target: str
    label: str
    study_id: str | None
    study_name: str | None
    trash_id: str | None = None
    count: int = 1

    def to_dict(self) -> dict[str, object]:
        return {
            "action": self.action,
            "kind": self.kind,
            "target": self.target,
            "label": self.label,
            "study_id": self.study_id,
            "study_name": self.study_name,
            "trash_id": self.trash_id,
            "count": self.count,
        }


@dataclass(frozen=True, slots=True)
class TrashView:
    """A Study's trash, or (``study_id`` None) the account's own: work of no Study and
    the Studies it deleted."""

    study_id: str | None
    study_name: str | None
    items: list[TrashItem] = field(default_factory=list)
    can_restore: bool = True

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "items": [dict(i) for i in self.items],
            "count": len(self.items),
            "can_restore": self.can_restore,
        }


@dataclass(frozen=True, slots=True)
class HistoryView:
    """A Study's history, newest first: its writes (papers, notes, evidence, runs,
    imports, roles, edits, deletions, restores) and its deduplication decisions."""

    study_id: str
    study_name: str
    entries: list[HistoryItem] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "entries": [dict(e) for e in self.entries],
        }
