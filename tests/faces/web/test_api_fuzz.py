"""OpenAPI-driven fuzzing (schemathesis) of every API operation against a real server on
loopback, as the page would call it (exact Origin, CSRF cookie + header): no 5xx, and
every error answer is the JSON {error, code, message} shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import Running

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    from tests.faces.web._server import epmc_body, free_port, serve_app, write_cassette, xss_records

    from litdesk import Settings
    from litdesk.faces.web import create_app

    root = tmp_path_factory.mktemp("fuzz")
    folder = root / "cassette"
    write_cassette(folder, "tumour growth", epmc_body(xss_records()))
    settings_ = Settings(data_dir=root / "data", openalex_api_key=None)
    port = free_port()
    app = create_app(settings_, host="127.0.0.1", port=port, replay=folder)
    for _ in serve_app(app, port):
        yield Running(f"http://127.0.0.1:{port}", "127.0.0.1", port, folder, root / "data")


@pytest.fixture(scope="module")
def web_schema(fuzz_server: Running) -> Any:
    return schemathesis.openapi.from_url(fuzz_server.base + "/api/v1/openapi.json")


@pytest.fixture(scope="module")
def page_session(fuzz_server: Running) -> dict[str, Any]:
    with httpx.Client(base_url=fuzz_server.base, verify=LOOPBACK_TLS) as c:
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


def test_no_server_errors(
    web_schema: Any, fuzz_server: Running, page_session: dict[str, Any]
) -> None:
    seen: list[str] = []
    statuses: list[int] = []
    for result in web_schema.get_all_operations():
        operation = result.ok()
        seen.append(f"{operation.method.upper()} {operation.path}")

        @given(case=operation.as_strategy())
        @settings(
            max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        def check(case: Any) -> None:
            response = case.call(
                base_url=fuzz_server.base,
                headers=page_session["headers"],
                cookies=page_session["cookies"],
            )
            statuses.append(response.status_code)
            assert response.status_code < 500, (
                case.method,
                case.formatted_path,
                response.status_code,
                response.text[:300],
            )
            if response.status_code >= 400:
                body = response.json()
                assert {"error", "code", "message"} <= set(body), body

        check()
    assert len(seen) >= 20, seen  # every operation of the document was fuzzed
    assert sum(1 for s in statuses if s < 300) > 20  # past the security checks, not only refused
    assert statuses.count(403) < len(statuses) / 2
