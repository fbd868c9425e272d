"""Input files: only regular files are read, and never by a blocking open.

A FIFO named ``refs.ris``, ``/dev/zero``, a socket or a folder given where a file is
expected is refused (issue 13, class 5) before it is opened: :func:`check_regular` looks
at the path with ``stat`` (links followed), and :func:`read_regular` opens with
``O_NONBLOCK`` (so even a FIFO swapped in after the check cannot hang the open), checks the
open descriptor with ``fstat`` and reads at most ``max_bytes`` (one more byte tells an
over-long file, which is refused rather than cut).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from litdesk._errors import InputError, NotFoundError

__all__ = ["InputFileError", "check_regular", "read_regular"]

_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class InputFileError(InputError):
    """An input path is not a readable regular file, or is over its size limit."""

    default_code = "input_file"


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _refuse_kind(path: Path, mode: int) -> InputFileError:
    return InputFileError(
        f"{path} is {_kind(mode)}, not a regular file; not read",
        code="not_regular",
        path=str(path),
    )


def check_regular(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> int:
    """The size of the regular file at ``path``; refuses a missing path (NotFoundError),
    anything that is not a regular file, and (with ``max_bytes``) a file over the limit."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {p}", code="file_not_found", path=str(p)) from None
    except OSError as exc:
        raise InputFileError(f"cannot read {p}: {exc.strerror}", code="unreadable") from None
    if not stat.S_ISREG(st.st_mode):
        raise _refuse_kind(p, st.st_mode)
    if max_bytes is not None and st.st_size > max_bytes:
        raise InputFileError(
            f"{p} has {st.st_size:,} bytes, over the limit of {max_bytes:,}; not read",
            code="too_large",
            path=str(p),
        )
    return st.st_size


def read_regular(path: str | os.PathLike[str], *, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``max_bytes``; a longer file is
    refused). Never blocks on a FIFO or device and never reads past the limit."""
    p = Path(path)
    check_regular(p, max_bytes=max_bytes)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {p}", code="file_not_found", path=str(p)) from None
    except OSError as exc:
        raise InputFileError(f"cannot read {p}: {exc.strerror}", code="unreadable") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):  # swapped after the check
            raise _refuse_kind(p, st.st_mode)
        try:
            data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise InputFileError(f"cannot read {p}: {exc.strerror}", code="unreadable") from None
    if len(data) > max_bytes:
        raise InputFileError(
            f"{p} is over the limit of {max_bytes:,} bytes; not read",
            code="too_large",
            path=str(p),
        )
    return data
