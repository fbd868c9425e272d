"""Import service: many export files at once, each file's trace or its typed refusal."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._service import ImportBatch, RefusedFile, convert_files, import_bytes, import_files

__all__ = ["ImportBatch", "RefusedFile", "convert_files", "import_bytes", "import_files"]

__getattr__ = lazy_exports(__name__, __file__, globals())
