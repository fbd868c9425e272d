"""The service functions over :mod:`litdesk.adapters.files` (faces never import adapters)."""

from __future__ import annotations

import os
from pathlib import Path

from litdesk.adapters.files import FileRefused, OutputPathError, read_bounded
from litdesk.adapters.files import check_output as _check_output
from litdesk.adapters.files import write_output as _write_output

__all__ = ["FileRefused", "OutputPathError", "check_output", "read_input", "write_output"]


def read_input(path: str | os.PathLike[str], *, limit: int, label: str = "the file") -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``); see
    :func:`litdesk.adapters.files.read_bounded` for the refusals."""
    return read_bounded(path, limit=limit, label=label)


def check_output(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Refuse an output path that cannot be written (see ``write_output``) before any work
    is done; returns the path that will be written (links followed)."""
    return _check_output(path, force=force)


def write_output(path: str | os.PathLike[str], data: bytes | str, *, force: bool = False) -> Path:
    """Write an output file atomically (temporary file beside it, fsync, rename). Its folder
    must exist; an existing regular file is replaced only with ``force``; a folder, FIFO,
    socket or device is never replaced. Refusals are ``OutputPathError`` (exit 2)."""
    return _write_output(path, data, force=force)
