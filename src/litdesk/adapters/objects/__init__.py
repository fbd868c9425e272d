"""The object store: whole files by key, in a local folder (default: the data directory)
or an S3-compatible service shared by the hosts of a team server (boto3).

:func:`open_objects` builds the backend the settings name (``object_store``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from litdesk._errors import ConfigError
from litdesk._settings import Settings

from ._base import (
    MAX_KEY_BYTES,
    ObjectInfo,
    ObjectMissing,
    ObjectStore,
    ObjectStoreError,
    ObjectTooLarge,
    check_key,
)
from ._local import LocalObjects

if TYPE_CHECKING:
    from ._s3 import S3Objects

__all__ = [
    "MAX_KEY_BYTES",
    "LocalObjects",
    "ObjectInfo",
    "ObjectMissing",
    "ObjectStore",
    "ObjectStoreError",
    "ObjectTooLarge",
    "S3Objects",
    "check_key",
    "open_objects",
]


def __getattr__(name: str) -> object:
    """``S3Objects`` imported on first use: boto3 costs a process that never stores in S3
    (every CLI command of a single-user workspace) nothing."""
    if name == "S3Objects":
        from ._s3 import S3Objects

        return S3Objects
    raise AttributeError(name)


def open_objects(settings: Settings) -> ObjectStore:
    """The object store of ``settings``: :class:`LocalObjects` on the data directory (no
    ``object_store``) or on a ``file:///`` folder, :class:`S3Objects` for ``s3://``."""
    url = settings.object_store
    limit = settings.object_store_max_bytes
    if url is None:
        return LocalObjects(settings.resolved_data_dir(), max_bytes=limit)
    parts = urlsplit(url)
    if parts.scheme == "file":
        return LocalObjects(Path(unquote(parts.path)), max_bytes=limit)
    access, secret = settings.object_store_access_key, settings.object_store_secret_key
    if access is None or secret is None:
        raise ConfigError(
            "an s3:// object store needs LITDESK_OBJECT_STORE_ACCESS_KEY and "
            "LITDESK_OBJECT_STORE_SECRET_KEY in the environment",
            code="object_store_credentials",
            variables=["LITDESK_OBJECT_STORE_ACCESS_KEY", "LITDESK_OBJECT_STORE_SECRET_KEY"],
        )
    from ._s3 import S3Objects

    prefix = parts.path.strip("/")
    if prefix:
        check_key(prefix)
        prefix += "/"
    return S3Objects(
        bucket=parts.netloc,
        prefix=prefix,
        endpoint=(settings.object_store_endpoint or "").rstrip("/") or None,
        region=settings.object_store_region,
        access_key=access.get_secret_value(),
        secret_key=secret.get_secret_value(),
        timeout=settings.object_store_timeout,
        max_bytes=limit,
    )
