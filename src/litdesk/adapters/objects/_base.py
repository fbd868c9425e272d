"""The object-store seam: what every backend offers, its errors and its key rule.

An object store keeps whole files by key (``library/inbox/paper.pdf``). Keys are relative
POSIX paths: no empty part, no ``.`` or ``..``, no backslash, no control characters, at most
:data:`MAX_KEY_BYTES` bytes, so a key can never name anything outside the store's root or
prefix, whatever backend reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from litdesk._errors import ExternalError, InputError, NotFoundError

__all__ = [
    "MAX_KEY_BYTES",
    "ObjectInfo",
    "ObjectMissing",
    "ObjectStore",
    "ObjectStoreError",
    "ObjectTooLarge",
    "check_key",
]

MAX_KEY_BYTES: Final = 900


class ObjectStoreError(ExternalError):
    """The object store did not answer, or refused a request."""

    default_code = "object_store"


class ObjectMissing(NotFoundError):
    """No object under that key."""

    default_code = "object_missing"


class ObjectTooLarge(InputError):
    """An object over the store's byte limit (refused before it is sent or read whole)."""

    default_code = "object_too_large"


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    """One stored object: its key (relative to the store's prefix) and size in bytes."""

    key: str
    size: int


def check_key(key: str) -> str:
    """``key`` when it is a safe relative key, else :class:`InputError` (code ``object_key``)."""
    parts = key.split("/")
    bad = (
        not key
        or len(key.encode("utf-8")) > MAX_KEY_BYTES
        or "\\" in key
        or any(not c.isprintable() for c in key)
        or any(p in ("", ".", "..") for p in parts)
    )
    if bad:
        raise InputError("an object key must be a relative path without '..'", code="object_key")
    return key


class ObjectStore(Protocol):
    """Whole-file storage by key: the local folder, or an S3-compatible service."""

    #: the largest object put or got (bytes)
    max_bytes: int

    def describe(self) -> str:
        """Where the objects are, for messages (never a credential)."""
        ...

    def put(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` (replacing what was there)."""
        ...

    def get(self, key: str) -> bytes:
        """The bytes under ``key``; :class:`ObjectMissing` when there are none."""
        ...

    def list(self, prefix: str = "") -> list[ObjectInfo]:
        """Every object whose key starts with ``prefix`` (a folder: end it with ``/``), by key."""
        ...

    def delete(self, key: str) -> None:
        """Remove the object under ``key`` (none there: nothing happens)."""
        ...

    def close(self) -> None:
        """Release the client's connections."""
        ...


def too_large(key: str, size: int, limit: int) -> ObjectTooLarge:
    return ObjectTooLarge(
        f"the file {key.rsplit('/', 1)[-1]} is larger than the object store's limit "
        f"({size:,} > {limit:,} bytes)",
        code="object_too_large",
    )
