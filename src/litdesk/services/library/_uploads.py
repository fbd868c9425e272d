"""PDFs uploaded to the library's inbox: checked names, sizes and signatures, written
only inside the inbox, each file reported stored or refused with its reason.

A stored name is the uploaded name itself when it is safe (one file name, no folder part,
no ``..``, no control characters, ending in ``.pdf``); an unsafe name is refused, never
rewritten, so what the user sees in the library is what they uploaded. The bytes go to a
hidden temporary file created exclusively in the inbox (``O_EXCL | O_NOFOLLOW``, relative
to the inbox's directory descriptor), are checked while streaming (``%PDF-`` first, size
limit), and are linked to the final name only if that name is still free.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from litdesk._errors import InputError

from ._views import StoredUpload

__all__ = [
    "MAX_NAME_BYTES",
    "Upload",
    "UploadRefused",
    "safe_name",
    "store_upload",
]

MAX_NAME_BYTES: Final = 200
_CHUNK: Final = 1 << 20
_SIGNATURE: Final = b"%PDF-"


class UploadRefused(InputError):
    """One uploaded file is refused (the others of the request are not affected)."""

    default_code = "upload_refused"


@dataclass(frozen=True, slots=True)
class Upload:
    """One uploaded file: the name the client sent, and its bytes as a stream."""

    name: str
    stream: BinaryIO


def _shown(raw: str) -> str:
    """The client's name as it may be shown back (control characters replaced, clipped)."""
    return "".join(c if c.isprintable() else "\ufffd" for c in raw)[:120]


def safe_name(raw: str) -> str:
    """``raw`` as a stored file name, or :class:`UploadRefused` saying why not."""
    name = unicodedata.normalize("NFC", raw or "")
    shown = _shown(raw or "")
    if not name:
        raise UploadRefused("the file has no name", code="unsafe_name")
    if "/" in name or "\\" in name or name in (".", ".."):
        raise UploadRefused(
            f"{shown!r} has a folder part: send a file name only", code="unsafe_name"
        )
    if any(not c.isprintable() for c in name):
        raise UploadRefused(f"{shown!r} has control characters", code="unsafe_name")
    if name.startswith(".") or name != name.strip():
        raise UploadRefused(
            f"{shown!r} starts with a dot or has surrounding spaces", code="unsafe_name"
        )
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise UploadRefused(f"{shown!r} is longer than {MAX_NAME_BYTES} bytes", code="unsafe_name")
    if not name.casefold().endswith(".pdf"):
        raise UploadRefused(f"{shown!r} is not a .pdf file", code="not_pdf_name")
    return name


def _open_dir(inbox: Path) -> int:
    inbox.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    return os.open(inbox, flags)


def store_upload(
    inbox: Path,
    upload: Upload,
    *,
    limit: int,
    taken: Mapping[str, str],
    hashes: Mapping[str, str],
) -> StoredUpload:
    """Write ``upload`` into ``inbox`` under its own (safe) name.

    ``taken``: file names already in the library → where they are (refused: a second file
    of that name would be shadowed or shadow it); ``hashes``: content hash → library file
    name (stored, reported as the same content: the index reads it once).
    """
    name = safe_name(upload.name)
    if name in taken:
        raise UploadRefused(
            f"{name} is already in the library ({taken[name]}): rename the file to add it",
            code="name_exists",
        )
    dfd = _open_dir(inbox)
    tmp = f".upload-{uuid.uuid4().hex}.part"
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o600, dir_fd=dfd)
        digest = hashlib.sha256()
        size = 0
        try:
            with os.fdopen(fd, "wb") as out:
                head = b""
                while True:
                    chunk = upload.stream.read(_CHUNK)
                    if not chunk:
                        break
                    if len(head) < len(_SIGNATURE):
                        head = (head + chunk)[: len(_SIGNATURE)]
                        if len(head) == len(_SIGNATURE) and head != _SIGNATURE:
                            raise UploadRefused(
                                f"{name} does not start with %PDF-: not a PDF", code="not_pdf"
                            )
                    size += len(chunk)
                    if size > limit:
                        raise UploadRefused(
                            f"{name} is larger than {limit:,} bytes", code="too_large"
                        )
                    digest.update(chunk)
                    out.write(chunk)
                if size == 0:
                    raise UploadRefused(f"{name} is empty", code="empty")
                if head != _SIGNATURE:
                    raise UploadRefused(
                        f"{name} does not start with %PDF-: not a PDF", code="not_pdf"
                    )
                out.flush()
                os.fsync(out.fileno())
            try:
                os.link(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
            except FileExistsError:
                raise UploadRefused(
                    f"{name} is already in the inbox: rename the file to add it",
                    code="name_exists",
                ) from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=dfd)
    finally:
        os.close(dfd)
    sha = digest.hexdigest()
    return StoredUpload(name, size, sha, hashes.get(sha))
