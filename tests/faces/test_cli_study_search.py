"""``litdesk study add-search`` and ``litdesk study update`` end to end through the CLI
(the real transport answering from an ``httpx.MockTransport``): the preview with the
provider's total and the allowance, no start without a yes, the job run here, exit
statuses a scheduler acts on (0 done, 4 allowance spent), the update round's report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.services.studies._paged import GeneratedSearch, RealCancerPages
from typer.testing import CliRunner

from litdesk._settings import Settings, get_settings
from litdesk.adapters.providers import ADAPTERS
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import app


@pytest.fixture
def env(tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_settings.resolved_data_dir()
    monkeypatch.setenv("LITDESK_DATA_DIR", str(data))
    get_settings.cache_clear()
    yield data
    get_settings.cache_clear()


#: every provider unpaced
UNPACED = dict.fromkeys(ADAPTERS, 0.0)


def serve(monkeypatch: pytest.MonkeyPatch, handler: object) -> None:
    # the mock answers at once: no pacing between its pages (the pacer's tests' subject,
    # tests/adapters/http)
    hooks = {"http_transport": httpx.MockTransport(handler), "pacing": UNPACED}
    monkeypatch.setattr(_context, "APP_TEST_HOOKS", hooks)  # type: ignore[arg-type]


def invoke(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def test_add_search_preview_ask_and_json(
    env: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = RealCancerPages(fixtures_dir)
    serve(monkeypatch, pages)
    assert invoke("study", "new", "Cancer")[0] == 0
    code, out, _ = invoke(
        "study", "add-search", "Cancer", "cancer", "-p", "europepmc", "--cap", "200", input="n\n"
    )
    assert code == 0, out
    assert "5,059,039 records" in out and "over the cap of 200" in out and "Not started." in out
    code, out, err = invoke(
        "study",
        "add-search",
        "Cancer",
        "cancer",
        "-p",
        "europepmc",
        "--cap",
        "200",
        "--yes",
        "--json",
    )
    assert code == 0, out + err
    data = json.loads(out)
    assert data["preview"]["lanes"][0]["total"] == 5_059_039
    assert data["exit_status"] == 0 and data["job"]["status"] == "done"
    search = data["job"]["result"]["searches"][0]
    assert search["lanes"][0]["state"] == "capped" and search["lanes"][0]["retrieved"] == 200
    code, out, _ = invoke("study", "show", "Cancer", "--json")
    shown = json.loads(out)  # the first page of the Study's papers, and their total
    assert shown["papers_total"] == search["new"] and len(shown["papers"]) == min(50, search["new"])


def test_update_exit_statuses(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = {"search": GeneratedSearch(150)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    serve(monkeypatch, handler)
    invoke("study", "new", "Living")
    code, out, err = invoke("study", "add-search", "Living", "malaria", "-p", "europepmc", "--yes")
    assert code == 0, out + err
    assert "150 new" in out and "Europe PMC, keyword search: complete, 150 of 150" in out
    state["search"] = GeneratedSearch(170, retracted=frozenset({2}))
    code, out, err = invoke("study", "update", "Living", "--json")
    assert code == 0, out + err
    latest = json.loads(out)["latest_update"]
    assert (latest["round"], latest["new"], latest["already_known"], latest["retracted_since"]) == (
        1,
        20,
        150,
        1,
    )
    # the allowance spent: the update stops, says so, exits 4
    monkeypatch.setenv("LITDESK_OWNER_DAILY_REQUESTS", "1")
    get_settings.cache_clear()
    state["search"] = GeneratedSearch(400)
    code, out, _ = invoke("study", "update", "Living")
    assert code == 4, out
    # the account's own cap is the one spent (the lab-wide cap is separate since issue 29)
    assert "Today's allowance of searches for Europe PMC is used up" in out


def test_a_boolean_whole_search_names_its_lanes_and_figures_as_run(
    env: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A librarian's Boolean search added whole over three databases (the walk of issue
    walk9): Semantic Scholar runs it on its bulk (Boolean) search, so the preview, the round
    and PRISMA-S name that lane, as the search page does; PRISMA-S's notes give the
    databases' names and the figures as the rest of the report does (not "semanticscholar",
    "70498" or "0 of None"), and each database's Limit is the cap, not the sum of caps."""
    s2 = (
        fixtures_dir / "providers/semanticscholar/paper-search-turing-title-offset0.json"
    ).read_bytes()
    pages = RealCancerPages(fixtures_dir)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "api.semanticscholar.org":
            assert request.url.path.endswith("/paper/search/bulk")
            return httpx.Response(200, content=s2)
        return pages(request)

    serve(monkeypatch, handler)
    assert invoke("study", "new", "Knee")[0] == 0
    query = '"Osteoarthritis, Knee" AND ("stem cell" OR mesenchymal)'
    providers = "europepmc,semanticscholar,crossref"
    code, out, err = invoke(
        "study", "add-search", "Knee", query, "-p", providers, "--cap", "50", "--yes"
    )
    assert code == 3, out + err  # Crossref refuses a Boolean query: a partial search
    assert "Semantic Scholar, Boolean search: 70,498 records" in out  # the preview
    assert "Semantic Scholar, Boolean search: capped, 50 of 70,498" in out  # the round
    assert "relevance search" not in out
    code, report, err = invoke("report", "prisma", "--study", "Knee")
    assert code == 0, report + err
    rows = [ln for ln in report.splitlines() if ln.startswith("| first search |") and "sort=" in ln]
    assert len(rows) == 3
    assert all(row.split(" | ")[-4] == "50" for row in rows), rows  # Limit: the cap per lane
    assert "| Semantic Scholar, Boolean search |" in report
    assert (
        "Note: Semantic Scholar (first search): capped, 50 of 70,498 records retrieved "
        "(cap 50 per lane)" in report
    )
    assert "Note: Crossref (first search): failed, 0 of unknown records retrieved" in report
    assert "of None" not in report and "semanticscholar (search)" not in report


