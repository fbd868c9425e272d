"""The Zotero area's views: frozen dataclasses with ``to_dict()``."""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = [
    "ItemProblem",
    "ItemRef",
    "MovedItem",
    "StudyCount",
    "ZoteroImportView",
]


@dataclass(frozen=True, slots=True)
class ItemRef:
    """A Zotero item by key, with its title."""

    key: str
    title: str


@dataclass(frozen=True, slots=True)
class ItemProblem:
    """Something of one item that was not imported (a file, a note), and why."""

    key: str
    title: str
    problem: str


@dataclass(frozen=True, slots=True)
class MovedItem:
    """An item whose collections changed in Zotero since the last import."""

    key: str
    title: str
    before: tuple[str, ...]
    after: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StudyCount:
    """A Study the import filled: id, name, papers of the import in it, newly created."""

    id: str
    name: str
    papers: int
    created: bool


@dataclass(frozen=True, slots=True)
class ZoteroImportView:
    """What one import read and did."""

    data_dir: str
    library: str
    schema_version: int
    items_read: int
    added: int
    updated: int
    unchanged: int
    trashed_left_out: int
    studies: tuple[StudyCount, ...]
    removed: tuple[ItemRef, ...]
    moved: tuple[MovedItem, ...]
    notes_added: int
    notes_unchanged: int
    pdfs_attached: int
    full_text_caches: int
    problems: tuple[ItemProblem, ...]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
