"""The test hosting itself: an in-process app answers like a served one (exact Host and
Origin checked, an event stream read as it comes, no socket), and the session server
gives each test's app its own data on the same port."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from tests.faces.web._hosting import Hosting, SessionServer, client_for

from litdesk.faces.web import create_app


def test_in_process_checks_host_and_origin_and_opens_no_socket(tmp_settings: Any) -> None:
    hosting = Hosting.in_process()
    app = create_app(tmp_settings, host=hosting.host, port=hosting.port)
    with hosting.serve(app) as transport, client_for(hosting.base, transport, 30) as c:
        assert transport is not None
        assert c.get("/studies").status_code == 200
        wrong_host = c.get("/studies", headers={"host": f"localhost:{hosting.port}"})
        assert wrong_host.status_code == 421
        no_origin = c.post("/api/v1/studies", json={"name": "Alpha"})
        assert no_origin.status_code == 403
        with pytest.raises(httpx.ConnectError):  # nothing listens on the app's port
            httpx.get(hosting.base + "/studies", timeout=5)


def test_a_streamed_body_arrives_before_the_app_ends_and_a_hang_up_is_a_disconnect() -> None:
    told: list[str] = []

    async def events(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # the request body
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"first\n", "more_body": True})
        told.append((await receive())["type"])  # waits until the client goes away

    events.router = SimpleNamespace(lifespan_context=lambda _app: nullcontext())  # type: ignore[attr-defined]
    hosting = Hosting.in_process()
    with hosting.serve(events) as transport, client_for(hosting.base, transport, 30) as c:
        with c.stream("GET", "/events") as r:
            assert next(r.iter_lines()) == "first"  # read while the app still runs
            assert told == []
        assert told == ["http.disconnect"]


def test_the_session_server_gives_each_app_its_own_data_on_one_port(
    session_server: SessionServer, tmp_settings: Any, tmp_path: Path
) -> None:
    hosting = Hosting(session_server.port, session_server)
    names = []
    for n in range(2):
        settings = tmp_settings.model_copy(update={"data_dir": tmp_path / f"data{n}"})
        app = create_app(settings, host=hosting.host, port=hosting.port)
        with hosting.serve(app) as transport:
            assert transport is None  # a real socket
            with httpx.Client(base_url=hosting.base, headers={"origin": hosting.base}) as c:
                c.get("/studies")
                c.headers["x-csrf-token"] = c.cookies["ld_csrf"]
                before = [s["name"] for s in c.get("/api/v1/studies").json()["studies"]]
                made = c.post("/api/v1/studies", json={"name": f"Study {n}"})
                assert made.status_code == 200, made.text
                names.append(before)
    assert names == [[], []]  # the second app did not see the first one's study
    with httpx.Client(base_url=hosting.base) as c:  # between tests: no app mounted
        assert c.get("/studies").status_code == 503
