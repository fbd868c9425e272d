"""A local S3-compatible server for the tests: moto's server mode on loopback (real HTTP,
the S3 wire format), with one bucket made, and the settings that point litdesk at it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import boto3
from moto.server import ThreadedMotoServer

#: the test credentials (moto accepts any; the tests check they are never logged)
ACCESS_KEY = "litdesk-test-access-key"
SECRET_KEY = "litdesk-test-secret-9f3b1c77e2"
BUCKET = "litdesk-test"


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    bucket: str

    def env(self, prefix: str = "lab") -> dict[str, str]:
        """The ``LITDESK_OBJECT_STORE*`` variables of a server process using this store."""
        return {
            "LITDESK_OBJECT_STORE": f"s3://{self.bucket}/{prefix}",
            "LITDESK_OBJECT_STORE_ENDPOINT": self.endpoint,
            "LITDESK_OBJECT_STORE_ACCESS_KEY": ACCESS_KEY,
            "LITDESK_OBJECT_STORE_SECRET_KEY": SECRET_KEY,
            "LITDESK_OBJECT_STORE_SYNC_SECONDS": "0",
        }

    def settings(self, prefix: str = "lab") -> dict[str, object]:
        """The same as settings fields (for ``Settings.model_copy(update=…)``)."""
        return {k.removeprefix("LITDESK_").lower(): v for k, v in self.env(prefix).items()}

    def keys(self, prefix: str = "") -> list[str]:
        """Every key in the bucket under ``prefix`` (straight from the server)."""
        client = boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        )  # fmt: skip
        try:
            pages = client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            return sorted(o["Key"] for p in pages for o in p.get("Contents", []))
        finally:
            client.close()


@contextmanager
def s3_server() -> Iterator[S3Server]:
    """moto's S3 server on a free loopback port with the bucket :data:`BUCKET`."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        client = boto3.client(
            "s3", endpoint_url=endpoint, region_name="us-east-1",
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        )  # fmt: skip
        client.create_bucket(Bucket=BUCKET)
        client.close()
        yield S3Server(endpoint, BUCKET)
    finally:
        server.stop()
