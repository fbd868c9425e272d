"""Record and replay provider exchanges (``litdesk search --record DIR`` / ``--replay DIR``).

Format (version 1), one folder:

* ``index.json`` — ``{"format": "litdesk-cassette", "version": 1, "exchanges": [{"key",
  "file", "provider", "method", "url", "status", "sha256"}, ...]}`` in recording order.
* ``NNNN-<provider>.json``, one per exchange — ``{"format": "litdesk-exchange",
  "version": 1, "key", "provider", "recorded_at", "request": {"method", "url", "params",
  "body"}, "response": {"status", "headers", "body_text" | "body_base64", "sha256",
  "bytes", "redacted"}, "elapsed_ms"}``.

``url`` is the compiled URL with the compiled parameters only: credentials, ``mailto``,
``email`` and ``tool`` are never written. Only selected response headers are kept (content
type/length, Retry-After, Crossref's rate headers, Date, ETag, Last-Modified). A body that
echoes a credential is stored with the value replaced by ``[REDACTED]`` (``redacted:
true``; ``sha256`` is then the digest of the stored body). ``key`` is the sha256 of the
canonical JSON of method, URL and request body: the lookup key in replay.
Replay reads every exchange, checks each body against its digest (a mismatch is an
:class:`~litdesk.IntegrityError`) and answers a request it does not hold with
:class:`CassetteMiss` — nothing is ever sent.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from litdesk._errors import InputError, IntegrityError
from litdesk.adapters.files import FileRefused, read_bounded
from litdesk.core.trace import canonical_json

from ._errors import CassetteMiss
from ._exchange import KEPT_HEADERS, Exchange
from ._secrets import Redactor

__all__ = ["CASSETTE_FORMAT", "Cassette", "CassetteRecorder", "exchange_key"]

CASSETTE_FORMAT: Final = "litdesk-cassette"
EXCHANGE_FORMAT: Final = "litdesk-exchange"
VERSION: Final = 1
_MAX_FILE_BYTES: Final = 200_000_000


def exchange_key(method: str, url: str, body: str | None) -> str:
    payload = {"method": method.upper(), "url": url, "body": body}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


class CassetteRecorder:
    """Writes each exchange to ``folder`` as it happens (credentials removed)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._index_path = self.folder / "index.json"
        self._entries: list[dict[str, Any]] = []
        #: exchanges written by this recorder, per provider (not those already there)
        self.written: dict[str, int] = {}
        if self._index_path.exists():
            index = _read_json(self._index_path)
            if index.get("format") != CASSETTE_FORMAT:
                raise InputError(f"{self.folder} holds something other than a litdesk cassette")
            self._entries = list(index.get("exchanges", []))

    def record(self, exchange: Exchange, redactor: Redactor) -> None:
        url = redactor.redact(exchange.url)
        req_body = redactor.redact(exchange.request_body) if exchange.request_body else None
        body, redacted = redactor.redact_bytes(exchange.body)
        key = exchange_key(exchange.method, url, req_body)
        response: dict[str, Any] = {
            "status": exchange.status,
            "headers": {
                k: redactor.redact(v) for k, v in exchange.headers.items() if k in KEPT_HEADERS
            },
            "sha256": hashlib.sha256(body).hexdigest(),
            "bytes": len(body),
            "redacted": redacted,
        }
        try:
            response["body_text"] = body.decode("utf-8")
        except UnicodeDecodeError:
            response["body_base64"] = base64.b64encode(body).decode("ascii")
        from httpx import URL

        params = [[k, v] for k, v in URL(url).params.multi_items()]
        name = f"{len(self._entries) + 1:04d}-{exchange.provider}.json"
        document = {
            "format": EXCHANGE_FORMAT,
            "version": VERSION,
            "key": key,
            "provider": exchange.provider,
            "recorded_at": exchange.received_at.isoformat(),
            "request": {
                "method": exchange.method,
                "url": url,
                "params": params,
                "body": req_body,
            },
            "response": response,
            "elapsed_ms": exchange.elapsed_ms,
        }
        text = json.dumps(document, ensure_ascii=False, indent=2)
        if redactor.contains(text):  # defence in depth: never write a credential
            raise IntegrityError("refusing to write a cassette entry that holds a credential")
        _atomic_write(self.folder / name, text)
        self._entries.append(
            {
                "key": key,
                "file": name,
                "provider": exchange.provider,
                "method": exchange.method,
                "url": url,
                "status": exchange.status,
                "sha256": response["sha256"],
            }
        )
        index = {"format": CASSETTE_FORMAT, "version": VERSION, "exchanges": self._entries}
        _atomic_write(self._index_path, json.dumps(index, ensure_ascii=False, indent=2))
        self.written[exchange.provider] = self.written.get(exchange.provider, 0) + 1


