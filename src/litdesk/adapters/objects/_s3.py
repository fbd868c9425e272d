"""The S3 backend (boto3): objects in one bucket under one key prefix, on AWS or any
S3-compatible service (MinIO, Ceph, Garage, moto on loopback for the tests).

The client is built from the settings only — endpoint, region, access key and secret from
the environment (``LITDESK_OBJECT_STORE_ACCESS_KEY`` / ``…_SECRET_KEY``), never from
``~/.aws``, ``AWS_*`` variables or an instance's metadata service — so the credentials are signed into requests
to the configured endpoint and nowhere else. Connect and read timeouts, a small retry
count, and byte limits on both directions (a get reads at most ``max_bytes + 1`` bytes).
botocore never follows an HTTP redirect itself, and its S3 region redirect (which would
sign a request for another region and, without an endpoint, another host) is switched
off: a redirect is an error.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from ._base import ObjectInfo, ObjectMissing, ObjectStoreError, check_key, too_large

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

__all__ = ["S3Objects"]

_MISSING = {"NoSuchKey", "404", "NotFound"}


def _no_region_redirect(context: dict[str, Any], **_: object) -> None:
    """Mark each request as redirected already: botocore's S3 region redirector then
    leaves a redirect answer alone (an error) instead of asking where the bucket is."""
    context.setdefault("s3_redirect", {})["redirected"] = True


class S3Objects:
    """Objects in ``bucket`` under ``prefix`` (``""`` or ending in ``/``)."""

    def __init__(
        self,
        *,
        bucket: str,
        prefix: str,
        endpoint: str | None,
        region: str,
        access_key: str,
        secret_key: str,
        timeout: float,
        max_bytes: int,
    ) -> None:
        self.bucket, self.prefix, self.max_bytes = bucket, prefix, max_bytes
        self.endpoint = endpoint
        self._made: S3Client | None = None
        self._make_lock = threading.Lock()
        # the credentials live in this closure only (no attribute, nothing a repr shows)
        self._factory: Callable[[], S3Client] = lambda: self._build(
            access_key=access_key, secret_key=secret_key, region=region, timeout=timeout
        )

    @property
    def _client(self) -> S3Client:
        """The boto3 client, made on first use (a CLI command that stores nothing never
        pays for it)."""
        with self._make_lock:
            if self._made is None:
                self._made = self._factory()
            return self._made

    def _build(self, *, access_key: str, secret_key: str, region: str, timeout: float) -> S3Client:
        # the settings only: no ~/.aws files, no AWS_PROFILE, no AWS_ENDPOINT_URL(_S3)
        core = botocore.session.Session(
            session_vars={
                "profile": (None, None, None, None),
                "config_file": (None, None, os.devnull, None),
                "credentials_file": (None, None, os.devnull, None),
                "ignore_configured_endpoint_urls": (None, None, True, None),
            }
        )
        session = boto3.session.Session(
            botocore_session=core,
            aws_access_key_id=access_key,
            aws_secret_access_key=secret_key,
            region_name=region,
        )
        client: S3Client = session.client(
            "s3",
            endpoint_url=self.endpoint,
            config=Config(
                connect_timeout=timeout,
                read_timeout=timeout,
                retries={"max_attempts": 2, "mode": "standard"},
                s3={"addressing_style": "path"},
                signature_version="s3v4",
                user_agent_extra="litdesk",
            ),
        )
        client.meta.events.register("before-call.s3", _no_region_redirect)
        return client

    def describe(self) -> str:
        return f"the object store (bucket {self.bucket})"

    def _key(self, key: str) -> str:
        return self.prefix + check_key(key)

    def _fail(self, exc: Exception, what: str) -> ObjectStoreError:
        code = ""
        if isinstance(exc, ClientError):
            code = str(exc.response.get("Error", {}).get("Code", ""))
        why = f" ({code})" if code else ""
        return ObjectStoreError(
            f"{self.describe()} did not {what}{why}; try again, or ask the administrator",
            code="object_store",
        )

    def put(self, key: str, data: bytes) -> None:
        if len(data) > self.max_bytes:
            raise too_large(key, len(data), self.max_bytes)
        try:
            self._client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)
        except (ClientError, BotoCoreError) as exc:
            raise self._fail(exc, "store a file") from None

    def get(self, key: str) -> bytes:
        try:
            got: Any = self._client.get_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code", "")) in _MISSING:
                raise ObjectMissing(f"no stored file {key}") from None
            raise self._fail(exc, "give a file back") from None
        except BotoCoreError as exc:
            raise self._fail(exc, "give a file back") from None
        body = got["Body"]
        try:
            size = int(got.get("ContentLength") or 0)
            if size > self.max_bytes:
                raise too_large(key, size, self.max_bytes)
            data: bytes = body.read(self.max_bytes + 1)
        except (BotoCoreError, OSError) as exc:
            raise self._fail(exc, "give a file back") from None
        finally:
            body.close()
        if len(data) > self.max_bytes:
            raise too_large(key, len(data), self.max_bytes)
        return data

    def list(self, prefix: str = "") -> list[ObjectInfo]:
        out: list[ObjectInfo] = []
        start = self.prefix + prefix
        token: str | None = None
        try:
            while True:
                args: dict[str, Any] = {"Bucket": self.bucket, "Prefix": start}
                if token:
                    args["ContinuationToken"] = token
                page: Any = self._client.list_objects_v2(**args)
                for item in page.get("Contents", []):
                    key = str(item["Key"])[len(self.prefix) :]
                    out.append(ObjectInfo(key, int(item.get("Size", 0))))
                if not page.get("IsTruncated"):
                    break
                token = str(page["NextContinuationToken"])
        except (ClientError, BotoCoreError) as exc:
            raise self._fail(exc, "list its files") from None
        return sorted(out, key=lambda o: o.key)

    def delete(self, key: str) -> None:
        try:
            self._client.delete_object(Bucket=self.bucket, Key=self._key(key))
        except (ClientError, BotoCoreError) as exc:
            raise self._fail(exc, "delete a file") from None

    def close(self) -> None:
        with self._make_lock:
            if self._made is not None:
                self._made.close()
                self._made = None
