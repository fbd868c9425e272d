"""Test kit: a real loopback HTTP server (threads, real sockets), compiled requests per
provider and a tiny parser."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from litdesk._errors import ExternalError
from litdesk.core.search import PROVIDERS, CompiledRequest, ProviderPage

SECRETS = {
    "openalex_api_key": "OAXSECRET-1111-aaaa",
    "semantic_scholar_api_key": "S2SECRET-2222-bbbb",
    "ncbi_api_key": "NCBISECRET-3333-cccc",
    "crossref_plus_token": "XREFSECRET-4444-dddd",
}


@dataclass
class Route:
    status: int = 200
    body: bytes = b"{}"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # before the status line
    drip: float = 0.0  # between body chunks
    chunked: bool = False  # no Content-Length, chunked encoding
    declared_length: int | None = None  # lie about Content-Length
    close_early: bool = False


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class LoopbackServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.default = Route(status=404, body=b'{"error":"no route"}')
        self.seen: list[Seen] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.seen.append(Seen(self.command, self.path, dict(self.headers), body))
                path = self.path.split("?", 1)[0]
                route = outer.routes.get(path, outer.default)
                if route.delay:
                    time.sleep(route.delay)
                try:
                    self.send_response(route.status)
                    for k, v in route.headers.items():
                        self.send_header(k, v)
                    if route.chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                    else:
                        n = (
                            route.declared_length
                            if route.declared_length is not None
                            else len(route.body)
                        )
                        self.send_header("Content-Length", str(n))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    step = 4096
                    for i in range(0, len(route.body), step):
                        part = route.body[i : i + step]
                        if route.chunked:
                            self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                        else:
                            self.wfile.write(part)
                        self.wfile.flush()
                        if route.drip:
                            time.sleep(route.drip)
                        if route.close_early and i >= step:
                            return
                    if route.chunked:
                        self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    return

            do_GET = _serve
            do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


TARGETS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "europepmc": (
        "https://www.ebi.ac.uk/europepmc/webservices/rest/search",
        (("query", "cancer"), ("format", "json")),
    ),
    "openalex": ("https://api.openalex.org/works", (("search", "llm chemistry"),)),
    "semanticscholar": (
        "https://api.semanticscholar.org/graph/v1/paper/search",
        (("query", "turing"), ("fields", "title")),
    ),
    "crossref": ("https://api.crossref.org/works", (("query", "ecology"), ("rows", "2"))),
    "pubmed": (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi",
        (("db", "pubmed"), ("term", "biopython")),
    ),
    "arxiv": ("https://export.arxiv.org/api/query", (("search_query", "all:testing"),)),
}


def compiled(
    provider: str, *, operation: str = "search", url: str | None = None, params=None
) -> CompiledRequest:
    base, default_params = TARGETS[provider]
    return CompiledRequest(
        provider=provider,  # type: ignore[arg-type]
        operation=operation,  # type: ignore[arg-type]
        method="GET",
        url=url or base,
        params=tuple(params) if params is not None else default_params,
        executed_query=dict(default_params).get("query", "q"),
        lane=provider,
    )


class FakeParseError(ExternalError):
    default_code = "parse_error"


def fake_parse(provider: str, request: CompiledRequest, status: int, body: bytes) -> ProviderPage:
    """Accepts JSON objects and XML documents; anything else is a parse error."""
    text = body.decode("utf-8", "replace").lstrip("\ufeff").lstrip()
    if text.startswith("<"):
        return ProviderPage(papers=[], total=text.count("<entry>") + text.count("<Id>"))
    try:
        data = json.loads(text)
    except ValueError:
        raise FakeParseError(f"{provider}: body is not JSON") from None
    if not isinstance(data, dict):
        raise FakeParseError(f"{provider}: body is not a JSON object")
    return ProviderPage(papers=[], total=len(data))


def fake_error_message(provider: str, status: int, body: bytes) -> str:
    return body.decode("utf-8", "replace")[:200]


ALL = PROVIDERS