def test_the_preview_counts_every_request_it_spent(
    env: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PubMed's total takes two requests (esearch, then efetch): the preview says it spent
    three with Europe PMC beside it, as the allowance counted them (it said two)."""
    efetch = (fixtures_dir / "providers/pubmed/efetch-pubmed-12091962-9997.xml").read_bytes()
    esearch = json.dumps(
        {"esearchresult": {"count": "2", "retmax": "1", "retstart": "0", "idlist": ["9997"]}}
    ).encode()
    pages = RealCancerPages(fixtures_dir)
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path.endswith("esearch.fcgi"):
            return httpx.Response(200, content=esearch)
        if request.url.path.endswith("efetch.fcgi"):
            return httpx.Response(200, content=efetch)
        return pages(request)

    serve(monkeypatch, handler)
    assert invoke("study", "new", "Counted")[0] == 0
    code, out, err = invoke(
        "study", "add-search", "Counted", "cancer", "-p", "europepmc,pubmed", "--json", input="n\n"
    )
    assert code == 0, out + err
    assert len(sent) == 3
    assert json.loads(out)["preview"]["spent"] == 3


def test_an_empty_page_before_the_total_is_a_partial_lane(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database that answers an empty page with its total not reached stopped early: the
    lane is partial, and says so (it was 'complete, 100 of 160'), exit status 3."""
    full = GeneratedSearch(160)

    def handler(request: httpx.Request) -> httpx.Response:
        if "cursorMark=c100" in str(request.url):  # the second page comes back empty
            body = {"version": "6.9", "hitCount": 160, "resultList": {"result": []}}
            return httpx.Response(200, content=json.dumps(body).encode())
        return full(request)

    serve(monkeypatch, handler)
    assert invoke("study", "new", "Early stop")[0] == 0
    code, out, err = invoke(
        "study", "add-search", "Early stop", "malaria", "-p", "europepmc", "--yes"
    )
    assert code == 3, out + err
    assert "Europe PMC, keyword search: partial, 100 of 160" in out, out
    assert "empty page after 100 of 160 records" in out


def test_a_search_whose_every_lane_failed_says_so_once(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every lane failed: the job failed (exit status 1), nothing was added, and the CLI says
    why once, with each database's reason (it printed the same lanes again as a technical
    'search 1: … ConnectError …' line)."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("Name or service not known", request=request)

    serve(monkeypatch, handler)
    assert invoke("study", "new", "Down")[0] == 0
    code, out, err = invoke("study", "add-search", "Down", "malaria", "-p", "europepmc", "--yes")
    assert code == 1, out + err
    assert "job" in out and "failed (exit status 1)" in out
    failed = [ln for ln in out.splitlines() if ln.strip().startswith("failed:")]
    assert len(failed) == 1 and "Europe PMC" in failed[0], out
    assert "search 1:" not in out, out
    assert json.loads(invoke("study", "show", "Down", "--json")[1])["papers_total"] == 0


def test_update_re_runs_only_the_databases_named(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``study update STUDY -p crossref`` (walk 11): Crossref failed during an update; the
    re-run asks Crossref alone and its report lists that lane only; a database no saved
    search uses is refused by name (nothing run)."""
    from tests.services.studies._paged import CROSSREF_HOST, GeneratedCrossref

    state: dict[str, Any] = {"epmc": GeneratedSearch(20), "cr": GeneratedCrossref(range(5))}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == CROSSREF_HOST:
            return state["cr"](request)  # type: ignore[no-any-return]
        return state["epmc"](request)  # type: ignore[no-any-return]

    serve(monkeypatch, handler)
    invoke("study", "new", "Living")
    code, out, err = invoke(
        "study", "add-search", "Living", "malaria", "-p", "europepmc,crossref", "--yes"
    )
    assert code == 0 and "25 new" in out, out + err
    state["cr"] = GeneratedCrossref(range(8), status=503)
    code, out, _ = invoke("study", "update", "Living")
    assert code == 3 and "Crossref, keyword search: failed" in out, out
    code, out, _ = invoke("study", "show", "Living")  # each run of the query: its round
    said = " ".join(out.split())
    assert "; first search: 25 new, 0 already known" in said, out
    assert "; update round 1: 0 new, 20 already known; Crossref failed" in said, out
    state["cr"] = GeneratedCrossref(range(8))
    asked = state["epmc"].calls
    code, out, err = invoke("study", "update", "Living", "-p", "crossref", "--json")
    assert code == 0, out + err
    data = json.loads(out)
    assert [x["provider"] for x in data["job"]["result"]["searches"][0]["lanes"]] == ["crossref"]
    assert (data["latest_update"]["round"], data["latest_update"]["new"]) == (2, 3)
    assert state["epmc"].calls == asked
    code, out, _ = invoke("screen", "next", "Living")
    assert (
        code == 0 and "The 2 update rounds added 3 records to screen (the latest, Update 2 (" in out
    )
    assert "): 3); 3 still yours to screen" in out, out
    code, out, err = invoke("study", "update", "Living", "-p", "pubmed")
    assert code != 0 and "searches PubMed: they search Europe PMC, Crossref" in out + err
