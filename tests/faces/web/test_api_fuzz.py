"""OpenAPI-driven fuzzing (schemathesis) of every API operation against the app, as the
page would call it (exact Host and Origin, CSRF cookie + header): no 5xx, and every error
answer is the JSON {error, code, message} shape. The requests schemathesis builds go to the
app in-process (``_hosting``'s transport, behind a ``requests`` adapter, one call to the
app's loop a request): the same app, middleware and Host/Origin checks as on a server,
without a socket and an HTTP parser on each side of each of the ~1,800 requests."""

from __future__ import annotations

import copy
import importlib
import io
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests
import requests.adapters
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.core import NOT_SET
from tests.faces.web._hosting import AppTransport, Hosting, TransportFactory, client_for
from tests.faces.web._server import Running
from urllib3 import HTTPResponse
from urllib3._collections import HTTPHeaderDict

pytestmark = pytest.mark.slow


class _ToApp(requests.adapters.HTTPAdapter):
    """A ``requests`` adapter that hands each request to the in-process app and gives its
    whole answer back as from a socket (one call to the app's loop a request:
    :meth:`~tests.faces.web._hosting.AppTransport.whole_answer`)."""

    def __init__(self, transport: TransportFactory) -> None:
        super().__init__()
        app = transport()
        assert isinstance(app, AppTransport), app
        self._app = app

    def send(
        self, request: requests.PreparedRequest, *args: Any, **kwargs: Any
    ) -> requests.Response:
        body = request.body
        content = body.encode() if isinstance(body, str) else (body or b"")
        assert isinstance(content, bytes), type(body)
        status, headers, data = self._app.whole_answer(
            httpx.Request(
                str(request.method),
                str(request.url),
                headers=list(request.headers.items()),
                content=content,
            )
        )
        raw = HTTPResponse(
            body=io.BytesIO(data),
            headers=HTTPHeaderDict(headers),
            status=status,
            version=11,
            preload_content=False,
            decode_content=False,
        )
        return self.build_response(request, raw)


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    from tests._store_template import ensure_sqlite_at_head
    from tests.faces.web._server import epmc_body, write_cassette, xss_records

    from litdesk import Settings
    from litdesk.faces.web import create_app

    root = tmp_path_factory.mktemp("fuzz")
    folder = root / "cassette"
    write_cassette(folder, "tumour growth", epmc_body(xss_records()))
    settings_ = Settings(data_dir=root / "data", openalex_api_key=None)
    ensure_sqlite_at_head(settings_.resolved_database_url())  # the migrated template's copy
    hosting = Hosting.in_process()
    app = create_app(settings_, host=hosting.host, port=hosting.port, replay=folder)
    with hosting.serve(app) as transport:
        yield Running(hosting.base, hosting.host, hosting.port, folder, root / "data", transport)


@pytest.fixture(scope="module")
def fuzz_session(fuzz_server: Running) -> Iterator[requests.Session]:
    assert fuzz_server.transport is not None
    with requests.Session() as session:
        session.trust_env = False  # no proxy or .netrc looked up in the environment a request
        session.mount(fuzz_server.base + "/", _ToApp(fuzz_server.transport))
        yield session


#: what the app imports on the first request of some of its areas: imported before the first
#: case, so the local constants Hypothesis mixes into drawn strings (a 5 % draw from every
#: imported litdesk module's constants) are complete from the first operation on and not
#: re-filtered for each string's constraints whenever an import adds some (~0.7 s of CPU).
#: Which modules a worker has imported depends anyway on the files it ran before this one.
_LAZY_AREAS = (
    "litdesk.adapters.zotero._webread",
    "litdesk.core.saved._filter",
    "litdesk.services.files._service",
    "litdesk.services.reader._area",
    "litdesk.services.zotero._area",
)


@pytest.fixture(scope="module")
def web_schema(fuzz_server: Running) -> Any:
    for name in _LAZY_AREAS:
        importlib.import_module(name)
    with client_for(fuzz_server.base, fuzz_server.transport, 60) as c:
        document = c.get("/api/v1/openapi.json").json()
    return schemathesis.openapi.from_dict(document)


@pytest.fixture(scope="module")
def page_session(fuzz_server: Running) -> dict[str, Any]:
    with client_for(fuzz_server.base, fuzz_server.transport, 60) as c:
        c.get("/studies")
        token = c.cookies.get("ld_csrf")
        # something to find: a saved paper and a Study
        c.post(
            "/api/v1/studies",
            json={"name": "Fuzz"},
            headers={"origin": fuzz_server.base, "x-csrf-token": token},
        )
    return {
        "headers": {"origin": fuzz_server.base, "x-csrf-token": token},
        "cookies": {"ld_csrf": token},
    }


def _same_inputs(operation: Any) -> str:
    """What schemathesis draws an operation's cases from: its parameters (names, places,
    schemas) and its request body; operations with the same text take the same cases."""
    raw = operation.definition.raw
    return json.dumps([raw.get("parameters"), raw.get("requestBody")], sort_keys=True)


def test_no_server_errors(
    web_schema: Any,
    fuzz_server: Running,
    fuzz_session: requests.Session,
    page_session: dict[str, Any],
) -> None:
    seen: list[str] = []
    statuses: list[int] = []
    # operations whose inputs are the same schema (18 take a Study's ref only, 9 nothing, 6 a
    # job id...: 158 operations, 113 schemas) are sent the same drawn cases, each its own
    # request: every operation still gets its 12 cases of its own schema, drawn once a schema
    # (drawing them is most of this test's CPU)
    alike: dict[str, list[Any]] = {}
    sent: Counter[str] = Counter()
    for result in web_schema.get_all_operations():
        operation = result.ok()
        seen.append(f"{operation.method.upper()} {operation.path}")
        alike.setdefault(_same_inputs(operation), []).append(operation)

    def send(case: Any) -> None:
        response = case.call(
            base_url=fuzz_server.base,
            session=fuzz_session,
            headers=page_session["headers"],
            cookies=page_session["cookies"],
        )
        fuzz_session.cookies.clear()  # each case sends the page's cookies only
        statuses.append(response.status_code)
        sent[f"{case.method.upper()} {case.operation.path}"] += 1
        assert response.status_code < 500, (
            case.method,
            case.formatted_path,
            response.status_code,
            response.text[:300],
        )
        if response.status_code >= 400:
            body = response.json()
            assert {"error", "code", "message"} <= set(body), body

    def fuzz(first: Any, others: list[Any]) -> None:
        @given(case=first.as_strategy())
        @settings(
            max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        def check(case: Any) -> None:
            # the others' copies made before the first is sent (a call may add to its dicts)
            parts = (
                case.path_parameters,
                dict(case.headers),
                case.cookies,
                case.query,
                case.body,
                case.multipart_content_types,
            )
            copies = []
            for other in others:
                path, headers, cookies, query, body, types = copy.deepcopy(
                    parts,
                    {id(NOT_SET): NOT_SET},  # no body stays no body
                )
                copies.append(
                    other.Case(
                        path_parameters=path,
                        headers=headers,
                        cookies=cookies,
                        query=query,
                        body=body,
                        media_type=case.media_type,
                        multipart_content_types=types,
                    )
                )
            for one in (case, *copies):
                send(one)

        check()

    for first, *others in alike.values():
        fuzz(first, others)
    assert len(seen) >= 20, seen  # every operation of the document was fuzzed
    assert set(sent) == set(seen), set(seen) - set(sent)
    assert sum(1 for s in statuses if s < 300) > 20  # past the security checks, not only refused
    assert statuses.count(403) < len(statuses) / 2
