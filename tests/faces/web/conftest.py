"""Fixtures of the web tests: a cassette written here (some bodies carry XSS payloads) and
an app with a temporary store answering from it: in-process, or on the session's one real
server when the test drives a browser (see ``_hosting``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting, SessionServer, hosting_for
from tests.faces.web._routes import share_openapi_documents, share_route_contexts
from tests.faces.web._server import (
    Running,
    epmc_body,
    epmc_record,
    free_port,
    write_cassette,
    xss_records,
)

from litdesk.faces.web import create_app


@pytest.fixture(scope="session")
def _web_cassette(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``cassette`` fixture's files, written once a session (per xdist worker)."""
    return write_web_cassette(tmp_path_factory.mktemp("web-cassette") / "cassette")


@pytest.fixture
def cassette(tmp_path: Path, _web_cassette: Path) -> Path:
    """The web tests' cassette in this test's own folder (a test may record more into it):
    a copy of the session's, byte for byte what :func:`write_web_cassette` writes (copying
    its five files costs about a quarter of encoding and writing them anew)."""
    return Path(shutil.copytree(_web_cassette, tmp_path / "cassette"))


def write_web_cassette(folder: Path) -> Path:
    """The web tests' cassette (the ``cassette`` fixture's) written into ``folder``."""
    write_cassette(folder, "tumour growth", epmc_body(xss_records(), next_cursor="AoE/next=="))
    write_cassette(
        folder,
        "tumour growth",
        epmc_body([epmc_record(i) for i in range(20, 24)]),
        cursor="AoE/next==",
    )
    write_cassette(  # an exact-identifier lookup (the reader of an unsaved paper)
        folder, "MED-40000099", epmc_body([epmc_record(99, title="Looked up by its id")])
    )
    write_cassette(  # a filtered search (kept-run tests)
        folder,
        "tumour growth",
        epmc_body(xss_records()),
        filters={"sort": "newest", "year_from": 2020},
    )
    return folder


@pytest.fixture(scope="session", autouse=True)
def _route_contexts_built_once() -> Iterator[None]:
    """Every test creates its own app; see :func:`tests.faces.web._routes.share_route_contexts`
    and :func:`~tests.faces.web._routes.share_openapi_documents`."""
    with share_route_contexts(), share_openapi_documents():
        yield


@pytest.fixture(scope="session")
def session_server() -> Iterator[SessionServer]:
    """The one real server of this test session (browser tests mount their app on it)."""
    server = SessionServer(free_port())
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def hosting(request: pytest.FixtureRequest) -> Hosting:
    """Where this test's app runs: in-process, or on the session server for a browser."""
    return hosting_for(request)


@pytest.fixture
def running(
    tmp_settings: Any, cassette: Path, tmp_path: Path, hosting: Hosting
) -> Iterator[Running]:
    app = create_app(tmp_settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app) as transport:
        yield Running(
            hosting.base, hosting.host, hosting.port, cassette, tmp_path / "data", transport
        )
