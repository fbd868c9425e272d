"""Output files: the one place litdesk writes a file the user named (``-o``/``--output``).

Rules (issue 13, class 6):

* The target's folder must exist and be a folder; no folder is created on the user's
  behalf (``study export -o /missing/dir/x.zip`` is refused, not silently created).
* An existing target must be a regular file (a symbolic link is followed to its target,
  which must be a regular file too); it is replaced only with ``force``. A directory, FIFO,
  socket or device (``/dev/null``, ``/dev/full``) is never replaced, ``force`` or not.
* The bytes go to a temporary file beside the target, are flushed and ``fsync``-ed, and the
  temporary file is renamed over the target (atomic: a reader sees the old or the new file,
  never half of one); a failure removes the temporary file and leaves the target untouched.

Every refusal is an :class:`OutputPathError` (an ``InputError``, CLI exit 2) naming the
path; nothing is opened for writing before the checks pass.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import Final

from litdesk._errors import InputError

__all__ = ["OutputPathError", "check_output", "write_output"]

#: Permission bits of a new output file before the umask (as ``open(..., "w")`` would).
_NEW_FILE_MODE: Final = 0o666

_KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class OutputPathError(InputError):
    """The output path cannot be written as a regular file (refused before writing)."""

    default_code = "output_path"


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_output(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """The path an output will be written to (symbolic links followed), after checking it
    can be: its folder exists, and it is absent or a regular file (replaced only with
    ``force``). Call it before the expensive work so a bad ``-o`` fails early."""
    raw = Path(path)
    if str(path) == "" or raw.name in ("", ".", ".."):
        raise OutputPathError(f"{raw}: not a file name", code="not_a_file", path=str(raw))
    target = raw
    try:
        st = os.lstat(raw)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputPathError(f"{raw}: {exc.strerror}", code="unwritable", path=str(raw)) from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        target = Path(os.path.realpath(raw))
        try:
            st = os.stat(target)
        except FileNotFoundError:
            st = None  # a dangling link: written as the file it names
        except OSError as exc:
            raise OutputPathError(
                f"{raw}: {exc.strerror}", code="unwritable", path=str(raw)
            ) from None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            code = "is_directory" if stat.S_ISDIR(st.st_mode) else "not_regular"
            raise OutputPathError(
                f"{raw} is {_kind(st.st_mode)}, not a regular file; litdesk writes only "
                "regular files and never replaces anything else (not even with --force)",
                code=code,
                path=str(raw),
            )
        if not force:
            raise OutputPathError(
                f"{raw} exists; pass --force to overwrite", code="exists", path=str(raw)
            )
    parent = target.parent
    try:
        pst = os.stat(parent)
    except FileNotFoundError:
        raise OutputPathError(
            f"{raw}: the folder {parent} does not exist (litdesk does not create it)",
            code="no_folder",
            path=str(raw),
        ) from None
    except OSError as exc:
        raise OutputPathError(f"{raw}: {exc.strerror}", code="unwritable", path=str(raw)) from None
    if not stat.S_ISDIR(pst.st_mode):
        raise OutputPathError(f"{raw}: {parent} is not a folder", code="no_folder", path=str(raw))
    return target


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (best effort: some file systems refuse a folder fsync)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_output(path: str | os.PathLike[str], data: bytes | str, *, force: bool = False) -> Path:
    """Write ``data`` (text is UTF-8 encoded as is, no newline translation) to ``path``
    atomically under the rules of this module; returns the path written (links followed)."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    target = check_output(path, force=force)
    existing_mode: int | None = None
    with contextlib.suppress(OSError):
        existing_mode = stat.S_IMODE(os.stat(target).st_mode)
    tmp = target.parent / f".{target.name[:80]}.{secrets.token_hex(8)}.part"
    try:
        # O_EXCL: a fresh file (never an existing one, link or FIFO); mode via the umask
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _NEW_FILE_MODE)
    except OSError as exc:
        raise OutputPathError(
            f"{path}: cannot write in {target.parent}: {exc.strerror}",
            code="unwritable",
            path=str(path),
        ) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            if existing_mode is not None:  # a replaced file keeps its permissions
                os.fchmod(fh.fileno(), existing_mode)
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
        # the target may have changed since the check: never rename over a non-regular file
        check_output(target, force=True)
        os.replace(tmp, target)
    except OutputPathError:
        tmp.unlink(missing_ok=True)
        raise
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
        raise OutputPathError(
            f"{path}: cannot write: {reason}", code="unwritable", path=str(path)
        ) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)
    return target
