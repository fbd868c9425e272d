"""The service runtime through the real wiring: a loopback HTTP server (real sockets)
speaking Europe PMC's and OpenAlex's wire formats, the real transport built by the one
factory, the real store (SQLite, and PostgreSQL in a fresh schema). One provider request
is exactly one reservation in the store's allowance, for every kind of call."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from litdesk._errors import RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import allowance_owner, usage
from litdesk.core.trace import validate_request
from litdesk.services.app import open_app
from litdesk.services.providers import Providers as Runtime
from litdesk.services.search import make_definition

CC_BY = "https://creativecommons.org/licenses/by/4.0/"
JATS = (
    "<article xmlns:xlink='http://www.w3.org/1999/xlink'><front><article-meta>"
    '<article-id pub-id-type="pmcid">PMC123</article-id>'
    "<title-group><article-title>Malaria in the lab</article-title></title-group>"
    f'<permissions><license xlink:href="{CC_BY}"><license-p>CC BY</license-p></license>'
    "</permissions></article-meta></front><body><p>Hello world.</p></body></article>"
).encode()
EPMC_SEARCH = json.dumps(
    {
        "version": "6.9",
        "hitCount": 1,
        "resultList": {
            "result": [
                {
                    "id": "111",
                    "source": "MED",
                    "pmid": "111",
                    "title": "Malaria A",
                    "pubYear": "2020",
                }
            ]
        },
    }
).encode()


def _work(work: str, refs: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/{work}",
        "doi": "https://doi.org/10.1000/abc" if work == "W7" else None,
        "title": f"Work {work}",
        "publication_year": 2021,
        "referenced_works": [f"https://openalex.org/{w}" for w in refs],
    }


class Providers:
    """One loopback server answering Europe PMC and OpenAlex paths; counts requests."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                outer.seen.append(path)
                status, body = outer.answer(path)
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, path: str) -> tuple[int, bytes]:
        if path.endswith("/fullTextXML"):
            return 200, JATS
        if path == "/europepmc/webservices/rest/search":
            return 200, EPMC_SEARCH
        if path == "/works/W1":
            return 200, json.dumps(_work("W1", ("W2", "W3"))).encode()
        if path == "/works":
            results = [_work("W2"), _work("W3")]
            return 200, json.dumps({"meta": {"count": 2}, "results": results}).encode()
        if path.startswith("/works/"):  # an exact DOI lookup
            return 200, json.dumps(_work("W7")).encode()
        return 404, b'{"error":"no route"}'

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def providers() -> Iterator[Providers]:
    server = Providers()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def settings(tmp_settings: Settings) -> Settings:
    return tmp_settings.model_copy(update={"openalex_api_key": SecretStr("oa-runtime-key-1")})


def _today() -> Any:
    return datetime.now(UTC).date()


def _used(rt: Runtime, owner: str = "local") -> dict[str, int]:
    """Calls reserved today for ``owner`` (kept under the SHA-256 of a team account's id)."""
    key = allowance_owner(owner)
    return {p: usage(rt.store, p, _today()).get(key, 0) for p in ("europepmc", "openalex")}


@asynccontextmanager
async def _open(settings: Settings, providers: Providers, **kw: Any) -> AsyncIterator[Runtime]:
    """The app's provider use cases over loopback providers."""
    bases = {"europepmc": providers.base, "openalex": providers.base}
    # loopback providers answer at once: pacing (Europe PMC 0.1 s, OpenAlex between
    # requests) is the pacer's tests' subject (tests/adapters/http), not these
    unpaced = dict.fromkeys(bases, 0.0)
    async with open_app(settings, base_urls=bases, pacing=unpaced, **kw) as app:
        yield app.providers


def _check_one_reservation_per_request(settings: Settings, providers: Providers) -> None:
    calls = {
        "search page": lambda rt: rt.search(
            validate_request("malaria", ["europepmc"]), use_cache=False
        ),
        "exact lookup": lambda rt: rt.search(
            validate_request("10.1000/xyz", ["openalex"]), use_cache=False
        ),
        "fused search": lambda rt: rt.fused_search(
            make_definition("malaria", providers=["europepmc"]), use_cache=False
        ),
        "full text": lambda rt: rt.fulltext("PMC123", refresh=True),
        "citations": lambda rt: rt.citations("references", ["W1"]),
        "adoption": lambda rt: rt.adoption_lookup("doi", "10.1000/abc"),
    }
    expected = {  # requests each call sends (the citations: seed lookup + one works page)
        "search page": {"europepmc": 1, "openalex": 0},
        "exact lookup": {"europepmc": 0, "openalex": 1},
        "fused search": {"europepmc": 1, "openalex": 0},
        "full text": {"europepmc": 1, "openalex": 0},
        "citations": {"europepmc": 0, "openalex": 2},
        "adoption": {"europepmc": 0, "openalex": 1},
    }

    async def go() -> None:
        async with _open(settings, providers) as rt:
            for name, call in calls.items():
                before, sent = _used(rt), len(providers.seen)
                result = await call(rt)
                assert result is not None, name
                after = _used(rt)
                delta = {p: after[p] - before[p] for p in after}
                assert delta == expected[name], name
                assert sum(delta.values()) == len(providers.seen) - sent, name

    asyncio.run(go())


