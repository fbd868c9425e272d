"""The offline demo workspace (issue 34): `litdesk demo reset` builds the demo Study through
the service methods (search of the demo sample, an import with duplicates, deduplication,
screening at both stages, evidence, a PRISMA 2020 flow whose checks hold) in its own folder;
the real data directory is never touched, by the reset nor by serving the demo; the demo
sample is searched only there, never with a real database; every demo page says it is one."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from litdesk import Settings
from litdesk._errors import ConfigError, RefusedError
from litdesk.core.providers import DemoMixed, UnknownProvider, check_sources
from litdesk.faces.cli import app as cli
from litdesk.faces.web import create_app
from litdesk.services.app import open_app, open_app_sync
from litdesk.services.demo import DEMO_MARKER, DemoReset, build_demo, demo_place
from litdesk.services.search import SearchRequest


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, DemoReset, Any]]:
    """One demo workspace for the module, beside a real data directory holding a store."""
    root = tmp_path_factory.mktemp("demo-ws")
    settings = Settings(data_dir=root / "real", demo_dir=root / "demo", jobs_worker_slots=0)
    with open_app_sync(settings) as app:  # the real workspace exists and holds a Study
        app.workspace().create_study("My own review")
    before = _tree(root / "real")
    made = build_demo(root / "demo", settings)
    yield settings, made, before


def test_the_demo_study_has_the_numbers_the_plan_gives(built: Any) -> None:
    settings, made, _ = built
    study = made.study
    assert (study.search_records, study.imported_records) == (193, 158)
    assert (study.title_abstract, study.full_text, study.evidence) == (100, 14, 6)
    assert made.place.exists and (made.place.directory / DEMO_MARKER).is_file()
    assert made.place.export.is_file() and made.place.export.read_text().count("ER  - ") == 36
    with open_app_sync(settings.for_demo(made.place.directory)) as app:
        report = app.studies.prisma(study.study_id, owner=app.owner).to_dict()
        evidence, problems = app.workspace().evidence(study=study.study_id)
    ident = report["identification"]
    assert ident["records_per_source"] == {
        "Demo sample (offline)": 193,
        "Import: knee-oa-database-export.ris (ris)": 158,
    }
    assert (ident["records_identified"], ident["duplicates_removed"]) == (351, 68)
    assert ident["records_after_deduplication"] == 283
    (flow,) = report["prisma_2020"]["rounds"]
    assert (flow["screened"], flow["excluded_screening"], flow["sought"]) == (100, 70, 30)
    assert (flow["assessed"], flow["excluded_reports"], flow["included"]) == (14, 4, 10)
    assert flow["excluded_reasons"] == {"Not a randomised controlled trial": 4}
    assert all(check["ok"] for check in flow["checks"])
    assert [s["name"] for s in flow["identified"]["sources"]][0] == "Demo sample (offline)"
    # each passage a verbatim sentence of the record's abstract: the quote check holds
    assert len(evidence) == 6 and problems == []
    assert {v.recheck for v in evidence} == {"ok"}


def test_the_real_data_dir_is_untouched_and_apart(built: Any, tmp_path: Path) -> None:
    settings, made, before = built
    assert _tree(settings.resolved_data_dir()) == before  # the reset wrote nothing there
    assert made.place.directory != settings.resolved_data_dir()
    with pytest.raises(ConfigError):  # the demo may never be (in) the data directory
        demo_place(settings, settings.resolved_data_dir() / "demo")
    with pytest.raises(ConfigError):
        build_demo(settings.resolved_data_dir(), settings)
    other = tmp_path / "papers"
    other.mkdir()
    (other / "thesis.pdf").write_bytes(b"%PDF")
    with pytest.raises(RefusedError):  # a folder that is not a demo workspace is kept
        build_demo(other, settings)
    assert (other / "thesis.pdf").read_bytes() == b"%PDF"


def test_demo_path_says_where_it_is(built: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings, made, _ = built
    monkeypatch.setenv("LITDESK_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("LITDESK_DEMO_DIR", str(made.place.directory))
    result = CliRunner().invoke(cli, ["demo", "path"])
    assert result.exit_code == 0, result.output
    assert str(made.place.directory) in result.output
    assert str(made.place.export) in result.output


def test_the_demo_source_exists_only_in_the_demo_and_alone(built: Any) -> None:
    settings, made, _ = built
    with pytest.raises(UnknownProvider):
        check_sources(["demo"], demo=False)
    with pytest.raises(DemoMixed):
        check_sources(["demo", "pubmed"], demo=True)
    check_sources(["demo"], demo=True)

    async def search(s: Settings, providers: tuple[str, ...]) -> Any:
        async with open_app(s) as app:
            return await app.search.search(
                SearchRequest("knee", providers=providers), owner="local"
            )

    with pytest.raises(UnknownProvider):  # outside the demo workspace: no such provider
        asyncio.run(search(settings, ("demo",)))
    demo = settings.for_demo(made.place.directory)
    with pytest.raises(DemoMixed):  # never mixed into a search of a real database
        asyncio.run(search(demo, ("demo", "europepmc")))
    view = asyncio.run(search(demo, ())).to_dict()  # none chosen: the demo sample
    (lane,) = view["run"]["lanes"]
    assert lane["lane"] == "demo-keyword" and lane["status"] == "ok" and lane["total"] > 100
    assert view["cards"][0]["paper"]["provider"] == "Demo sample (offline)"


def _pages(settings: Settings, paths: list[str]) -> dict[str, str]:
    """Each page's text (its status code first, then the body)."""
    from starlette.testclient import TestClient

    web = create_app(settings, host="127.0.0.1", port=8765)
    with TestClient(web, base_url="http://127.0.0.1:8765") as client:
        return {p: f"{(r := client.get(p)).status_code}\n{r.text}" for p in paths}


