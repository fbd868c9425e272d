"""Import service: many export files at once, each file's trace or its typed refusal."""

from ._service import ImportBatch, RefusedFile, convert_files, import_bytes, import_files

__all__ = ["ImportBatch", "RefusedFile", "convert_files", "import_bytes", "import_files"]
