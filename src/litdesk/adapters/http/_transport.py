"""The one transport seam to the six providers (httpx, async).

Per request: the compiled URL must be ``https://`` on the provider's exact host (no IP
literal, user info, port, fragment or query in the URL itself, at most 4,094 bytes with its
parameters); redirects are refused; the body is capped while streaming (Content-Length and
actual bytes); connect/read timeouts and an overall deadline apply; every network call is
metered and paced. Credentials are added only here, only for their own provider, and are
redacted from every message and log line. A loopback ``base_urls`` mapping is a test hook
(constructor only — there is no setting for it).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import ipaddress
import logging
import ssl
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Final, Protocol
from urllib.parse import urlsplit

import httpx

from litdesk import __version__
from litdesk._errors import LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.providers import ADAPTERS, JSON_ACCEPT, OPENALEX_KEY_MESSAGE
from litdesk.core.search import (
    HOSTS,
    CompiledRequest,
    LaneOutcome,
    ParseFn,
    ProviderName,
    ProviderPage,
)

from ._errors import TransportFailed, TransportRefused
from ._exchange import KEPT_HEADERS, Exchange, sanitised_url
from ._meter import Meter
from ._pacing import Pacer
from ._secrets import CREDENTIAL_NAMES, RedactingFilter, Redactor, credentials_for, has_key
from ._status import lane_status_for, parse_retry_after

__all__ = [
    "MAX_REQUEST_BODY_BYTES",
    "MAX_URL_BYTES",
    "OPENALEX_KEY_MESSAGE",
    "ErrorMessageFn",
    "ParseFn",
    "ProviderTransport",
    "check_request",
]

MAX_URL_BYTES: Final = 4_094
MAX_REQUEST_BODY_BYTES: Final = 65_536
_MESSAGE_CHARS: Final = 300
_LOGGERS: Final = ("httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2")
_LOOPBACK: Final = frozenset({"127.0.0.1", "::1", "localhost"})

ErrorMessageFn = Callable[[str, int, bytes], str]


class Recorder(Protocol):
    #: exchanges written so far, per provider
    written: dict[str, int]

    def record(self, exchange: Exchange, redactor: Redactor) -> None: ...


class Replayer(Protocol):
    def lookup(self, provider: str, method: str, url: str, body: str | None) -> Exchange: ...


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def check_request(request: CompiledRequest) -> None:
    """Refuse (before sending) anything but an exact-host https request without credentials."""
    provider = request.provider
    hosts = HOSTS.get(provider)
    if hosts is None:
        raise TransportRefused(f"unknown provider {provider!r}")
    if request.method not in {"GET", "POST"}:
        raise TransportRefused(f"{provider}: method {request.method!r} is not allowed")
    try:
        parts = urlsplit(request.url)
        port = parts.port
    except ValueError:
        raise TransportRefused(f"{provider}: the request URL is malformed") from None
    if parts.scheme != "https":
        raise TransportRefused(
            f"{provider}: only https is allowed (got {parts.scheme or 'none'!r})"
        )
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise TransportRefused(f"{provider}: user info in the URL is refused")
    host = (parts.hostname or "").lower()
    if _is_ip_literal(host):
        raise TransportRefused(f"{provider}: IP-literal hosts are refused")
    if host not in hosts:
        raise TransportRefused(
            f"{provider}: host {host[:80]!r} is not allowed (allowed: {', '.join(sorted(hosts))})"
        )
    if port not in (None, 443):
        raise TransportRefused(f"{provider}: port {port} is refused")
    if parts.fragment or request.url.endswith("#"):
        raise TransportRefused(f"{provider}: URL fragments are refused")
    if parts.query or "?" in request.url:
        raise TransportRefused(f"{provider}: the URL must carry its parameters in params")
    for name, _ in request.params:
        if name.strip().lower() in CREDENTIAL_NAMES:
            raise TransportRefused(
                f"{provider}: a credential-shaped parameter {name[:40]!r} is refused "
                "(credentials are added by the transport)"
            )
    if len(sanitised_url(request).encode("utf-8")) > MAX_URL_BYTES:
        raise TransportRefused(f"{provider}: the request URL is over {MAX_URL_BYTES} bytes")
    if request.body is not None:
        if request.method != "POST":
            raise TransportRefused(f"{provider}: a body is only allowed on POST")
        if len(request.body.encode("utf-8")) > MAX_REQUEST_BODY_BYTES:
            raise TransportRefused(
                f"{provider}: the request body is over {MAX_REQUEST_BODY_BYTES} bytes"
            )


def _accept(request: CompiledRequest) -> str:
    """The provider's declared type (Atom for arXiv), else JSON for searches and lookups and
    XML first for record fetches (PubMed efetch, Europe PMC fullTextXML) so the provider
    does not answer 406."""
    adapter = ADAPTERS.get(request.provider)
    accept = adapter.accept if adapter is not None else JSON_ACCEPT
    if accept != JSON_ACCEPT:
        return accept
    if request.operation == "fetch":
        return "application/xml, text/xml;q=0.9, application/json;q=0.5"
    return JSON_ACCEPT


_DECLARED_BODY_LIMITS: Final = {
    lane: limit for adapter in ADAPTERS.values() for lane, limit in adapter.body_limits
}


def _check_base_urls(base_urls: Mapping[str, str]) -> dict[str, httpx.URL]:
    out: dict[str, httpx.URL] = {}
    for provider, raw in base_urls.items():
        url = httpx.URL(raw)
        if url.host not in _LOOPBACK or url.scheme not in {"http", "https"}:
            raise ValueError(f"test base URL for {provider} must be loopback, got {raw!r}")
        out[provider] = url
    return out


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The TLS context of every provider client of this process (httpx's default: the
    certifi bundle, no environment): reading the bundle costs ~20 ms of CPU, once."""
    return httpx.create_ssl_context(trust_env=False)


