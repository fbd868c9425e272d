"""File formats: import (RIS, BibTeX, Scopus CSV, Web of Science, MEDLINE, CSL-JSON,
EndNote XML, generic CSV/TSV, saved provider responses) and export (RIS, BibTeX,
CSL-JSON, CSV). Mirrors ``json``: ``load/loads/dump/dumps``."""

from ._csv_export import escape_cell
from ._decode import Decoded, decode
from ._registry import (
    EXPORT_FORMATS,
    FORMATS,
    MAX_IMPORT_BYTES,
    detect,
    dump,
    dumps,
    get_format,
    load,
    loads,
)
from ._spec import FormatSpec, ParseResult

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "MAX_IMPORT_BYTES",
    "Decoded",
    "FormatSpec",
    "ParseResult",
    "decode",
    "detect",
    "dump",
    "dumps",
    "escape_cell",
    "get_format",
    "load",
    "loads",
]
