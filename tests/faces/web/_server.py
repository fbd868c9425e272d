"""Helpers of the web tests: a real uvicorn server on a loopback port; cassettes written
here (small Europe PMC/OpenAlex bodies of our own, some carrying
XSS payloads)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from tests.faces.web._hosting import TransportFactory, client_for, free_port

from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.services.search import make_definition, plan_search

__all__ = [
    "SHOWN_JOURNAL",
    "SHOWN_TITLE",
    "XSS_ABSTRACT",
    "XSS_AUTHOR",
    "XSS_JOURNAL",
    "XSS_TITLE",
    "Running",
    "csrf_from",
    "epmc_body",
    "epmc_record",
    "free_port",
    "serve_app",
    "write_cassette",
    "xss_records",
]

# provider markup is stripped by the parsers; escaped markup decodes to literal text, which
# the pages must show as text (never as elements)
XSS_TITLE = "&lt;img src=x onerror=alert(1)&gt; Tumour &lt;script&gt;alert(5)&lt;/script&gt; growth"
SHOWN_TITLE = "<img src=x onerror=alert(1)> Tumour <script>alert(5)</script> growth"
XSS_AUTHOR = "&lt;img src=x onerror=alert(2)&gt;"
XSS_JOURNAL = "&lt;svg onload=alert(3)&gt;Journal"
SHOWN_JOURNAL = "<svg onload=alert(3)>Journal"
XSS_ABSTRACT = (
    "Background: tumour growth was measured in mice. "
    "We report &lt;b onmouseover=alert(6)&gt;that&lt;/b&gt; growth slowed. javascript:alert(4) appears as text."
)


def epmc_record(i: int, **over: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": str(40_000_000 + i),
        "source": "MED",
        "pmid": str(40_000_000 + i),
        "doi": f"10.5555/litdesk.{i}",
        "title": f"Tumour growth study number {i}",
        "authorString": f"Author{i} A, Second B.",
        "journalTitle": "Journal of Tests",
        "pubYear": "2024",
        "abstractText": f"Abstract {i}: tumour growth was measured and growth slowed in group {i}.",
        "isOpenAccess": "N",
        "citedByCount": i,
    }
    rec.update(over)
    return rec


def epmc_body(records: list[dict[str, Any]], *, next_cursor: str | None = None) -> bytes:
    doc: dict[str, Any] = {
        "version": "6.9",
        "hitCount": len(records) + 100,
        "request": {},
        "resultList": {"result": records},
    }
    if next_cursor:
        doc["nextCursorMark"] = next_cursor
    return json.dumps(doc).encode()


def xss_records() -> list[dict[str, Any]]:
    return [
        epmc_record(
            1,
            title=XSS_TITLE,
            authorString=XSS_AUTHOR + ", Smith J.",
            journalTitle=XSS_JOURNAL,
            abstractText=XSS_ABSTRACT,
        ),
        *(epmc_record(i) for i in range(2, 8)),
    ]


def write_cassette(
    folder: Path,
    query: str,
    body: bytes,
    *,
    mode: str = "keyword",
    status: int = 200,
    cursor: str | None = None,
    answers: dict[str, tuple[int, bytes]] | None = None,
    headers: dict[str, str] | None = None,
    **kw: Any,
) -> None:
    """Record ``body`` as the answer of every lane the search would plan (``answers``:
    another status and body for some lanes; ``headers``: more answer headers, such as
    ``retry-after``)."""
    recorder = CassetteRecorder(folder)
    definition = make_definition(query, mode=mode, **kw)
    for lane in plan_search(definition, cursor).lanes:
        req = lane.request
        assert req is not None
        answer = answers.get(lane.lane) if answers else None
        lane_status, lane_body = answer if answer is not None else (status, body)
        recorder.record(
            Exchange(
                provider=req.provider,
                method=req.method,
                url=sanitised_url(req),
                request_body=req.body,
                status=lane_status,
                headers={"content-type": "application/json", **(headers or {})},
                body=lane_body,
                received_at=datetime(2026, 12, 1, tzinfo=UTC),
            ),
            Redactor(),
        )


@dataclass
class Running:
    base: str
    host: str
    port: int
    cassette: Path
    data_dir: Path
    #: the in-process app's transports (None: the app answers on a real socket)
    transport: TransportFactory | None = None

    def client(self, **kw: Any) -> httpx.Client:
        return client_for(self.base, self.transport, 30, **kw)

    @contextmanager
    def writer(self) -> Iterator[httpx.Client]:
        """A client that behaves like the page: exact Origin, CSRF cookie + header."""
        with self.client(headers={"origin": self.base}) as c:
            c.get("/studies")
            token = c.cookies.get("ld_csrf")
            assert token
            c.headers["x-csrf-token"] = token
            yield c


def serve_app(app: Any, port: int) -> Iterator[None]:
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def csrf_from(html: str) -> str:
    found = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert found
    return found.group(1)
