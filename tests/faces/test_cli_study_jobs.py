"""``litdesk study add-search`` / ``study update`` beside a running server: the CLI's job is
claimed by the CLI when it is submitted (no server worker takes it), and one replaying or
recording a cassette is bound to the CLI's process — should that process be gone, the job
fails saying how to run it again instead of paging the network (SQLite and PostgreSQL).

The "server" is a second app on the same data with its job runner started (the serve
worker loop), its own network transport counting every request; the CLI's insert waits
until that runner has looked at the queue again, so a job left claimable is taken."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.services.studies._paged import RealCancerPages
from typer.testing import CliRunner

from litdesk import Settings
from litdesk._clock import ManualClock
from litdesk._settings import get_settings
from litdesk.adapters.store import JobsRepo
from litdesk.adapters.store import whole_searches as stored
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import app
from litdesk.services.app import open_app, open_app_sync
from litdesk.services.jobs import Jobs, JobView
from litdesk.services.search import load_run
from litdesk.services.studies import ADD_SEARCH_KIND

ARGS = ("cancer", "-p", "europepmc", "--cap", "150", "--yes", "--json")


@pytest.fixture(params=["sqlite", "postgres"])
def settings(
    request: pytest.FixtureRequest, tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    chosen = tmp_settings.model_copy(update={"jobs_poll_seconds": 0.05})
    if request.param == "postgres":
        chosen = chosen.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})
        monkeypatch.setenv("LITDESK_DATABASE_URL", str(chosen.database_url))
    monkeypatch.setenv("LITDESK_DATA_DIR", str(chosen.resolved_data_dir()))
    get_settings.cache_clear()
    yield chosen
    get_settings.cache_clear()


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def cli_network(monkeypatch: pytest.MonkeyPatch, handler: Callable[..., httpx.Response]) -> None:
    monkeypatch.setattr(
        _context, "APP_TEST_HOOKS", {"http_transport": httpx.MockTransport(handler)}
    )


def unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("no network for the CLI in this test", request=request)


class Server:
    """A second app on the same store with its job runner started (``litdesk serve``'s
    workers), in its own thread and event loop; its network answers the real pages and
    counts every request. ``looked`` is set each time its runner has tried to claim."""

    def __init__(self, settings: Settings, fixtures: Path) -> None:
        self.settings = settings
        self.pages = RealCancerPages(fixtures)
        self.looked = threading.Event()
        self.worker = ""
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        transport = httpx.MockTransport(self.pages)
        async with open_app(self.settings, http_transport=transport) as served:
            repo = served.jobs.repo
            claim = repo.claim_or_lease_end

            def looking(*args: Any, **kwargs: Any) -> tuple[Any, float | None]:
                try:
                    return claim(*args, **kwargs)
                finally:
                    self.looked.set()

            repo.claim_or_lease_end = looking  # type: ignore[method-assign]
            self.worker = served.job_runner.worker_id
            served.job_runner.start()
            self._ready.set()
            await asyncio.to_thread(self._stop.wait)
            served.job_runner.stop()

    def __enter__(self) -> Server:
        self._thread.start()
        assert self._ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)


@pytest.fixture
def racing(monkeypatch: pytest.MonkeyPatch) -> Callable[[Server], None]:
    """Every job inserted waits until the server's runner has looked at the queue after
    the insert committed (a job it can claim is then claimed by it)."""

    def race(server: Server) -> None:
        insert = JobsRepo.insert

        def inserted(self: JobsRepo, **kwargs: Any) -> Any:
            server.looked.clear()
            out = insert(self, **kwargs)
            assert server.looked.wait(10), "the server's runner did not look at the queue"
            server.looked.clear()
            assert server.looked.wait(10)
            return out

        monkeypatch.setattr(JobsRepo, "insert", inserted)

    return race


def _record(monkeypatch: pytest.MonkeyPatch, fixtures: Path, cassette: Path) -> None:
    cli_network(monkeypatch, RealCancerPages(fixtures))
    assert invoke("study", "new", "Recorded")[0] == 0
    code, out, err = invoke("study", "add-search", "Recorded", *ARGS, "--record", str(cassette))
    assert code == 0, out + err


def _job(settings: Settings, job_id: str) -> JobView:
    with open_app_sync(settings) as opened:
        return opened.jobs.find(job_id, kind=ADD_SEARCH_KIND)


def test_a_running_server_never_takes_the_clis_replayed_job(
    settings: Settings,
    fixtures_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    racing: Callable[[Server], None],
) -> None:
    cassette = tmp_path / "search.cassette"
    _record(monkeypatch, fixtures_dir, cassette)
    cli_network(monkeypatch, unreachable)  # the CLI answers from the cassette only
    assert invoke("study", "new", "Replayed")[0] == 0
    with Server(settings, fixtures_dir) as server:
        racing(server)
        code, out, err = invoke("study", "add-search", "Replayed", *ARGS, "--replay", str(cassette))
        assert server.pages.calls == [], "the server paged the network for the CLI's job"
    assert code == 0, out + err
    done = json.loads(out)
    assert done["outcome"] == "done" and done["job"]["result"]["searches"][0]["new"] == 150
    assert done["job"]["attempts"] == 1  # claimed once, by the CLI


def test_the_clis_live_job_is_claimed_by_the_cli(
    settings: Settings,
    fixtures_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    racing: Callable[[Server], None],
) -> None:
    """Without a cassette too: the CLI runs its job with its own transport (the server's
    is never asked) and shows its progress, not a server's."""
    cli = RealCancerPages(fixtures_dir)
    cli_network(monkeypatch, cli)
    assert invoke("study", "new", "Live")[0] == 0
    with Server(settings, fixtures_dir) as server:
        racing(server)
        code, out, err = invoke("study", "add-search", "Live", *ARGS)
        assert server.pages.calls == []
    assert code == 0, out + err
    assert len(cli.calls) == 3  # the preview's total, then two pages


