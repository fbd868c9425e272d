"""``litdesk study update`` tells a refused update from a partial one: refused, nothing
done — nothing to re-run, no saved search on the databases asked, no such Study, every
database refused the search — exits 8 with ``"outcome": "refused"``; a partial update
(a database failed while another answered) exits 3 with ``"outcome": "partial"``; an
unknown database name is a bad argument (2). Before, the refusals exited 3 too, which a
scheduler (``SuccessExitStatus=3 4``) took for "worth a look, some of it worked"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.services.studies._paged import CROSSREF_HOST, GeneratedCrossref, GeneratedSearch
from typer.testing import CliRunner

from litdesk._settings import Settings, get_settings
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import app

BOOLEAN = '"knee osteoarthritis" AND (stem OR mesenchymal)'


@pytest.fixture
def env(tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_settings.resolved_data_dir()
    monkeypatch.setenv("LITDESK_DATA_DIR", str(data))
    get_settings.cache_clear()
    yield data
    get_settings.cache_clear()


def serve(monkeypatch: pytest.MonkeyPatch, state: dict[str, Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == CROSSREF_HOST:
            return state["cr"](request)  # type: ignore[no-any-return]
        return state["epmc"](request)  # type: ignore[no-any-return]

    monkeypatch.setattr(
        _context, "APP_TEST_HOOKS", {"http_transport": httpx.MockTransport(handler)}
    )  # type: ignore[arg-type]


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_refused_updates_exit_8_and_say_so(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state: dict[str, Any] = {"epmc": GeneratedSearch(20), "cr": GeneratedCrossref(range(5))}
    serve(monkeypatch, state)
    assert invoke("study", "new", "Empty")[0] == 0
    # nothing to re-run
    code, out, err = invoke("study", "update", "Empty")
    assert code == 8, out + err
    assert "has no saved search to re-run" in err and "Nothing was run or changed." in err, err
    code, out, err = invoke("study", "update", "Empty", "--json")
    assert code == 8, out + err
    data = json.loads(out)
    assert (data["outcome"], data["exit_status"], data["code"]) == ("refused", 8, "no_searches")
    # no such Study: refused too (4 is the allowance spent here, never "not found")
    code, out, err = invoke("study", "update", "No such study", "--json")
    assert code == 8 and json.loads(out)["outcome"] == "refused", out + err

    assert invoke("study", "new", "Living")[0] == 0
    code, out, err = invoke(
        "study", "add-search", "Living", "malaria", "-p", "europepmc,crossref", "--yes", "--json"
    )
    assert code == 0 and json.loads(out)["outcome"] == "done", out + err
    # a database no saved search uses: refused by name, nothing run
    calls = state["epmc"].calls
    code, out, err = invoke("study", "update", "Living", "-p", "pubmed", "--json")
    assert code == 8, out + err
    data = json.loads(out)
    assert data["outcome"] == "refused" and "they search Europe PMC, Crossref" in data["message"]
    assert state["epmc"].calls == calls
    # a name that is no database at all: a bad argument, as everywhere
    code, out, err = invoke("study", "update", "Living", "-p", "pubmedd")
    assert code == 2 and "no such database: pubmedd" in out + err, out + err

    # partial: Crossref fails while Europe PMC answers — exit 3, the round is kept
    state["cr"] = GeneratedCrossref(range(5), status=503)
    code, out, err = invoke("study", "update", "Living", "--json")
    assert code == 3, out + err
    data = json.loads(out)
    assert (data["outcome"], data["exit_status"], data["job"]["status"]) == ("partial", 3, "done")
    assert data["latest_update"]["round"] == 1
    code, out, _ = invoke("study", "update", "Living", "-p", "pubmed")
    assert code == 8 and "partial" not in out


def test_every_database_refusing_the_search_is_refused(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Boolean search on Europe PMC and Crossref: Crossref refuses it (it cannot run a
    Boolean query: nothing is sent), so the whole search is partial (3); an update of
    Crossref alone is refused by every database it asks — exit 8, the job failed with
    ``whole_refused``, no round added."""
    state: dict[str, Any] = {"epmc": GeneratedSearch(12), "cr": GeneratedCrossref(range(5))}
    serve(monkeypatch, state)
    assert invoke("study", "new", "Knee")[0] == 0
    code, out, err = invoke(
        "study", "add-search", "Knee", BOOLEAN, "-p", "europepmc,crossref", "--yes", "--json"
    )
    assert code == 3 and json.loads(out)["outcome"] == "partial", out + err
    code, out, err = invoke("study", "update", "Knee", "-p", "crossref", "--json")
    assert code == 8, out + err
    data = json.loads(out)
    assert (data["outcome"], data["exit_status"]) == ("refused", 8)
    assert data["job"]["status"] == "failed"
    assert data["job"]["result"]["error"]["code"] == "whole_refused"
    assert data["latest_update"] is None
    code, out, err = invoke("study", "update", "Knee", "-p", "crossref")
    assert code == 8, out + err
    assert "Every database refused the search" in out, out
    assert "refused: nothing was done (exit status 8)" in out
    # recording it: nothing was sent, said so — not "no database answered" (exit 5)
    folder = str(env / "refused.cassette")
    code, out, err = invoke("study", "update", "Knee", "-p", "crossref", "--record", folder)
    assert code == 8, out + err
    assert "nothing was recorded in" in err and "every database refused the search" in err, err


def test_the_cli_and_the_service_agree_on_the_refused_status() -> None:
    """The CLI names 8 without importing the service at start: the same number."""
    from litdesk.faces.cli import _study_search
    from litdesk.services.studies import EXIT_REFUSED, outcome

    assert _study_search.EXIT_REFUSED == EXIT_REFUSED == _study_search.NothingDone.exit_code
    refused = {"error": {"code": "whole_refused"}}
    assert outcome(refused, "failed") == "refused"
    assert outcome({"error": {"code": "whole_failed"}}, "failed") == "failed"
    assert outcome({"cancelled": True, "searches": []}, "cancelled") == "cancelled"
