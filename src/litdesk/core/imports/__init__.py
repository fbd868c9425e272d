"""Import traces: per-file and per-record evidence of what an import read."""

from ._control import CONTROL_BYTES, strip_control_text, strip_controls
from ._repeat import repeated_source
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
    "ImportRefused",
    "ImportTrace",
    "Notice",
    "NoticeKind",
    "ParserInfo",
    "RawSource",
    "RecordTrace",
    "SourceInfo",
    "digest_bytes",
    "repeated_source",
    "strip_control_text",
    "strip_controls",
]
