"""The Zotero edge: read a data directory offline (a private read-only copy of
``zotero.sqlite``), and write back through the Web API v3 (see ``_web``)."""

from ._links import study_libraries, zotero_source_name
from ._read import (
    FULL_TEXT_CACHE,
    KNOWN_USERDATA,
    AttachmentFile,
    NoZoteroLibrary,
    UnknownZoteroSchema,
    ZoteroLibrary,
    ZoteroUnreadable,
    default_data_dir,
    read_full_text,
    read_library,
    resolve_attachment,
)

__all__ = [
    "FULL_TEXT_CACHE",
    "KNOWN_USERDATA",
    "AttachmentFile",
    "NoZoteroLibrary",
    "UnknownZoteroSchema",
    "ZoteroLibrary",
    "ZoteroUnreadable",
    "default_data_dir",
    "read_full_text",
    "read_library",
    "resolve_attachment",
    "study_libraries",
    "zotero_source_name",
]
