"""Files the user names: bounded reads of regular input files and atomic writes of outputs.

``check_regular``/``read_regular`` refuse anything not a regular file without a blocking
open; ``check_output``/``write_output`` write ``-o`` targets through a temporary file and
a rename, never replacing a folder, FIFO, socket or device (see each module)."""

from ._regular import InputFileError, check_regular, read_regular
from ._write import OutputPathError, check_output, write_output

__all__ = [
    "InputFileError",
    "OutputPathError",
    "check_output",
    "check_regular",
    "read_regular",
    "write_output",
]
