"""Reads a Zotero library through the Web API v3 (``api.zotero.org``): its collections,
its items (all, or a collection's; only those changed ``since`` a library version), the
keys deleted since a version, and an attachment's file.

The rules of :mod:`._web` hold: only the allowed hosts; the API key only in the
``Zotero-API-Key`` header and only to ``api.zotero.org`` (never in a URL, a log line, a
trace or an error); no redirect followed — except the one a file download answers with
(Zotero's file storage), followed once to ``https://`` :data:`FILE_HOSTS` only, without
the key; every answer read up to a byte limit (:data:`MAX_RESPONSE_BYTES` a page,
:data:`MAX_FILE_BYTES` a file); at most :data:`MAX_PAGES` pages of :data:`PAGE_SIZE`
objects per listing (``Total-Results`` is checked before the second page). ``Backoff`` is
waited out before the next request; ``429``/``503`` are retried after ``Retry-After``, at
most :data:`MAX_RETRIES` times (the injected ``sleep``). ``If-Modified-Since-Version``
goes with a ``since`` read: ``304`` means nothing changed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import httpx

from litdesk._errors import ExternalError, NotFoundError, RefusedError

from ._web import MAX_RESPONSE_BYTES, MAX_RETRIES, TIMEOUT, WEB_API, Sleep, _seconds, allowed_base

__all__ = [
    "FILE_HOSTS",
    "MAX_FILE_BYTES",
    "MAX_PAGES",
    "PAGE_SIZE",
    "Listing",
    "ZoteroKeyRefused",
    "ZoteroNoLibrary",
    "ZoteroReadFailed",
    "ZoteroWebReader",
]

PAGE_SIZE: Final = 100
MAX_PAGES: Final = 500
MAX_FILE_BYTES: Final = 200 * 1024 * 1024
#: where ``/items/<key>/file`` may send the download (Zotero's file storage)
FILE_HOSTS: Final = frozenset({"files.zotero.net"})


class ZoteroReadFailed(ExternalError):
    """Zotero's answer to a read could not be used (status, size, form; never the key)."""

    default_code = "zotero_read_failed"


class ZoteroKeyRefused(RefusedError):
    """Zotero refused the API key (403) for this library."""

    default_code = "zotero_key_refused"
    hint = (
        "Make a key with read access to this library at zotero.org/settings/keys and "
        "set LITDESK_ZOTERO_API_KEY."
    )


class ZoteroNoLibrary(NotFoundError):
    """Zotero has no such library, collection or item (404)."""

    default_code = "zotero_no_library"


@dataclass(frozen=True, slots=True)
class Listing:
    """The objects of one listing; the library's version it was read at
    (``Last-Modified-Version``); ``not_modified``: Zotero answered 304 (nothing changed
    since the version asked)."""

    objects: tuple[object, ...]
    library_version: int | None
    not_modified: bool = False


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.strip().isdigit() else None


