"""The service functions over :mod:`litdesk.adapters.files` (faces never import adapters)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from litdesk.adapters.files import (
    InputFileError,
    OutputPathError,
    check_regular,
    read_regular,
)
from litdesk.adapters.files import check_output as _check_output
from litdesk.adapters.files import write_output as _write_output
from litdesk.adapters.formats import dumps
from litdesk.core.records import Paper

__all__ = [
    "InputFileError",
    "OutputPathError",
    "check_input",
    "check_output",
    "read_input",
    "write_output",
    "write_papers",
]


def check_output(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Refuse an output path that cannot be written (see ``write_output``) before any work
    is done; returns the path that will be written (links followed)."""
    return _check_output(path, force=force)


def write_output(path: str | os.PathLike[str], data: bytes | str, *, force: bool = False) -> Path:
    """Write an output file atomically (temporary file beside it, fsync, rename). Its folder
    must exist; an existing regular file is replaced only with ``force``; a folder, FIFO,
    socket or device is never replaced. Refusals are ``OutputPathError`` (exit 2)."""
    return _write_output(path, data, force=force)


def check_input(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> int:
    """The size of a regular input file; refuses FIFOs, devices, sockets and folders
    (``InputFileError``), missing files (``NotFoundError``) and files over ``max_bytes``."""
    return check_regular(path, max_bytes=max_bytes)


def read_input(path: str | os.PathLike[str], *, max_bytes: int) -> bytes:
    """The bytes of a regular input file, at most ``max_bytes`` (see ``check_input``)."""
    return read_regular(path, max_bytes=max_bytes)


def write_papers(
    path: str | os.PathLike[str], papers: Iterable[Paper], to: str, *, force: bool = False
) -> Path:
    """Write ``papers`` as ``to`` (ris, bibtex, csljson, csv) to an output file (see
    ``write_output``); the format is checked before the file is touched."""
    return _write_output(path, dumps(papers, to), force=force)
