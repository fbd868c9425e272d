"""Files at the edge: bounded reads of input files (``_read``) and atomic writes of the
outputs the user names (``_write``: never over a folder, FIFO, socket or device)."""

from ._read import FileRefused, read_bounded
from ._write import OutputPathError, check_output, write_output

__all__ = ["FileRefused", "OutputPathError", "check_output", "read_bounded", "write_output"]
