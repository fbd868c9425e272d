"""Files the user names, for every face: input files and outputs (``-o``).

The CLI and the web face's uploads and downloads go through these, so every face gets
the same rules: inputs are regular files only, never opened blocking, never read past a
limit (:func:`read_input`); outputs are written atomically and only as regular files —
never over a folder, FIFO or device, an existing file only with ``force``, no folders
created (:func:`check_output`, :func:`write_output`).
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._service import FileRefused, OutputPathError, check_output, read_input, write_output

__all__ = ["FileRefused", "OutputPathError", "check_output", "read_input", "write_output"]

__getattr__ = lazy_exports(__name__, __file__, globals())