def _read_json(path: Path) -> dict[str, Any]:
    try:
        raw = read_bounded(path, limit=_MAX_FILE_BYTES, label="the cassette file")
    except FileRefused as exc:
        raise IntegrityError(f"cannot read cassette file {path.name}: {exc.message}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise IntegrityError(
            f"cannot read cassette file {path.name}: {type(exc).__name__}"
        ) from None
    if not isinstance(data, dict):
        raise IntegrityError(f"cassette file {path.name} is not a JSON object")
    return data


class Cassette:
    """Answers requests from a recorded folder, with no network."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        index_path = self.folder / "index.json"
        if not index_path.is_file():
            raise InputError(f"{self.folder} is not a cassette (no index.json)")
        index = _read_json(index_path)
        if index.get("format") != CASSETTE_FORMAT or index.get("version") != VERSION:
            raise IntegrityError(f"{index_path} is not a version {VERSION} litdesk cassette")
        self._by_key: dict[str, Exchange] = {}
        entries = index.get("exchanges")
        if not isinstance(entries, list):
            raise IntegrityError("the cassette index has no exchanges list")
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                raise IntegrityError("a cassette index entry is malformed")
            name = entry["file"]
            if "/" in name or "\\" in name or name.startswith("."):
                raise IntegrityError(f"cassette entry file name {name[:60]!r} is refused")
            exchange, key = self._load(self.folder / name)
            self._by_key.setdefault(key, exchange)  # first recording wins

    def __len__(self) -> int:
        return len(self._by_key)

    @staticmethod
    def _load(path: Path) -> tuple[Exchange, str]:
        doc = _read_json(path)
        if doc.get("format") != EXCHANGE_FORMAT or doc.get("version") != VERSION:
            raise IntegrityError(f"{path.name} is not a version {VERSION} litdesk exchange")
        try:
            req = doc["request"]
            resp = doc["response"]
            if "body_text" in resp:
                body = str(resp["body_text"]).encode("utf-8")
            else:
                body = base64.b64decode(str(resp["body_base64"]), validate=True)
            status = int(resp["status"])
            headers = {str(k).lower(): str(v) for k, v in dict(resp.get("headers", {})).items()}
            method = str(req["method"]).upper()
            url = str(req["url"])
            req_body = req.get("body")
            recorded = datetime.fromisoformat(str(doc["recorded_at"]))
            digest = str(resp["sha256"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IntegrityError(f"{path.name} is malformed ({type(exc).__name__})") from None
        if hashlib.sha256(body).hexdigest() != digest:
            raise IntegrityError(f"{path.name}: the body does not match its sha256 digest")
        if not 100 <= status <= 599:
            raise IntegrityError(f"{path.name}: HTTP status {status} is impossible")
        exchange = Exchange(
            provider=str(doc.get("provider", "")),
            method=method,
            url=url,
            request_body=req_body if isinstance(req_body, str) else None,
            status=status,
            headers={k: v for k, v in headers.items() if k in KEPT_HEADERS},
            body=body,
            received_at=recorded,
            elapsed_ms=float(doc.get("elapsed_ms") or 0.0),
            source="replay",
        )
        return exchange, exchange_key(method, url, exchange.request_body)

    def lookup(self, provider: str, method: str, url: str, body: str | None) -> Exchange:
        found = self._by_key.get(exchange_key(method, url, body))
        if found is None or found.provider != provider:
            raise CassetteMiss(
                f"replay: the cassette {self.folder} holds no {method} {url[:300]}; "
                "record it first with --record",
                provider=provider,
            )
        return found
