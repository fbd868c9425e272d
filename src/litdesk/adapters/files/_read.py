"""Bounded reads of input files: regular files only, never opened blocking, never past a limit.

Every file litdesk reads from a path the user names (an export, a decisions file, an
evaluation input, a full-text XML, a Study ZIP) is read by :func:`read_bounded`:

* anything that is not a regular file (a FIFO, a device such as ``/dev/zero``, a socket,
  a folder) is refused from its ``stat`` before it is opened, and again from ``fstat``
  of the opened descriptor (a path swapped in between is caught);
* the descriptor is opened ``O_NONBLOCK | O_NOCTTY`` so even a FIFO swapped in cannot
  block the open;
* at most ``limit + 1`` bytes are read, whatever the file claims its size is (a file
  that grows while it is read is refused, not read to its end).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Final

from litdesk._errors import InputError, NotFoundError

__all__ = ["FileRefused", "read_bounded"]

_CHUNK: Final = 1024 * 1024
_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(InputError):
    """An input file is refused: not a regular file (``not_regular``), over its size limit
    (``too_large``) or unreadable (``unreadable``)."""

    default_code = "unreadable"


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _check(path: Path, st: os.stat_result, limit: int, label: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(
            f"{label} {path} is {_kind(st.st_mode)}, not a regular file; not read",
            code="not_regular",
        )
    if st.st_size > limit:
        raise FileRefused(
            f"{label} {path} has {st.st_size:,} bytes, over the limit of {limit:,}; not read",
            code="too_large",
        )


def read_bounded(path: str | os.PathLike[str], *, limit: int, label: str = "the file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Raises :class:`~litdesk.NotFoundError` (``file_not_found``) for a missing file and
    :class:`FileRefused` (``not_regular``, ``too_large``, ``unreadable``) otherwise.
    """
    if limit < 0:
        raise ValueError("limit must be >= 0")
    p = Path(path)
    try:
        _check(p, p.stat(), limit, label)
        fd = os.open(p, _FLAGS)
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {p}", code="file_not_found") from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise FileRefused(f"{label}: the path is too long", code="unreadable") from None
        raise FileRefused(f"cannot read {label} {p}: {exc.strerror}", code="unreadable") from None
    try:
        _check(p, os.fstat(fd), limit, label)  # the file opened is the file checked
        os.set_blocking(fd, True)  # a regular file: reads do not block for long
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as exc:
        raise FileRefused(f"cannot read {label} {p}: {exc.strerror}", code="unreadable") from None
    finally:
        os.close(fd)
    if got > limit:
        raise FileRefused(
            f"{label} {p} grew over the limit of {limit:,} bytes while it was read; not read",
            code="too_large",
        )
    return b"".join(chunks)
