"""Files at the edge: bounded reads of input files (``_read``)."""

from ._read import FileRefused, read_bounded

__all__ = ["FileRefused", "read_bounded"]