def test_the_banner_shows_on_demo_pages_only(built: Any) -> None:
    settings, made, before = built
    demo = settings.for_demo(made.place.directory)
    study_page = f"/study/{made.study.study_id}"
    shown = _pages(demo, ["/studies", "/search?q=knee+AND+%22stem+cells%22", "/saved", study_page])
    for text in shown.values():
        assert text.startswith("200") and "Demo workspace" in text and "litdesk serve" in text
        assert 'href="/demo/export.ris"' in text
    assert "Demo sample (offline)" in shown["/search?q=knee+AND+%22stem+cells%22"]
    assert made.study.name in shown["/studies"]
    assert "Demo sample (offline)" in shown[study_page]  # its sources say it is the demo
    real = _pages(settings, ["/studies", "/search", "/saved"])
    for text in real.values():
        assert "Demo workspace" not in text and "Demo sample" not in text
    # the demo export is downloadable in the demo workspace only
    export = _pages(demo, ["/demo/export.ris"])["/demo/export.ris"]
    assert export.startswith("200") and export.count("ER  - ") == 36
    assert _pages(settings, ["/demo/export.ris"])["/demo/export.ris"].startswith("404")
    assert "My own review" in real["/studies"]
    # serving the demo (pages, a search) wrote nothing into the real data directory; the
    # real workspace's own pages only read its store
    after = _tree(settings.resolved_data_dir())
    assert {k for k in after if not k.startswith("litdesk.sqlite3")} == {
        k for k in before if not k.startswith("litdesk.sqlite3")
    }


def test_serve_demo_refuses_team_and_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "real"))
    monkeypatch.setenv("LITDESK_DEMO_DIR", str(tmp_path / "demo"))
    for extra in (["--team"], ["--replay", str(tmp_path)]):
        result = CliRunner().invoke(cli, ["serve", "--demo", *extra])
        assert result.exit_code != 0
    assert not (tmp_path / "real").exists() and not (tmp_path / "demo").exists()
    assert os.environ["LITDESK_DEMO_DIR"] == str(tmp_path / "demo")


def test_cli_twins_act_on_the_demo_with_demo(built: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings, made, before = built
    monkeypatch.setenv("LITDESK_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("LITDESK_DEMO_DIR", str(made.place.directory))
    runner = CliRunner()
    listed = runner.invoke(cli, ["--demo", "study", "list"])
    assert listed.exit_code == 0 and made.study.name in listed.output
    traced = runner.invoke(cli, ["--demo", "search", "knee", "--trace", "--limit", "2"])
    assert traced.exit_code == 0, traced.output
    assert "Demo sample (offline)" in traced.output  # the trace names the demo sample
    assert "europepmc" not in traced.output.lower()  # alone, not with the databases
    mixed = runner.invoke(cli, ["--demo", "search", "knee", "--provider", "demo,pubmed"])
    assert mixed.exit_code != 0 and "cannot be searched together" in mixed.output
    own = runner.invoke(cli, ["study", "list"])  # without --demo: your own workspace
    assert own.exit_code == 0 and made.study.name not in own.output
    assert "My own review" in own.output