class ProviderTransport:
    """Sends compiled provider requests and maps the answers to lane outcomes.

    ``transport`` is an injectable ``httpx.AsyncBaseTransport`` (``httpx.MockTransport`` in
    logic tests); ``base_urls`` points providers at loopback servers (tests and the bench
    only); ``clock``/``sleep``/``now`` are injectable; ``recorder``/``replay`` write or answer
    from a cassette; ``meter`` reserves every network call in the daily allowance (the one
    meter: the store's); ``body_limits`` raises the response cap for one lane beyond the
    providers' declared ones (full text may be larger than a search page).

    Build it through ``litdesk.services.provider_transport`` (the one factory).
    :meth:`for_meter` gives a view sharing the HTTP client, pacing and redaction with
    another meter (another owner); only the original is closed.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        base_urls: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        now: Callable[[], datetime] | None = None,
        recorder: Recorder | None = None,
        replay: Replayer | None = None,
        meter: Meter,
        pacer: Pacer | None = None,
        pacing: Mapping[str, float] | None = None,
        body_limits: Mapping[str, int] | None = None,
    ) -> None:
        self.settings = settings
        self._base_urls = _check_base_urls(base_urls or {})
        self._clock = clock
        self._now = now or (lambda: datetime.now(UTC))
        self.recorder = recorder
        self.replay = replay
        self.meter: Meter = meter
        #: requests answered so far (sent or replayed), per provider; shared by every
        #: :meth:`for_meter` view (the evaluation bench reads it before and after a run)
        self.calls: Counter[str] = Counter()
        self._body_limits = _DECLARED_BODY_LIMITS | dict(body_limits or {})
        keyed = {
            name: adapter.keyed_interval
            for name, adapter in ADAPTERS.items()
            if adapter.keyed_interval is not None and has_key(name, settings)
        }
        self.pacer = pacer or Pacer(keyed or None, clock=clock, sleep=sleep)
        for provider, seconds in (pacing or {}).items():  # a test's intervals (a mock's: 0)
            self.pacer.set_interval(provider, seconds)
        secrets: list[str] = []
        for provider in ADAPTERS:
            secrets.extend(credentials_for(provider, settings).secrets)
        self.redactor = Redactor(secrets)
        self._filter = RedactingFilter(self.redactor)
        for name in _LOGGERS:
            logging.getLogger(name).addFilter(self._filter)
        self._client = httpx.AsyncClient(
            transport=transport,
            verify=_tls_context(),
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(
                connect=settings.http_connect_timeout,
                read=settings.http_read_timeout,
                write=settings.http_read_timeout,
                pool=settings.http_connect_timeout,
            ),
        )

    def for_meter(self, meter: Meter) -> ProviderTransport:
        """This transport (same client, pacer, cassette, redactor) reserving in ``meter``."""
        view = copy.copy(self)
        view.meter = meter
        return view

    async def aclose(self) -> None:
        await self._client.aclose()
        for name in _LOGGERS:
            logging.getLogger(name).removeFilter(self._filter)

    async def __aenter__(self) -> ProviderTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- sending --------------------------------------------------------------------

    def _user_agent(self) -> str:
        contact = self.settings.contact_email
        suffix = f"; mailto:{contact}" if contact else ""
        return f"litdesk/{__version__} (https://github.com/litdesk/litdesk{suffix})"

    def _polite_params(self, provider: str) -> list[tuple[str, str]]:
        adapter = ADAPTERS.get(provider)
        return adapter.polite_params(self.settings.contact_email) if adapter is not None else []

    def _target(self, request: CompiledRequest) -> httpx.URL:
        url = httpx.URL(request.url)
        base = self._base_urls.get(request.provider)
        if base is not None:  # test hook: same path, loopback origin
            url = url.copy_with(scheme=base.scheme, host=base.host, port=base.port)
        return url

    def _redact(self, text: str) -> str:
        return self.redactor.redact(text)[:_MESSAGE_CHARS]

    async def fetch(self, request: CompiledRequest) -> Exchange:
        """Send ``request`` (or answer it from the replay cassette) and return the exchange.

        Raises :class:`TransportRefused` before sending and :class:`TransportFailed` when the
        exchange fails; neither message ever holds a credential.
        """
        check_request(request)
        provider: ProviderName = request.provider
        url = sanitised_url(request)
        self.calls[provider] += 1
        if self.replay is not None:
            return self.replay.lookup(provider, request.method, url, request.body)
        adapter = ADAPTERS[provider]  # check_request refused any undeclared provider
        if adapter.key_required is not None and not has_key(provider, self.settings):
            raise TransportRefused(adapter.key_required, lane_status="unavailable")
        # the store is shared by threads and processes: reserve off the event loop
        await asyncio.to_thread(self.meter.reserve, provider, lane=request.lane)
        await self.pacer.acquire(provider)
        creds = credentials_for(provider, self.settings)
        params = httpx.QueryParams([*request.params, *self._polite_params(provider), *creds.params])
        headers = {
            "User-Agent": self._user_agent(),
            "Accept": _accept(request),
            "Accept-Encoding": "identity",
        }
        headers.update(dict(creds.headers))
        content: bytes | None = None
        if request.body is not None:
            content = request.body.encode("utf-8")
            headers["Content-Type"] = "application/json"
        outgoing = self._client.build_request(
            request.method, self._target(request), params=params, headers=headers, content=content
        )
        started = self._clock()
        deadline = self.settings.http_connect_timeout + self.settings.http_read_timeout
        try:
            async with asyncio.timeout(deadline):
                status, kept, body = await self._exchange(provider, request.lane, outgoing)
        except (httpx.TimeoutException, TimeoutError):
            raise TransportFailed(
                f"{provider}: no complete answer within {deadline:g} s (the time limit)",
                lane_status="timeout",
            ) from None
        except httpx.HTTPError as exc:
            raise TransportFailed(
                f"{provider}: network error ({type(exc).__name__}: {self._redact(str(exc))})"
            ) from None
        elapsed = (self._clock() - started) * 1000
        if adapter.interval_from_headers is not None:
            interval = adapter.interval_from_headers(kept)
            if interval is not None:
                self.pacer.set_interval(provider, interval)
        exchange = Exchange(
            provider=provider,
            method=request.method,
            url=url,
            request_body=request.body,
            status=status,
            headers=kept,
            body=body,
            received_at=self._now(),
            elapsed_ms=round(elapsed, 3),
        )
        if self.recorder is not None:
            self.recorder.record(exchange, self.redactor)
        return exchange

    async def _exchange(
        self, provider: str, lane: str, outgoing: httpx.Request
    ) -> tuple[int, dict[str, str], bytes]:
        limit = max(self.settings.http_max_response_bytes, self._body_limits.get(lane, 0))
        response = await self._client.send(outgoing, stream=True, follow_redirects=False)
        try:
            kept = {k: response.headers[k] for k in KEPT_HEADERS if k in response.headers}
            if response.is_redirect or 300 <= response.status_code < 400:
                return response.status_code, kept, b""
            declared = response.headers.get("content-length", "").strip()
            if declared.isdigit() and int(declared) > limit:
                raise TransportFailed(
                    f"{provider}: the response is {int(declared)} bytes, over the "
                    f"{limit}-byte limit (Content-Length); not read",
                    http_status=response.status_code,
                )
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > limit:
                    raise TransportFailed(
                        f"{provider}: the response exceeded the {limit}-byte limit while "
                        "streaming; not kept",
                        http_status=response.status_code,
                    )
                chunks.append(chunk)
            return response.status_code, kept, b"".join(chunks)
        finally:
            await response.aclose()

    # -- outcomes -------------------------------------------------------------------

    async def run(
        self,
        request: CompiledRequest,
        parse: ParseFn,
        error_message: ErrorMessageFn | None = None,
    ) -> tuple[LaneOutcome, Exchange | None]:
        """Fetch and parse: always a lane outcome (never raises for provider trouble)."""
        started = self._clock()
        try:
            exchange = await self.fetch(request)
        except (TransportRefused, TransportFailed) as exc:
            return (
                LaneOutcome(
                    provider=request.provider,
                    lane=request.lane,
                    status=exc.lane_status,
                    request=request,
                    http_status=getattr(exc, "http_status", None),
                    retry_after=_retry_detail(exc.details.get("retry_after")),
                    message=self._redact(exc.message),
                    elapsed_ms=round((self._clock() - started) * 1000, 3),
                ),
                None,
            )
        return self.outcome(request, exchange, parse, error_message), exchange

    def outcome(
        self,
        request: CompiledRequest,
        exchange: Exchange,
        parse: ParseFn,
        error_message: ErrorMessageFn | None = None,
    ) -> LaneOutcome:
        """Map an exchange (network, replay or cache) to a lane outcome."""
        base = LaneOutcome(
            provider=request.provider,
            lane=request.lane,
            status="ok",
            request=request,
            http_status=exchange.status,
            elapsed_ms=exchange.elapsed_ms,
            response_digest=exchange.digest,
            response_bytes=len(exchange.body),
        )
        status = exchange.status
        if 200 <= status < 300:
            try:
                base.page = parse(request.provider, request, status, exchange.body)
            except LitdeskError as exc:
                base.status = "parse_error"
                base.message = self._redact(f"{request.provider}: {exc.message}")
            except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                base.status = "parse_error"
                base.message = self._redact(
                    f"{request.provider}: the parser failed on this body ({type(exc).__name__})"
                )
            return base
        lane_status, reason = lane_status_for(status, request.operation)
        base.status = lane_status
        if lane_status == "ok":
            base.page = ProviderPage(papers=[], total=0)
            base.message = reason
            return base
        if lane_status == "rate_limited":
            base.retry_after = parse_retry_after(exchange.headers.get("retry-after"), self._now())
            if base.retry_after is not None:
                reason += f"; retry after {base.retry_after:g} s"
        detail = ""
        if error_message is not None and exchange.body and not 300 <= status < 400:
            try:
                detail = error_message(request.provider, status, exchange.body)
            except (LitdeskError, ValueError, KeyError, TypeError, AttributeError, IndexError):
                detail = ""
        base.message = self._redact(
            f"{request.provider}: {reason}" + (f": {detail}" if detail else "")
        )
        return base


def _retry_detail(value: object) -> float | None:
    """A refusal's retry-after (seconds), when it gave one (allowances, the semantic gap)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(min(max(value, 0), 86_400))
