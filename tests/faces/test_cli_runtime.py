"""The CLI's resource lifetime, start-up and log quietness: one runtime per command,
heavy modules imported only when a command runs, library log lines only with --verbose."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from litdesk._settings import Settings, get_settings
from litdesk.core.search import PROVIDERS
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import app
from litdesk.faces.cli._query import PROVIDER_NAMES

CC_BY = "https://creativecommons.org/licenses/by/4.0/"
JATS = (
    "<article xmlns:xlink='http://www.w3.org/1999/xlink'><front><article-meta>"
    '<article-id pub-id-type="pmcid">PMC123</article-id>'
    "<title-group><article-title>Quiet title</article-title></title-group>"
    f'<permissions><license xlink:href="{CC_BY}"><license-p>CC BY</license-p></license>'
    "</permissions></article-meta></front><body><p>Hello.</p></body></article>"
).encode()


@pytest.fixture
def env(tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.resolved_data_dir()))
    get_settings.cache_clear()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, content=JATS)

    monkeypatch.setattr(
        _context, "APP_TEST_HOOKS", {"http_transport": httpx.MockTransport(handler)}
    )
    yield seen
    get_settings.cache_clear()


@pytest.fixture
def library_logging() -> Iterator[io.StringIO]:
    """A root handler at INFO, as a library that configures logging would leave it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_library_log_lines_stay_off_stderr_by_default(
    env: list[str], library_logging: io.StringIO
) -> None:
    result = CliRunner().invoke(app, ["fulltext", "PMC123", "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["title"] == "Quiet title"
    assert env == ["/europepmc/webservices/rest/PMC123/fullTextXML"]
    assert "HTTP Request" not in result.stderr
    assert "HTTP Request" not in library_logging.getvalue()
    # the process gets its logging back when the command ends
    assert logging.root.manager.disable == logging.NOTSET
    logging.getLogger("httpx").info("after the command")
    assert "after the command" in library_logging.getvalue()


def test_verbose_shows_library_log_lines_without_secrets(
    env: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITDESK_OPENALEX_API_KEY", "oa-secret-in-logs-42")
    get_settings.cache_clear()
    result = CliRunner().invoke(app, ["--verbose", "fulltext", "PMC123", "--json"])
    assert result.exit_code == 0, result.stderr
    assert "HTTP Request: GET" in result.stderr and "fullTextXML" in result.stderr
    assert "oa-secret-in-logs-42" not in result.stderr + result.stdout


def test_help_text_names_every_provider() -> None:
    assert ", ".join(PROVIDERS) == PROVIDER_NAMES


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_start_up_imports_no_heavy_module(argv: list[str]) -> None:
    """``litdesk --help`` / ``--version`` load Typer and litdesk's command modules only
    (the timing is measured in bench/cli_bench.py, not asserted here)."""
    probe = (
        "import runpy, sys\n"
        f"sys.argv = ['litdesk', *{argv!r}]\n"
        "try:\n"
        "    runpy.run_module('litdesk', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pydantic', 'sqlalchemy', 'httpx', 'numpy', 'alembic', 'lxml', 'asyncio')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_root_help_builds_no_command_and_lists_what_they_say() -> None:
    """``litdesk --help`` lists the commands without building them (Typer reads every
    command's signature when it builds it: most of the start-up); the listing is the one the
    built commands give."""
    import typer

    group = typer.main.get_command(app)
    with group.make_context("litdesk", [], resilient_parsing=True) as ctx:
        lazy_help = group.get_help(ctx)
        assert sorted(group.commands._built) == []  # type: ignore[attr-defined]
        names = group.list_commands(ctx)
        for name in names:
            assert group.get_command(ctx, name) is not None
        assert sorted(group.commands._built) == sorted(names)  # type: ignore[attr-defined]
        assert group.get_help(ctx) == lazy_help
    assert {"search", "study", "serve", "user", "report"} <= set(names)
    assert len(names) == len(set(names)) > 20
