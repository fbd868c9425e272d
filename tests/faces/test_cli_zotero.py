"""``litdesk zotero import`` and ``litdesk zotero push`` end to end over a real store: the
real Zotero 6 directory, the JSON output, the plan shown before a push, no write without a
yes, the RIS file, refusals with their exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

pytestmark = pytest.mark.fixtures


@pytest.fixture
def run(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: str, code: int = 0, stdin: str | None = None):
        result = runner.invoke(app, list(args), input=stdin)
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def test_import_and_push_as_ris(run, fixtures_dir: Path, tmp_path: Path) -> None:
    data = str(fixtures_dir / "zotero" / "zotero-6-papis")
    out = run("zotero", "import", data, "--study", "Papis")
    said = " ".join(out.output.split())
    assert "schema 121" in said and "added 5" in said and "4 PDFs attached, 4 new" in said
    again = json.loads(run("zotero", "import", data, "--study", "Papis", "--json").output)
    assert (again["added"], again["unchanged"], again["pdfs_attached"]) == (0, 5, 4)
    assert again["pdfs_new"] == 0  # attached by the first import: none new
    said = " ".join(run("zotero", "import", data, "--study", "Papis").output.split())
    assert "4 PDFs attached, 0 new" in said
    run("paper", "status", "10.1002/ggge.20071", "read")
    ris = tmp_path / "back.ris"
    refused = run("zotero", "push", "Papis", "--ris", str(ris), code=3, stdin="n\n")
    assert "+ tag litdesk:read" in refused.output and not ris.exists()
    run("zotero", "push", "Papis", "--ris", str(ris), "--yes")
    assert "KW  - litdesk:read" in ris.read_text(encoding="utf-8")
    plan = json.loads(run("zotero", "push", "Papis", "--local", "--json").output)
    assert plan["written"] is False and plan["plan"]["library"] == "users/0"
    run("zotero", "push", "Papis", "--library", "users/5", code=2)  # no key in the environment


def test_import_refusals(run, tmp_path: Path) -> None:
    missing = run("zotero", "import", str(tmp_path / "none"), "--json", code=4)
    assert '"no_zotero_library"' in missing.output
    run("zotero", "import", str(tmp_path), "--study", "S", "--sub-studies", code=2)


def test_push_gives_screening_decisions_back(run, fixtures_dir: Path, tmp_path: Path) -> None:
    data = str(fixtures_dir / "zotero" / "zotero-6-papis")
    run("zotero", "import", data, "--study", "Papis", "--no-pdfs")
    rows = json.loads(run("screen", "items", "Papis", "--json").output)["rows"]
    first, second = rows[0], rows[1]
    run("screen", "decide", "Papis", first["record_key"], "exclude",
        "--reason", "wrong population")  # fmt: skip
    run("screen", "decide", "Papis", second["record_key"], "include")
    plan = run("zotero", "push", "Papis", "--local", code=3, stdin="n\n")
    said = plan.output
    assert "+ tag litdesk:ta:excluded" in said and "+ tag litdesk:reason:wrong population" in said
    assert "+ tag litdesk:ta:included" in said
    ris = tmp_path / "back.ris"
    run("zotero", "push", "Papis", "--ris", str(ris), "--yes")
    text = ris.read_text(encoding="utf-8")
    assert text.count("KW  - litdesk:ta:excluded") == 1
    assert text.count("KW  - litdesk:reason:wrong population") == 1
    assert text.count("KW  - litdesk:ta:included") == 1
    run("screen", "undo", "Papis", second["record_key"])
    again = run("zotero", "push", "Papis", "--ris", str(ris), "--yes")
    assert "+ tag litdesk:ta:included" not in again.output
    assert "litdesk:ta:included" not in ris.read_text(encoding="utf-8")


def test_import_web_reads_the_key_from_the_environment_only(
    run, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``litdesk zotero import-web``: the Web API through a loopback server (the area's
    transport pointed at it), the key from ``LITDESK_ZOTERO_API_KEY``, never echoed."""
    from functools import partialmethod

    from tests._zotero_server import ToLoopback
    from tests._zotero_web import WebServer, WebState

    from litdesk.services.zotero import ZoteroArea

    async def no_wait(seconds: float) -> None:
        return None

    key = "K" * 24
    state = WebState.from_library(fixtures_dir / "zotero" / "zotero-6-papis")
    with WebServer(state) as server:
        monkeypatch.setattr(
            ZoteroArea,
            "__init__",
            partialmethod(
                ZoteroArea.__init__, http_transport=ToLoopback(server.port), sleep=no_wait
            ),
        )
        run("zotero", "import-web", "users/123", "--study", "Papis", code=3)  # no key: refused
        monkeypatch.setenv("LITDESK_ZOTERO_API_KEY", key)
        get_settings.cache_clear()
        out = run("zotero", "import-web", "users/123", "--study", "Papis", "--with-pdfs")
        said = " ".join(out.output.split())
        assert "zotero.org users/123" in said and "5 items read (every item)" in said
        assert "added 5" in said and "4 PDFs attached, 4 new" in said
        again = json.loads(
            run(
                "zotero", "import-web", "users/123", "--study", "Papis", "--with-pdfs", "--json"
            ).output
        )
        assert again["since"] == state.version and again["added"] == 0
        said = " ".join(
            run(
                "zotero", "import-web", "users/123", "--study", "Papis", "--with-pdfs"
            ).output.split()
        )
        assert f"changed since version {state.version}" in said
        assert "Study Papis: 0 papers from Zotero (the Study holds 5)" in said
        monkeypatch.setenv("LITDESK_ZOTERO_API_KEY", "WRONG")
        get_settings.cache_clear()
        refused = run("zotero", "import-web", "users/123", "--study", "Papis", "--json", code=3)
        assert "the Zotero API key was refused" in refused.output
        assert key not in out.output + again.__repr__() + refused.output
        run("zotero", "import-web", "people/1", code=2)


def test_import_web_says_which_items_it_asked_again(
    run, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file zotero.org did not serve at the first import: the next ``import-web`` asks
    for its item again although nothing changed, says so, and attaches the PDF."""
    from functools import partialmethod

    from tests._zotero_server import ToLoopback
    from tests._zotero_web import WebServer, WebState

    from litdesk.services.zotero import ZoteroArea

    async def no_wait(seconds: float) -> None:
        return None

    state = WebState.from_library(fixtures_dir / "zotero" / "zotero-6-papis")
    flaky = sorted(state.files)[0]
    parent = state.items[flaky]["data"]["parentItem"]
    kept = state.files.pop(flaky)
    with WebServer(state) as server:
        monkeypatch.setattr(
            ZoteroArea,
            "__init__",
            partialmethod(
                ZoteroArea.__init__, http_transport=ToLoopback(server.port), sleep=no_wait
            ),
        )
        monkeypatch.setenv("LITDESK_ZOTERO_API_KEY", "K" * 24)
        get_settings.cache_clear()
        args = ("zotero", "import-web", "users/123", "--study", "Papis", "--with-pdfs")
        first = " ".join(run(*args).output.split())
        assert f"not imported: {parent}" in first and "3 PDFs attached" in first
        assert "asked again" not in first
        state.files[flaky] = kept
        second = " ".join(run(*args).output.split())
        assert "asked again: 1 item with a problem at the last import" in second
        assert parent in second and "1 PDF attached, 1 new" in second
        assert "not imported" not in second
        third = json.loads(run(*args, "--json").output)
        assert third["asked_again"] == [] and third["problems"] == []