@pytest.mark.parametrize("option", ["--replay", "--record"])
def test_a_bound_job_whose_cli_is_gone_fails_saying_how_to_rerun(
    settings: Settings, tmp_path: Path, option: str
) -> None:
    """The CLI's process stops heartbeating (killed): its lease runs out; a server's worker
    does not take the job over — it ends failed, its message naming the cassette and the
    command to run again; a job of the CLI without a cassette is resumed as any other."""
    from litdesk.services.search import SearchRequest
    from litdesk.services.studies import AddSearchRequest

    cassette = tmp_path / "tape"
    if option == "--replay":
        cassette.mkdir()
        (cassette / "index.json").write_text(
            json.dumps({"format": "litdesk-cassette", "version": 1, "exchanges": []})
        )
    tape = {"replay" if option == "--replay" else "record": cassette}

    async def submit(**kwargs: Path) -> str:
        async with open_app(settings, **kwargs) as cli:  # type: ignore[arg-type]
            study = cli.workspace().create_study(f"S{len(kwargs)}").id
            request = AddSearchRequest(study, SearchRequest("cancer", providers=("europepmc",)))
            return cli.studies.add_search(request, owner=cli.owner, here=True).job.id

    bound_id = asyncio.run(submit(**tape))
    free_id = asyncio.run(submit())
    clock = ManualClock()  # the host's time now: the CLI's leases run from it
    with open_app_sync(settings) as served:
        server = Jobs(served.store, clock=clock)
        lease = settings.jobs_lease_seconds
        assert server.claim([ADD_SEARCH_KIND], "server", lease) is None  # both are held
        clock.advance(lease + 5)  # the CLI's process is gone: no heartbeat
        taken = server.claim([ADD_SEARCH_KIND], "server", lease)
        assert taken is not None and taken.id == free_id  # resumed as any job is
        assert server.claim([ADD_SEARCH_KIND], "server", lease) is None
        bound = server.get(bound_id, owner=served.owner)
    assert bound.status == "failed"
    assert str(cassette) in bound.message and f"{option} {cassette}" in bound.message
    assert "litdesk study add-search" in bound.message
    assert bound.result is not None and bound.result["error"]["code"] == "job_abandoned"


def test_the_clis_fulltext_check_is_run_by_the_cli(
    settings: Settings,
    fixtures_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    racing: Callable[[Server], None],
) -> None:
    """``study fulltext --check`` submits a job and works it too: the same rule."""
    cli_network(monkeypatch, unreachable)
    assert invoke("study", "new", "Heart")[0] == 0
    code, out, err = invoke(
        "paper", "save", "--doi", "10.1234/x", "--title", "T", "--study", "Heart"
    )
    assert code == 0, out + err
    with Server(settings, fixtures_dir) as server:
        racing(server)
        code, out, err = invoke("study", "fulltext", "Heart", "--check", "--json")
    assert code == 0, out + err
    checked = json.loads(out)
    assert checked["job"]["status"] == "done", checked["job"]
    with open_app_sync(settings) as opened:
        row = opened.jobs.repo.get(checked["job"]["id"])
    assert row is not None and row.worker is not None and row.attempts == 1
    assert not row.worker.startswith(server.worker), "the server ran the CLI's check"


