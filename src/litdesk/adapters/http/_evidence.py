"""File-backed provider evidence cache under ``<data_dir>/cache/provider-evidence/``.

Each entry is one folder named by the evidence-key digest: ``entry.json`` (the key, status,
response digest and size, received time, ``fresh_until``, mode) and, for ``body`` policies,
``body.bin``. Policies come from :mod:`litdesk.core.trace` (OpenAlex bodies 14 days,
Semantic Scholar digest only, Crossref denied, …). Only complete HTTP 200 responses are
stored. Expiry stops a fresh hit; the entry stays as evidence (a later store replaces it).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Final

from litdesk._errors import LitdeskError
from litdesk.adapters.files import read_bounded
from litdesk.core.search import CompiledRequest
from litdesk.core.trace import (
    EvidenceEntry,
    EvidenceKey,
    cache_mode_for,
    entry_is_fresh,
    evidence_key,
)

from ._exchange import Exchange, sanitised_url

#: An evidence entry is a small JSON document.
_MAX_ENTRY_BYTES: Final = 1024 * 1024

__all__ = ["EvidenceCache"]


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


class EvidenceCache:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _folder(self, key: EvidenceKey) -> Path:
        return self.root / key.provider / key.digest()

    def store(
        self, request: CompiledRequest, exchange: Exchange, parser_id: str, parser_version: str
    ) -> EvidenceEntry | None:
        """Keep the exchange as policy allows; return the entry or None when not eligible."""
        policy = cache_mode_for(request.provider, request.operation)
        if policy.mode == "deny" or exchange.status != 200 or exchange.source != "network":
            return None
        key = evidence_key(request, parser_id, parser_version)
        fresh_until = exchange.received_at + policy.ttl if policy.ttl is not None else None
        entry = EvidenceEntry(
            key=key,
            status=exchange.status,
            response_digest=exchange.digest,
            response_bytes=len(exchange.body),
            received_at=exchange.received_at,
            fresh_until=fresh_until if policy.mode == "body" else None,
            mode=policy.mode,
        )
        folder = self._folder(key)
        folder.mkdir(parents=True, exist_ok=True)
        if policy.mode == "body":
            _write(folder / "body.bin", exchange.body)
        elif (folder / "body.bin").exists():
            (folder / "body.bin").unlink()
        meta = entry.to_dict() | {
            "url": exchange.url,
            "headers": exchange.headers,
            "reason": policy.reason,
        }
        _write(folder / "entry.json", json.dumps(meta, indent=2).encode("utf-8"))
        return entry

    def entry(
        self, request: CompiledRequest, parser_id: str, parser_version: str
    ) -> EvidenceEntry | None:
        """The stored evidence entry (fresh or expired), or None."""
        key = evidence_key(request, parser_id, parser_version)
        path = self._folder(key) / "entry.json"
        if not path.is_file():
            return None
        try:
            data = json.loads(read_bounded(path, limit=_MAX_ENTRY_BYTES).decode("utf-8"))
            fresh = data.get("fresh_until")
            return EvidenceEntry(
                key=key,
                status=int(data["status"]),
                response_digest=str(data["response_digest"]),
                response_bytes=int(data["response_bytes"]),
                received_at=datetime.fromisoformat(str(data["received_at"])),
                fresh_until=datetime.fromisoformat(fresh) if fresh else None,
                mode=data["mode"] if data["mode"] in {"body", "digest", "deny"} else "deny",
            )
        except (OSError, ValueError, KeyError, TypeError, RecursionError, LitdeskError):
            return None  # an unreadable entry is not a hit; the next store replaces it

    def fresh(
        self, request: CompiledRequest, parser_id: str, parser_version: str, now: datetime
    ) -> Exchange | None:
        """A fresh, digest-verified body for ``request`` as a cache exchange, or None."""
        policy = cache_mode_for(request.provider, request.operation)
        if policy.mode != "body":
            return None
        entry = self.entry(request, parser_id, parser_version)
        if entry is None or not entry_is_fresh(entry, now):
            return None
        body_path = self._folder(entry.key) / "body.bin"
        try:  # a regular file of the size recorded, never a FIFO planted in the cache
            body = read_bounded(body_path, limit=entry.response_bytes)
        except LitdeskError:
            return None
        if hashlib.sha256(body).hexdigest() != entry.response_digest:
            return None  # tampered or torn: not evidence of the original receipt
        return Exchange(
            provider=request.provider,
            method=request.method,
            url=sanitised_url(request),
            request_body=request.body,
            status=entry.status,
            headers={},
            body=body,
            received_at=entry.received_at,
            elapsed_ms=0.0,
            source="cache",
        )
