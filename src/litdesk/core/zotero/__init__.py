"""The Zotero bridge's pure parts: item types → record types, creators with roles,
identifiers from fields and ``Extra``, Zotero-like dates, note HTML → safe text."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._dates import ZoteroDate, parse_zotero_date
    from ._extra import ExtraField, Identifiers, extra_fields, item_identifiers
    from ._items import (
        RECORD_TYPES,
        SKIPPED_TYPES,
        ZoteroAttachment,
        ZoteroCollection,
        ZoteroCreator,
        ZoteroItem,
        ZoteroNote,
        creator_name,
        item_paper_fields,
        primary_role,
        record_type,
    )
    from ._notes import MAX_NOTE_INPUT, note_text, note_title

__all__ = [
    "MAX_NOTE_INPUT",
    "RECORD_TYPES",
    "SKIPPED_TYPES",
    "ExtraField",
    "Identifiers",
    "ZoteroAttachment",
    "ZoteroCollection",
    "ZoteroCreator",
    "ZoteroDate",
    "ZoteroItem",
    "ZoteroNote",
    "creator_name",
    "extra_fields",
    "item_identifiers",
    "item_paper_fields",
    "note_text",
    "note_title",
    "parse_zotero_date",
    "primary_role",
    "record_type",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
