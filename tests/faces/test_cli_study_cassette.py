"""``litdesk study add-search`` and ``litdesk study update`` with ``--record DIR`` /
``--replay DIR`` (as ``litdesk search`` takes them): a Study's whole search recorded against
the fixture-backed Europe PMC (the shared fixtures' real ``cancer`` pages), then re-run in
another workspace from the cassette with no database reachable — the same records, the same
lanes and totals, the same PRISMA-S strategy; and an update round replayed the same way."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.services.studies._paged import RealCancerPages
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import app


@pytest.fixture
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Two data directories; the first is in use (``use`` switches)."""
    folders = [tmp_path / "recorded", tmp_path / "replayed"]
    monkeypatch.setenv("LITDESK_DATA_DIR", str(folders[0]))
    get_settings.cache_clear()
    yield folders
    get_settings.cache_clear()


def use(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(folder))
    get_settings.cache_clear()


def serve(monkeypatch: pytest.MonkeyPatch, handler: object) -> None:
    monkeypatch.setattr(
        _context, "APP_TEST_HOOKS", {"http_transport": httpx.MockTransport(handler)}
    )  # type: ignore[arg-type]


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("no network in this test", request=request)


def records(study: str) -> list[tuple[str, str, str, str]]:
    """The Study's studies as the decisions export lists them: DOI, PMID, title, round
    (the record keys hold the run's own id)."""
    code, out, err = invoke("screen", "export-decisions", study)
    assert code == 0, out + err
    rows = csv.DictReader(io.StringIO(out))
    return sorted((r["doi"], r["pmid"], r["title"], r["round"]) for r in rows)


def strategy(study: str) -> list[str]:
    """PRISMA-S's lines of the Study's searches (the strategy as run, its totals), the
    dates of the run masked (a replay runs today, from the recording)."""
    code, report, err = invoke("report", "prisma", "--study", study)
    assert code == 0, report + err
    dated = re.compile(
        r"\d{4}-\d{2}-\d{2}(T[0-9:.+]+)?|\d{1,2} [A-Z][a-z]{2} \d{4}|\b\d{2}:\d{2}(:\d{2})?\b"
    )
    return [dated.sub("DATE", ln) for ln in report.splitlines() if ln.startswith(("|", "Note"))]


def lanes(data: dict[str, object]) -> list[tuple[object, ...]]:
    job = data["job"]
    assert isinstance(job, dict)
    keep = ("provider", "lane", "state", "total", "retrieved", "requests", "pages")
    return [
        tuple(lane[k] for k in keep)
        for search in job["result"]["searches"]
        for lane in search["lanes"]
    ]


def test_a_study_search_and_update_replay_offline(
    workspaces: list[Path], fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "search.cassette", tmp_path / "update.cassette"
    pages = RealCancerPages(fixtures_dir)
    serve(monkeypatch, pages)
    assert invoke("study", "new", "Cancer")[0] == 0
    args = ("cancer", "-p", "europepmc", "--cap", "150", "--yes", "--json")
    code, out, err = invoke("study", "add-search", "Cancer", *args, "--record", str(first))
    assert code == 0, out + err
    # the preview's total (one record asked), then two pages of 100
    assert "recorded 3 exchanges in" in err and "Europe PMC 3" in err, err
    added = json.loads(out)
    assert added["outcome"] == "done" and added["job"]["result"]["searches"][0]["new"] == 150
    code, out, err = invoke("study", "update", "Cancer", "--json", "--record", str(second))
    assert code == 0 and "recorded 2 exchanges in" in err, out + err
    updated = json.loads(out)
    assert (updated["latest_update"]["new"], updated["latest_update"]["already_known"]) == (0, 150)
    asked = len(pages.calls)
    recorded, recorded_strategy = records("Cancer"), strategy("Cancer")
    assert len(recorded) == 150 and any("Europe PMC" in ln for ln in recorded_strategy)

    # another workspace, no database reachable: the same search from the cassette
    use(monkeypatch, workspaces[1])
    serve(monkeypatch, unreachable)
    assert invoke("study", "new", "Cancer")[0] == 0
    code, out, err = invoke("study", "add-search", "Cancer", *args, "--replay", str(first))
    assert code == 0, out + err
    again = json.loads(out)
    # the same preview, but a replay spends none of the allowance: it shows none left
    assert [{**x, "allowance_left": 0} for x in again["preview"]["lanes"]] == [
        {**x, "allowance_left": 0} for x in added["preview"]["lanes"]
    ]
    assert (added["preview"]["replay"], added["preview"]["spent"]) == (False, 1)
    assert added["preview"]["lanes"][0]["allowance_left"] > 0
    assert (again["preview"]["replay"], again["preview"]["spent"]) == (True, 0)
    assert [x["allowance_left"] for x in again["preview"]["lanes"]] == [None]
    # and says so (the preview declined: nothing run)
    asked_text = CliRunner().invoke(
        app, ["study", "add-search", "Cancer", "cancer", "-p", "europepmc", "--replay", str(first)],
        input="n\n",
    )  # fmt: skip
    said = asked_text.stdout + asked_text.stderr
    assert asked_text.exit_code == 0 and "Not started." in said, said
    assert f"Answered from the recording in {first}: the search spends none" in said, said
    assert "left today" not in said, said
    assert lanes(again) == lanes(added)
    assert again["job"]["result"]["searches"][0]["new"] == 150
    code, out, err = invoke("study", "update", "Cancer", "--json", "--replay", str(second))
    assert code == 0, out + err
    assert lanes(json.loads(out)) == lanes(updated)
    assert json.loads(out)["latest_update"]["already_known"] == 150
    assert records("Cancer") == recorded
    assert strategy("Cancer") == recorded_strategy
    assert len(pages.calls) == asked  # nothing was asked of the database again

    # a search the cassette does not hold: its preview is not answered, nothing is run
    # (no network is tried) — refused, nothing done (exit 8), the Study unchanged
    code, out, err = invoke(
        "study", "add-search", "Cancer", "malaria", "-p", "europepmc", "--yes", "--replay",
        str(first),
    )  # fmt: skip
    assert code == 8, out + err
    assert "not among the recorded answers" in err and "Nothing was run" not in out, out + err
    assert records("Cancer") == recorded


def test_record_and_replay_together_are_refused(
    workspaces: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(monkeypatch, unreachable)
    assert invoke("study", "new", "Both")[0] == 0
    folder = str(tmp_path / "c")
    for command in (("update", "Both"), ("add-search", "Both", "cancer", "--yes")):
        code, out, err = invoke("study", *command, "--record", folder, "--replay", folder)
        assert code == 2 and "choose --record or --replay, not both" in out + err, out + err
