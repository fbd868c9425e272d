"""Import traces: per-file and per-record evidence of what an import read."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._control import CONTROL_BYTES, strip_control_text, strip_controls
    from ._limits import MAX_NAME, note_cut_fields
    from ._repeat import repeated_source
    from ._source import (
        IMPORT_SOURCE_KINDS,
        MAX_SOURCE_NAME,
        REGISTER_WORDS,
        ImportSourceKind,
        SourceLabel,
        SourceLabelInvalid,
        default_source,
        kind_of_name,
        source_label,
    )
    from ._trace import (
        IMPORT_REFUSALS,
        ImportRefused,
        ImportTrace,
        Notice,
        NoticeKind,
        ParserInfo,
        RawSource,
        RecordTrace,
        SourceInfo,
        digest_bytes,
    )

__all__ = [
    "CONTROL_BYTES",
    "IMPORT_REFUSALS",
    "IMPORT_SOURCE_KINDS",
    "MAX_NAME",
    "MAX_SOURCE_NAME",
    "REGISTER_WORDS",
    "ImportRefused",
    "ImportSourceKind",
    "ImportTrace",
    "Notice",
    "NoticeKind",
    "ParserInfo",
    "RawSource",
    "RecordTrace",
    "SourceInfo",
    "SourceLabel",
    "SourceLabelInvalid",
    "default_source",
    "digest_bytes",
    "kind_of_name",
    "note_cut_fields",
    "repeated_source",
    "source_label",
    "strip_control_text",
    "strip_controls",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