class ZoteroWebReader:
    """Reads one library (``users/<id>`` or ``groups/<id>``) of one API base."""

    def __init__(
        self,
        *,
        library: str,
        api_key: str | None,
        base: str = WEB_API,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        url = allowed_base(base, "reads")
        self._base = base.rstrip("/")
        self._library = library
        self._headers = {"Zotero-API-Version": "3"}
        if api_key and url.host == "api.zotero.org":
            self._headers["Zotero-API-Key"] = api_key
        self._transport = transport
        self._sleep = sleep
        self._backoff = 0.0
        self.requests = 0

    def __repr__(self) -> str:  # the key never shows
        return f"ZoteroWebReader(base={self._base!r}, library={self._library!r})"

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=self._transport, timeout=TIMEOUT, follow_redirects=False)

    async def _get(
        self,
        client: httpx.AsyncClient,
        url: str,
        *,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
        limit: int = MAX_RESPONSE_BYTES,
        key: bool = True,
    ) -> tuple[int, httpx.Headers, bytes]:
        """One GET (retried on 429/503 as the module docstring says); the body read up to
        ``limit`` bytes."""
        sent = {**(self._headers if key else {}), **(headers or {})}
        for attempt in range(MAX_RETRIES + 1):
            if self._backoff:
                await self._sleep(self._backoff)
                self._backoff = 0.0
            self.requests += 1
            status, got, body = await self._fetch(client, url, params, sent, limit)
            self._backoff = _seconds(got.get("backoff")) or 0.0
            if status in (429, 503) and attempt < MAX_RETRIES:
                wait = _seconds(got.get("retry-after"))
                await self._sleep(wait if wait is not None else 2.0 ** (attempt + 1))
                continue
            return status, got, body
        raise ZoteroReadFailed("Zotero kept asking to retry later", code="zotero_busy")

    async def _fetch(
        self,
        client: httpx.AsyncClient,
        url: str,
        params: Mapping[str, str | int] | None,
        headers: Mapping[str, str],
        limit: int,
    ) -> tuple[int, httpx.Headers, bytes]:
        try:
            async with client.stream("GET", url, params=params, headers=headers) as resp:
                declared = _int(resp.headers.get("content-length"))
                if declared is not None and declared > limit:
                    raise _too_large(limit)
                chunks: list[bytes] = []
                size = 0
                async for chunk in resp.aiter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise _too_large(limit)
                    chunks.append(chunk)
                return resp.status_code, resp.headers, b"".join(chunks)
        except httpx.TimeoutException:
            raise ZoteroReadFailed("Zotero did not answer in time", code="zotero_timeout") from None
        except httpx.TransportError as exc:
            raise ZoteroReadFailed(
                f"Zotero could not be reached ({type(exc).__name__})", code="zotero_unreachable"
            ) from None

    def _refuse(self, status: int, what: str) -> None:
        """The typed error of a status that is not an answer."""
        if 300 <= status < 400:
            raise ZoteroReadFailed(
                f"Zotero answered with a redirect ({status}); not followed", code="zotero_redirect"
            )
        if status == 403:
            raise ZoteroKeyRefused(
                f"the Zotero API key was refused for {self._library} (403)", library=self._library
            )
        if status == 404:
            raise ZoteroNoLibrary(
                f"Zotero has no {what} (404): check the library id ({self._library}) and "
                "that the key may read it",
                library=self._library,
            )
        raise ZoteroReadFailed(f"Zotero answered {status}", code="zotero_status", status=status)

    async def listing(
        self,
        path: str,
        *,
        since: int | None = None,
        params: Mapping[str, str] | None = None,
        what: str = "library",
    ) -> Listing:
        """Every object of ``/<library>/<path>`` (``format=json``, paged by ``start``;
        ``params``: more of the query, e.g. ``itemKey``); with ``since``: only those
        changed after that library version."""
        url = f"{self._base}/{self._library}/{path}"
        query: dict[str, str | int] = {"format": "json", "include": "data", "limit": PAGE_SIZE}
        if "items" in path:
            query |= {"sort": "dateAdded", "direction": "asc"}
        query |= dict(params or {})
        headers: dict[str, str] = {}
        if since is not None:
            query["since"] = since
            headers["If-Modified-Since-Version"] = str(since)
        out: list[object] = []
        version: int | None = None
        async with self._client() as client:
            for page in range(MAX_PAGES):
                query["start"] = page * PAGE_SIZE
                status, got, body = await self._get(client, url, params=query, headers=headers)
                if status == 304 and since is not None:
                    return Listing((), _int(got.get("last-modified-version")) or since, True)
                if status != 200:
                    self._refuse(status, what)
                here = _int(got.get("last-modified-version"))
                if version is not None and here is not None and here != version:
                    raise ZoteroReadFailed(
                        "the Zotero library changed while it was read; import again",
                        code="zotero_changed",
                    )
                version = here if version is None else version
                objects = _objects(body)
                out.extend(objects)
                total = _int(got.get("total-results"))
                if total is not None and total > MAX_PAGES * PAGE_SIZE:
                    raise RefusedError(
                        f"the Zotero listing has {total:,} objects: more than {MAX_PAGES} pages "
                        f"of {PAGE_SIZE}",
                        code="zotero_too_many_pages",
                    )
                more = 'rel="next"' in got.get("link", "")
                if total is not None:
                    more = len(out) < total and bool(objects)
                if not more:
                    return Listing(tuple(out), version)
        raise RefusedError(
            f"the Zotero listing goes on past {MAX_PAGES} pages of {PAGE_SIZE}",
            code="zotero_too_many_pages",
        )

    async def deleted(self, since: int) -> tuple[str, ...]:
        """The keys of the items deleted from the library after version ``since``."""
        async with self._client() as client:
            url = f"{self._base}/{self._library}/deleted"
            status, _got, body = await self._get(client, url, params={"since": since})
        if status != 200:
            self._refuse(status, "library")
        try:
            parsed = json.loads(body)
        except ValueError:
            raise ZoteroReadFailed(
                "Zotero's answer is not JSON", code="zotero_bad_answer"
            ) from None
        items = parsed.get("items") if isinstance(parsed, dict) else None
        return tuple(k for k in items if isinstance(k, str)) if isinstance(items, list) else ()

    async def download(self, key: str, target: Path) -> int:
        """The file of attachment ``key`` into ``target`` (written whole or not at all);
        its size. Zotero's redirect to its file storage is followed once (``https://``
        :data:`FILE_HOSTS`, without the key)."""
        if not (key.isascii() and key.isalnum() and len(key) <= 32):
            raise ZoteroReadFailed(f"{key[:40]!r} is not a Zotero key", code="zotero_bad_answer")
        async with self._client() as client:
            url = f"{self._base}/{self._library}/items/{key}/file"
            status, got, body = await self._get(client, url, limit=MAX_FILE_BYTES)
            if status in (301, 302, 303, 307, 308):
                where = httpx.URL(got.get("location", ""))
                port = where.port not in (None, 443)  # the exact host, on its own port
                if where.scheme != "https" or where.host not in FILE_HOSTS or port:
                    shown = (where.host or "nowhere") + (f":{where.port}" if port else "")
                    raise ZoteroReadFailed(
                        f"Zotero sent the file of {key} elsewhere ({shown}); not followed",
                        code="zotero_redirect",
                    )
                status, got, body = await self._get(
                    client, str(where), limit=MAX_FILE_BYTES, key=False
                )
        if status == 404:
            raise ZoteroReadFailed(
                f"zotero.org holds no file for attachment {key} (not synced, or kept in "
                "another storage such as WebDAV)",
                code="zotero_no_file",
            )
        if status != 200:
            self._refuse(status, f"file for attachment {key}")
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        part.write_bytes(body)
        part.replace(target)
        return len(body)


def _too_large(limit: int) -> ZoteroReadFailed:
    return ZoteroReadFailed(
        f"Zotero's answer is larger than {limit:,} bytes; not read", code="zotero_too_large"
    )


def _objects(body: bytes) -> list[object]:
    try:
        parsed = json.loads(body)
    except ValueError:
        raise ZoteroReadFailed("Zotero's answer is not JSON", code="zotero_bad_answer") from None
    if not isinstance(parsed, list):
        raise ZoteroReadFailed("Zotero's answer is not a list", code="zotero_bad_answer")
    return parsed
