"""Fixtures of the web tests: a cassette written here (some bodies carry XSS payloads) and
a real server on a loopback port with a temporary store answering from it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import (
    Running,
    epmc_body,
    epmc_record,
    free_port,
    serve_app,
    write_cassette,
    xss_records,
)

from litdesk.faces.web import create_app


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
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


@pytest.fixture
def running(tmp_settings: Any, cassette: Path, tmp_path: Path) -> Iterator[Running]:
    port = free_port()
    app = create_app(tmp_settings, host="127.0.0.1", port=port, replay=cassette)
    for _ in serve_app(app, port):
        yield Running(f"http://127.0.0.1:{port}", "127.0.0.1", port, cassette, tmp_path / "data")
