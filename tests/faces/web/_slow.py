"""Live-search tests: loopback HTTP servers speaking Europe PMC's and OpenAlex's wire
format (Europe PMC answers at once; OpenAlex waits behind a gate the test opens), and a
web app whose desk sends provider requests to them (the transport's loopback
``base_urls`` hook) instead of answering from a cassette."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import SecretStr
from tests.faces.web._hosting import Hosting
from tests.faces.web._oa_citations import oa_work
from tests.faces.web._server import Running, epmc_body, epmc_record

from litdesk.faces.web import create_app
from litdesk.services.app import open_app

GATE_SECONDS = 60.0


@dataclass
class Provider:
    """One loopback provider: its body, an optional gate, and the requests it saw."""

    body: bytes
    gate: threading.Event | None = None
    seen: list[str] = field(default_factory=list)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                provider.seen.append(self.path)
                if provider.gate is not None:
                    provider.gate.wait(GATE_SECONDS)
                try:
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(provider.body)))
                    self.end_headers()
                    self.wfile.write(provider.body)
                except OSError:
                    pass  # the client went away (a cancelled lane)

            def log_message(self, *args: Any) -> None:
                return

        return Handler


@contextmanager
def provider_server(provider: Provider) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), provider.handler())
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        if provider.gate is not None:
            provider.gate.set()
        server.shutdown()
        server.server_close()


def openalex_body() -> bytes:
    works = [oa_work("W900", title="Slow lane work W900"), oa_work("W901", title="Another W901")]
    return json.dumps({"meta": {"count": 2, "page": 1, "per_page": 50}, "results": works}).encode()


@dataclass
class Slow:
    running: Running
    epmc: Provider
    openalex: Provider


@contextmanager
def slow_server(settings: Any, tmp_path: Any, hosting: Hosting | None = None) -> Iterator[Slow]:
    """An app whose Europe PMC lane answers at once and whose OpenAlex lane waits until
    ``openalex.gate`` is set (a made-up OpenAlex key: it goes to loopback only); in-process
    unless ``hosting`` says otherwise (a browser test's: the session server)."""
    hosting = hosting or Hosting.in_process()
    settings = settings.model_copy(update={"openalex_api_key": SecretStr("k-test-123456")})
    epmc = Provider(epmc_body([epmc_record(i) for i in range(1, 4)]))
    oax = Provider(openalex_body(), gate=threading.Event())
    with provider_server(epmc) as epmc_url, provider_server(oax) as oax_url:
        app = create_app(settings, host=hosting.host, port=hosting.port)
        bases = {"europepmc": epmc_url, "openalex": oax_url}

        @asynccontextmanager
        async def lifespan(app_: Any) -> AsyncIterator[None]:
            async with open_app(settings, base_urls=bases) as opened:
                app_.state.app = opened  # no job runners: the searches only
                yield

        app.router.lifespan_context = lifespan
        with hosting.serve(app) as served:
            running = Running(
                hosting.base, hosting.host, hosting.port, tmp_path, tmp_path / "data", served
            )
            yield Slow(running, epmc, oax)