def test_one_request_is_one_reservation_for_every_call_kind(
    settings: Settings, providers: Providers
) -> None:
    _check_one_reservation_per_request(settings, providers)


@pytest.mark.postgres
def test_one_request_is_one_reservation_on_postgres(
    settings: Settings, providers: Providers, pg_schema: str
) -> None:
    _check_one_reservation_per_request(
        settings.model_copy(update={"database_url": pg_schema}), providers
    )


def test_full_text_allowance_is_the_configured_number(
    settings: Settings, providers: Providers
) -> None:
    """The defect: a full-text read counted twice, so the limit came at half the number."""
    limited = settings.model_copy(update={"owner_daily_requests": 4})

    async def go() -> list[object]:
        out: list[object] = []
        async with _open(limited, providers) as rt:
            for _ in range(5):
                try:
                    out.append((await rt.fulltext("PMC123", refresh=True)).cached)
                except RefusedError as exc:
                    out.append(exc.code)
        return out

    assert asyncio.run(go()) == [False, False, False, False, "transport_refused"]
    assert len(providers.seen) == 4


def test_owner_is_a_parameter_of_every_metered_call(
    settings: Settings, providers: Providers
) -> None:
    async def go() -> tuple[dict[str, int], dict[str, int], set[str]]:
        async with _open(settings, providers) as rt:
            await rt.fulltext("PMC123", refresh=True, owner="alice")
            await rt.citations("references", ["W1"], owner="bob")
            await rt.fused_search(make_definition("malaria"), owner="alice", use_cache=False)
            owners = {o for p in ("europepmc", "openalex") for o in usage(rt.store, p, _today())}
            return _used(rt, "alice"), _used(rt, "bob"), owners

    alice, bob, owners = asyncio.run(go())
    assert alice == {"europepmc": 2, "openalex": 0}
    assert bob == {"europepmc": 0, "openalex": 2}
    assert owners and not owners & {"alice", "bob"}  # kept as SHA-256 of the account ids


def test_concurrent_tasks_and_worker_threads_share_one_runtime(
    settings: Settings, providers: Providers
) -> None:
    """A server's tasks and its worker threads (PDF indexing) use one runtime safely."""

    async def go() -> tuple[list[object], list[object], dict[str, int]]:
        async with _open(settings, providers) as rt:
            reads = await asyncio.gather(*(rt.fulltext("PMC123", refresh=True) for _ in range(8)))
            lookup = rt.thread_lookup()
            found = await asyncio.gather(
                *(asyncio.to_thread(lookup, "doi", "10.1000/abc") for _ in range(4))
            )
            return list(reads), list(found), _used(rt)

    reads, found, used = asyncio.run(go())
    assert len(reads) == 8 and all(getattr(p, "doi", None) == "10.1000/abc" for p in found)
    assert used == {"europepmc": 8, "openalex": 4} and len(providers.seen) == 12


def test_thread_lookup_refuses_the_runtime_loop(settings: Settings, providers: Providers) -> None:
    async def go() -> None:
        async with _open(settings, providers) as rt:
            with pytest.raises(RefusedError, match="own loop"):
                rt.thread_lookup()("doi", "10.1000/abc")

    asyncio.run(go())
    assert providers.seen == []


def test_record_then_replay_sends_and_reserves_nothing(
    settings: Settings, providers: Providers, tmp_path: Any
) -> None:
    cassette = tmp_path / "cassette"

    async def record() -> dict[str, int]:
        async with _open(settings, providers, record=cassette) as rt:
            await rt.fulltext("PMC123", refresh=True)
            return _used(rt)

    async def replay() -> tuple[str, dict[str, int]]:
        async with open_app(settings, replay=cassette) as rt_app:  # no loopback: no network
            rt = rt_app.providers
            result = await rt.fulltext("PMC123", refresh=True)
            return result.fulltext.title, _used(rt)

    assert asyncio.run(record()) == {"europepmc": 1, "openalex": 0}
    title, used = asyncio.run(replay())
    assert title == "Malaria in the lab"
    assert used == {"europepmc": 1, "openalex": 0} and len(providers.seen) == 1
