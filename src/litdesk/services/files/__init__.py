"""Reading a file the user names, for the faces: a regular file only, never past a limit.

The faces hand the bytes to a service (a full-text XML, a Study ZIP); they read them with
:func:`read_input` (never opening a FIFO or a device, never reading past ``limit``).
"""

from litdesk.adapters.files import FileRefused, read_bounded

__all__ = ["FileRefused", "read_input"]


def read_input(path: str, *, limit: int, label: str = "the file") -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``); see
    :func:`litdesk.adapters.files.read_bounded` for the refusals."""
    return read_bounded(path, limit=limit, label=label)
