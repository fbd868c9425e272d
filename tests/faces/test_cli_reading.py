"""``litdesk fulltext`` and ``litdesk cite`` end to end through the CLI, with the real
transport answering from an ``httpx.MockTransport`` (no network)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from litdesk._settings import Settings, get_settings
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import app

KEY = "cli-oa-key-77"
Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
def env(tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_settings.resolved_data_dir()
    monkeypatch.setenv("LITDESK_DATA_DIR", str(data))
    get_settings.cache_clear()
    yield data
    get_settings.cache_clear()


def mock_transport(monkeypatch: pytest.MonkeyPatch, handler: Handler) -> list[httpx.Request]:
    seen: list[httpx.Request] = []

    def recording(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    hooks = {"http_transport": httpx.MockTransport(recording)}
    monkeypatch.setattr(_context, "APP_TEST_HOOKS", hooks)
    return seen


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


ATTACK = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<article><body><p>&xxe;</p></body></article>"""


# --- fulltext --file --------------------------------------------------------------------


@pytest.mark.fixtures
def test_file_readable_json(env: Path, fixtures_dir: Path) -> None:
    path = fixtures_dir / "jats" / "pmc6398430_beheco_ccby40.nxml"
    code, out, _ = invoke("fulltext", "--file", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["readable"] is True and data["pmcid"] == "PMC6398430"
    assert data["licence"] == "CC BY 4.0" and data["blocks"][0]["id"] == "p1"
    assert data["source_url"] == "https://europepmc.org/articles/PMC6398430"


@pytest.mark.fixtures
def test_file_not_readable_human(env: Path, fixtures_dir: Path) -> None:
    path = fixtures_dir / "jats" / "pmc3460867_pone_licence_text_only.nxml"
    code, out, _ = invoke("fulltext", "--file", str(path))
    assert code == 0
    flat = " ".join(out.split())  # the console wraps long lines
    assert "no machine-readable Creative Commons URL" in flat
    assert "europepmc.org/articles/PMC3460867" in flat


@pytest.mark.fixtures
def test_file_named_for_another_pmcid_is_refused(
    env: Path, fixtures_dir: Path, tmp_path: Path
) -> None:
    src = fixtures_dir / "jats" / "pmc7302504_pone_cc0.nxml"
    renamed = tmp_path / "PMC1.nxml"
    renamed.write_bytes(src.read_bytes())
    code, _, err = invoke("fulltext", "--file", str(renamed))
    assert code == 3 and "different paper" in err
    code, _, err = invoke("fulltext", "--file", str(src), "--pmcid", "PMC7302505")
    assert code == 3 and "different paper" in err
    code, out, _ = invoke("fulltext", "--file", str(src), "--pmcid", "PMC7302504", "--json")
    assert code == 0 and json.loads(out)["readable"] is True


def test_file_attack_is_refused(env: Path, tmp_path: Path) -> None:
    path = tmp_path / "evil.xml"
    path.write_bytes(ATTACK)
    code, out, err = invoke("fulltext", "--file", str(path), "--json")
    assert code == 3
    assert json.loads(out)["code"] == "entity" and "root:" not in out + err


def test_argument_rules(env: Path, tmp_path: Path) -> None:
    assert invoke("fulltext")[0] == 2
    assert invoke("fulltext", "PMC1", "--file", str(tmp_path / "x.xml"))[0] == 2
    assert invoke("fulltext", "PMC1", "--pmcid", "PMC1")[0] == 2
    code, _, err = invoke("fulltext", "--file", str(tmp_path / "missing.xml"))
    assert code == 4 and "no such file" in err


# --- fulltext PAPER_ID ------------------------------------------------------------------


@pytest.mark.fixtures
def test_paper_id_fetch_and_cache(
    env: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (fixtures_dir / "providers/europepmc/fulltext-PMC8164761-ccby-2021.xml").read_bytes()
    seen = mock_transport(monkeypatch, lambda _r: httpx.Response(200, content=body))
    code, out, _ = invoke("fulltext", "PMC-PMC8164761", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["readable"] and not data["cached"] and data["retrieved_at"]
    assert str(seen[0].url) == (
        "https://www.ebi.ac.uk/europepmc/webservices/rest/PMC8164761/fullTextXML"
    )
    assert (env / "fulltext" / "PMC8164761.json").is_file()
    code, out, _ = invoke("fulltext", "PMC8164761")
    assert code == 0 and len(seen) == 1
    assert "## Abstract › Background" in out and "Retrieved:" in out


def test_paper_id_not_found(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mock_transport(monkeypatch, lambda _r: httpx.Response(404, content=b""))
    code, _, err = invoke("fulltext", "PMC5")
    assert code == 4 and "no full text" in err


# --- cite -----------------------------------------------------------------------------


def test_cite_without_key_says_so(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = mock_transport(monkeypatch, lambda _r: httpx.Response(500))
    code, _, err = invoke("cite", "citing", "W1")
    assert code == 6 and "LITDESK_OPENALEX_API_KEY" in err and seen == []


@pytest.mark.fixtures
def test_cite_citing_and_save_to_study(
    env: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITDESK_OPENALEX_API_KEY", KEY)
    get_settings.cache_clear()
    body = (fixtures_dir / "providers/openalex/works-filter-cites-cursor-first.json").read_bytes()
    seen = mock_transport(monkeypatch, lambda _r: httpx.Response(200, content=body))
    code, out, err = invoke("cite", "citing", "W3046863325", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["total"] == 5 and len(data["papers"]) == 5 and data["mode"] == "citing"
    assert seen[0].url.params["sort"] == "publication_date:desc"
    code, out, _ = invoke("cite", "citing", "W3046863325")
    assert code == 0 and " 1. " in out and "5 works" in out

    from litdesk.adapters.store import open_store
    from litdesk.services.workspace import Workspace

    workspace = Workspace(open_store(get_settings()))
    workspace.create_study("Snowball")
    code, out, err = invoke(
        "cite", "citing", "W3046863325", "--save-to", "Snowball", "--pick", "1,3", "--json"
    )
    assert code == 0, err
    saved = json.loads(out)["saved"]
    assert len(saved) == 2
    assert {r.paper.id for r in workspace.papers(study="Snowball")} == set(saved)
    first_and_third = [json.loads(out)["papers"][i]["id"] for i in (0, 2)]
    assert saved == first_and_third
    code, _, err = invoke("cite", "citing", "W3046863325", "--save-to", "Snowball", "--pick", "9")
    assert code == 2 and "--pick" in err
    code, _, err = invoke("cite", "citing", "W3046863325", "--save-to", "Nope")
    assert code == 4


def test_cite_argument_errors(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITDESK_OPENALEX_API_KEY", KEY)
    get_settings.cache_clear()
    seen = mock_transport(monkeypatch, lambda _r: httpx.Response(500))
    code, _, err = invoke("cite", "shared", "W1")
    assert code == 2 and "2 to 5" in err
    assert invoke("cite", "references", "W1", "--page", "101")[0] == 2
    assert invoke("cite", "sideways", "W1")[0] == 2
    assert seen == []