@pytest.mark.parametrize("settings", ["sqlite"], indirect=True)
def test_a_page_the_cassette_lacks_is_its_lanes_failure(
    settings: Settings, fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replayed with a larger cap than recorded: the third page was never recorded. The
    lane stops there, saying so (not in the cassette, nothing sent); what it read is kept;
    the job ends partial (exit 3), not failed (1)."""
    cassette = tmp_path / "search.cassette"
    _record(monkeypatch, fixtures_dir, cassette)
    cli_network(monkeypatch, unreachable)
    assert invoke("study", "new", "Replayed")[0] == 0
    wider = ("cancer", "-p", "europepmc", "--cap", "250", "--yes")
    code, out, err = invoke("study", "add-search", "Replayed", *wider, "--replay", str(cassette))
    assert code == 3, out + err
    assert "partial" in out and "Europe PMC, keyword search: partial, 200 of" in out, out
    assert "not in the cassette: page 3 was not recorded (nothing was sent)" in out, out
    code, out, err = invoke(
        "study", "update", "Replayed", "--json", "--replay", str(cassette)
    )  # the update asks the same three pages: the same lane outcome, exit 3
    assert code == 3, out + err
    lane = json.loads(out)["job"]["result"]["searches"][0]["lanes"][0]
    assert (lane["state"], lane["status"], lane["retrieved"]) == ("partial", "cassette_miss", 200)
    assert "not in the cassette" in lane["notice"] and "--record" in lane["notice"]


def _dated(cassette: Path, when: str) -> None:
    """The cassette as if recorded at ``when`` (its exchanges' ``recorded_at``)."""
    for path in cassette.glob("[0-9]*.json"):
        exchange = json.loads(path.read_text(encoding="utf-8"))
        exchange["recorded_at"] = when
        path.write_text(json.dumps(exchange), encoding="utf-8")


@pytest.mark.parametrize("settings", ["sqlite"], indirect=True)
def test_a_replay_is_dated_when_the_databases_were_searched(
    settings: Settings, fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRISMA-S item 13's date of a replayed search is its recording's (when the databases
    were searched), not the replay's; the run keeps when it was replayed (``executed_at``)
    — for a Study's whole search and for ``litdesk search --replay`` alike."""
    whole, fused = tmp_path / "whole.cassette", tmp_path / "search.cassette"
    _record(monkeypatch, fixtures_dir, whole)
    code, out, err = invoke("search", "cancer", "-p", "europepmc", "--record", str(fused))
    assert code == 0, out + err
    recorded = "2025-03-14T09:30:00+00:00"
    _dated(whole, recorded)
    _dated(fused, recorded)
    cli_network(monkeypatch, unreachable)

    assert invoke("study", "new", "Replayed")[0] == 0
    code, out, err = invoke("study", "add-search", "Replayed", *ARGS, "--replay", str(whole))
    assert code == 0, out + err
    code, report, err = invoke("report", "prisma", "--study", "Replayed")
    assert code == 0, report + err
    # the search's row and its round's row (the round counts from its searches' date)
    rows = [ln for ln in report.splitlines() if ln.startswith("| first search |")]
    assert len(rows) == 2 and all("| 14 Mar 2025 |" in ln for ln in rows), report
    with open_app_sync(settings) as opened:
        study = opened.workspace().study("Replayed").id
        with opened.store.read() as conn:
            run_id = stored.list_rounds(conn, study)[0].run_id
        run = load_run(opened.store, run_id)
    assert run.retrieved_at == recorded and run.executed_at > recorded

    code, out, err = invoke("search", "cancer", "-p", "europepmc", "--replay", str(fused), "--json")
    assert code == 0, out + err
    replayed = json.loads(out)
    assert replayed["retrieved_at"] == recorded and replayed["executed_at"] > recorded
    code, out, err = invoke("search", "cancer", "-p", "europepmc", "--replay", str(fused))
    assert code == 0, out + err
    said = " ".join(out.split())
    assert "retrieved 14 Mar 2025" in said and "(replayed just now)" in said, out
