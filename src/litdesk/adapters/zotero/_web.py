"""Writes to a Zotero library through the Web API v3 (``api.zotero.org``) or Zotero's local
API (``localhost:23119``, the same wire format; writes from Zotero 10 on).

Rules: the API key goes only to those two hosts, in the ``Zotero-API-Key`` header (never in
a URL), and never into a log line, a trace or an error message; redirects are not
followed; each response is read up to :data:`MAX_RESPONSE_BYTES`; every request has a
timeout. A write sends at most :data:`MAX_BATCH` objects (the API's limit);
``If-Unmodified-Since-Version`` guards each object through its ``version`` (the Web API's
multi-object form of the header: a newer change in Zotero fails that object with 412, the
others of the batch are written; :attr:`WriteOutcome.conflicts` names the refused ones, a
412 of the whole request is raised as :class:`ZoteroConflict`). ``Backoff`` (seconds) is
waited out before the next request; ``429``/``503`` with ``Retry-After`` is retried after
that wait, at most :data:`MAX_RETRIES` times.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import httpx

from litdesk._errors import ExternalError, RefusedError

__all__ = [
    "LOCAL_API",
    "MAX_BATCH",
    "MAX_RESPONSE_BYTES",
    "WEB_API",
    "WriteOutcome",
    "ZoteroConflict",
    "ZoteroWebClient",
    "ZoteroWriteFailed",
]

WEB_API: Final = "https://api.zotero.org"
LOCAL_API: Final = "http://localhost:23119/api"
_ALLOWED: Final = frozenset({("https", "api.zotero.org", 443), ("http", "localhost", 23119)})
MAX_BATCH: Final = 50
MAX_RESPONSE_BYTES: Final = 4 * 1024 * 1024
MAX_RETRIES: Final = 3
MAX_WAIT_SECONDS: Final = 300.0
TIMEOUT: Final = httpx.Timeout(30.0, connect=10.0)

Sleep = Callable[[float], Awaitable[None]]
JsonObject = dict[str, object]


class ZoteroConflict(RefusedError):
    """Zotero has a newer version of the named items: nothing was written over them."""

    default_code = "zotero_conflict"


class ZoteroWriteFailed(ExternalError):
    """Zotero refused or failed a write (status and Zotero's message, never the key)."""

    default_code = "zotero_write_failed"


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """One batch written: ``{index in the batch: object}`` of the objects written (with
    their new ``key`` and ``version``), and the library's version after the write."""

    successful: dict[int, JsonObject] = field(default_factory=dict)
    unchanged: dict[int, str] = field(default_factory=dict)
    library_version: int | None = None
    #: keys of objects Zotero has a newer version of (412 in ``failed``): not written;
    #: the others of the batch were (the caller records them, then refuses)
    conflicts: tuple[str, ...] = ()

    def conflict(self) -> ZoteroConflict:
        """The refusal naming the conflicting items."""
        return ZoteroConflict(
            "Zotero has a newer version of "
            + ", ".join(self.conflicts[:10])
            + "; import again, then push",
            items=list(self.conflicts),
        )


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return min(max(seconds, 0.0), MAX_WAIT_SECONDS) if math.isfinite(seconds) else None


def allowed_base(base: str, what: str) -> httpx.URL:
    """``base`` as a URL when it is one of the exact API bases (scheme, host and port);
    refused otherwise (``what``: "reads" or "writes", for the message)."""
    url = httpx.URL(base)
    if (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80)) not in _ALLOWED:
        raise RefusedError(
            f"Zotero {what} go only to api.zotero.org or localhost:23119", code="zotero_host"
        )
    return url


