"""The Zotero area's views: frozen dataclasses with ``to_dict()``."""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = [
    "ItemProblem",
    "ItemRef",
    "MovedItem",
    "PushItem",
    "PushPlanView",
    "PushView",
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
    #: the collections' names (the same order; a key whose collection is gone stays a key)
    before_names: tuple[str, ...] = ()
    after_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StudyCount:
    """A Study the import filled: id, name, papers of the import in it, newly created;
    ``total``: the papers the Study holds after the import (more than ``papers`` when it
    holds others: added by hand, from files, or items since removed or moved in Zotero,
    which stay in the Study)."""

    id: str
    name: str
    papers: int
    created: bool
    total: int


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
    #: notes changed in Zotero since the last import: their litdesk notes are updated in
    #: place with the new text (matched by the note's link; never added a second time)
    notes_changed: int
    #: the library's PDFs attached to their papers (all of them, on an import again too)
    pdfs_attached: int
    #: of those, the ones this import attached for the first time
    pdfs_new: int
    full_text_caches: int
    problems: tuple[ItemProblem, ...]
    #: read through the Web API: the library version read at, and the version only the
    #: changes after which were read (``None``: every item was read)
    library_version: int | None = None
    since: int | None = None
    #: read through the Web API: the items the last import had a problem with, asked for
    #: again although they did not change (``itemKey=``); and those not asked again, their
    #: problem having come back on that many imports in a row (each in ``problems``)
    asked_again: tuple[str, ...] = ()
    given_up: tuple[str, ...] = ()

    @property
    def library_label(self) -> str:
        """The library as people read it: "personal", "group 4711" (``library`` is
        ``user`` or ``group:<id>``)."""
        if self.library == "user":
            return "personal"
        return self.library.replace("group:", "group ", 1)

    def to_dict(self) -> dict[str, object]:
        return asdict(self) | {"library_label": self.library_label}


@dataclass(frozen=True, slots=True)
class PushItem:
    """What a push writes to one Zotero item: the tags it adds (and ``removed_tags``: the
    ``litdesk:`` status and screening tags of an earlier push that no longer hold, taken
    off), the notes (litdesk note ids and their text) it adds; ``version``: the item's
    version as imported (or as the last push left it)."""

    key: str
    title: str
    version: int
    tags: tuple[str, ...]
    notes: tuple[tuple[str, str], ...]
    removed_tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PushPlanView:
    """What a push would write, shown before anything is sent."""

    study: str
    library: str
    target: str
    items: tuple[PushItem, ...]
    skipped: tuple[ItemProblem, ...]
    #: screening stages still blind (dual review, not revealed): their decisions stay out
    blind_stages: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not any(i.tags or i.notes or i.removed_tags for i in self.items)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class PushView:
    """What a push wrote: the plan, items and notes written, the file (RIS)."""

    plan: PushPlanView
    items_written: int
    notes_written: int
    file: str | None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
