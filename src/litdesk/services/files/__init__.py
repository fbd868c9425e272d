"""Files the user names, for every face: outputs (``-o``) and input files.

The CLI and the web face's uploads and downloads go through these, so every face gets
the same rules: outputs are written atomically and only as regular files (never over a
folder, FIFO or device, existing files only with ``force``, no folders created); inputs
are regular files read with a byte limit, never by a blocking open."""

from ._service import (
    InputFileError,
    OutputPathError,
    check_input,
    check_output,
    read_input,
    write_output,
    write_papers,
)

__all__ = [
    "InputFileError",
    "OutputPathError",
    "check_input",
    "check_output",
    "read_input",
    "write_output",
    "write_papers",
]