class ZoteroWebClient:
    """Writes to one library (``users/<id>`` or ``groups/<id>``) of one API base."""

    def __init__(
        self,
        *,
        library: str,
        api_key: str | None,
        base: str = WEB_API,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        allowed_base(base, "writes")
        self._base = base.rstrip("/")
        self._library = library
        self._headers = {"Zotero-API-Version": "3", "Content-Type": "application/json"}
        if api_key:
            self._headers["Zotero-API-Key"] = api_key
        self._transport = transport
        self._sleep = sleep
        self._backoff = 0.0

    def __repr__(self) -> str:  # the key never shows
        return f"ZoteroWebClient(base={self._base!r}, library={self._library!r})"

    async def write(self, objects: Sequence[Mapping[str, object]]) -> WriteOutcome:
        """Create or update ``objects`` (at most :data:`MAX_BATCH`; an object with ``key``
        and ``version`` updates that item only if Zotero's version is still ``version``)."""
        if not objects:
            return WriteOutcome()
        if len(objects) > MAX_BATCH:
            raise RefusedError(f"at most {MAX_BATCH} objects per Zotero write", code="zotero_batch")
        body = json.dumps(list(objects)).encode("utf-8")
        async with httpx.AsyncClient(
            transport=self._transport, timeout=TIMEOUT, follow_redirects=False
        ) as client:
            for attempt in range(MAX_RETRIES + 1):
                if self._backoff:
                    await self._sleep(self._backoff)
                    self._backoff = 0.0
                status, headers, data = await self._post(client, body)
                self._backoff = _seconds(headers.get("backoff")) or 0.0
                if status in (429, 503) and attempt < MAX_RETRIES:
                    wait = _seconds(headers.get("retry-after"))
                    await self._sleep(wait if wait is not None else 2.0 ** (attempt + 1))
                    continue
                return self._outcome(status, headers, data, objects)
        raise ZoteroWriteFailed("Zotero kept asking to retry later", code="zotero_busy")

    async def _post(
        self, client: httpx.AsyncClient, body: bytes
    ) -> tuple[int, Mapping[str, str], bytes]:
        url = f"{self._base}/{self._library}/items"
        try:
            async with client.stream("POST", url, content=body, headers=self._headers) as resp:
                chunks: list[bytes] = []
                size = 0
                async for chunk in resp.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise ZoteroWriteFailed(
                            f"Zotero's answer is larger than {MAX_RESPONSE_BYTES} bytes",
                            code="zotero_too_large",
                        )
                    chunks.append(chunk)
                return resp.status_code, resp.headers, b"".join(chunks)
        except httpx.TimeoutException:
            raise ZoteroWriteFailed(
                "Zotero did not answer in time", code="zotero_timeout"
            ) from None
        except httpx.TransportError as exc:
            raise ZoteroWriteFailed(
                f"Zotero could not be reached ({type(exc).__name__})", code="zotero_unreachable"
            ) from None

    def _outcome(
        self,
        status: int,
        headers: Mapping[str, str],
        data: bytes,
        objects: Sequence[Mapping[str, object]],
    ) -> WriteOutcome:
        keys = [str(o.get("key", "")) for o in objects if o.get("key")]
        if status == 412:
            raise ZoteroConflict(
                "Zotero has a newer version of "
                + (", ".join(keys[:10]) or "the library")
                + "; import again, then push",
                items=keys,
            )
        if 300 <= status < 400:
            raise ZoteroWriteFailed(
                f"Zotero answered with a redirect ({status}); not followed", code="zotero_redirect"
            )
        if status == 403:
            raise ZoteroWriteFailed(
                "Zotero refused the write (403): the key may lack write access to "
                f"{self._library}, or the local API is read-only (before Zotero 10)",
                code="zotero_forbidden",
            )
        if status != 200:
            raise ZoteroWriteFailed(
                f"Zotero answered {status}", code="zotero_status", status=status
            )
        try:
            parsed = json.loads(data)
        except ValueError:
            raise ZoteroWriteFailed(
                "Zotero's answer is not JSON", code="zotero_bad_answer"
            ) from None
        if not isinstance(parsed, dict):
            raise ZoteroWriteFailed("Zotero's answer is not an object", code="zotero_bad_answer")
        failed = parsed.get("failed") or {}
        conflicts: list[str] = []
        if isinstance(failed, dict) and failed:
            messages = []
            for index, info in failed.items():
                if not isinstance(info, dict):
                    continue
                key = str(info.get("key") or _key_at(objects, index))
                if info.get("code") == 412:
                    conflicts.append(key)
                else:
                    messages.append(f"{key or index}: {str(info.get('message', ''))[:200]}")
            if messages:
                raise ZoteroWriteFailed(
                    "Zotero refused " + "; ".join(messages[:5]), code="zotero_refused"
                )
        successful: dict[int, JsonObject] = {}
        raw = parsed.get("successful") or {}
        if isinstance(raw, dict):
            for index, obj in raw.items():
                if isinstance(obj, dict) and str(index).isdigit():
                    successful[int(index)] = obj
        unchanged: dict[int, str] = {}
        raw_unchanged = parsed.get("unchanged") or {}
        if isinstance(raw_unchanged, dict):
            for index, key in raw_unchanged.items():
                if str(index).isdigit():
                    unchanged[int(index)] = str(key)
        version = headers.get("last-modified-version")
        return WriteOutcome(
            successful,
            unchanged,
            int(version) if version and version.isdigit() else None,
            tuple(conflicts),
        )


def _key_at(objects: Sequence[Mapping[str, object]], index: object) -> str:
    try:
        return str(objects[int(str(index))].get("key", ""))
    except (ValueError, IndexError):
        return ""
