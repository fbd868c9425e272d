"""The store on SQLite and PostgreSQL: migrations, transactions, validation on read,
search runs, cache coalescing and allowances."""

from __future__ import annotations

import threading
import time
from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa

from litdesk._errors import ConfigError, InputError, IntegrityError, NotFoundError
from litdesk.adapters.store import (
    Store,
    StoreError,
    cache_abandon,
    cache_claim,
    cache_fill,
    cache_get,
    cache_purge,
    get_search_run,
    list_search_runs,
    make_engine,
    open_store,
    repo,
    reserve,
    save_search_run,
    usage,
)
from litdesk.adapters.store._schema import papers
from litdesk.core.records import make_paper

NOW = "2026-11-30T12:00:00+00:00"


def _head() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from litdesk.adapters.store import MIGRATIONS_DIR

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    heads = ScriptDirectory.from_config(cfg).get_heads()
    assert len(heads) == 1, f"migrations have several heads: {heads}"
    return heads[0]


def test_migrated_to_head_and_idempotent(store: Store):
    head = _head()
    assert store.revision() == head
    store.migrate()  # a second open is a no-op
    assert store.revision() == head
    names = set(sa.inspect(store.engine).get_table_names())
    assert {"papers", "paper_keys", "studies", "notes", "evidence", "search_runs"} <= names
    assert {"search_cache", "allowances", "imports", "alembic_version"} <= names
    # every table the code declares exists after the migrations
    from litdesk.adapters.store._schema import metadata

    assert set(metadata.tables) <= names


@pytest.mark.no_store_template  # a store made here by the migrations
def test_sqlite_pragmas(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'x' / 'db.sqlite3'}")
    with s.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    s.dispose()


def test_unsupported_url_is_config_error():
    with pytest.raises(ConfigError):
        make_engine("mysql://x@localhost/db")
    with pytest.raises(ConfigError):
        make_engine("not a url")


def test_write_rolls_back_on_error(store: Store):
    paper = make_paper(pmid="1", title="A")
    with pytest.raises(RuntimeError), store.write() as conn:
        repo.insert_paper(conn, paper, NOW)
        raise RuntimeError("boom")
    with store.read() as conn, pytest.raises(NotFoundError):
        repo.get_paper(conn, paper.id, viewer="local")
    # foreign keys are enforced on both backends; the failure is a typed StoreError
    with pytest.raises(StoreError), store.write() as conn:
        repo.add_study_paper(conn, "no-such-study", "MED-1", NOW, paper_owner="local")


def test_paper_round_trip_and_keys(store: Store):
    paper = make_paper(pmid="12", doi="10.1234/abc", pmcid="PMC5", title="T", abstract="A b")
    with store.write() as conn:
        repo.insert_paper(conn, paper, NOW, status="to-read")
    with store.read() as conn:
        row = repo.get_paper(conn, "MED-12", viewer="local")
        found = repo.find_paper_ids(
            conn, ["doi:10.1234/abc", "pmcid:PMC5", "pmid:99"], owner="local"
        )
        elsewhere = repo.find_paper_ids(conn, ["doi:10.1234/abc"], owner="acct_other")
    assert row.paper == paper and row.status == "to-read"
    assert found == {"doi:10.1234/abc": "MED-12", "pmcid:PMC5": "MED-12"}
    assert elsewhere == {}  # one owner's keys never name another's record


def test_corrupt_stored_paper_is_integrity_error(store: Store):
    with store.write() as conn:
        conn.execute(
            sa.insert(papers).values(
                id="MED-7",
                data='{"version": 1, "id": "MED-7", "year": "x"}',
                created_at=NOW,
                updated_at=NOW,
            )
        )
        conn.execute(
            sa.insert(papers).values(id="MED-8", data="{not json", created_at=NOW, updated_at=NOW)
        )
    with store.read() as conn:
        with pytest.raises(IntegrityError):
            repo.get_paper(conn, "MED-7", viewer="local")
        with pytest.raises(IntegrityError):
            repo.get_paper(conn, "MED-8", viewer="local")


def test_search_runs(store: Store):
    save_search_run(
        store,
        "run-1",
        "alice",
        {"query": "crispr"},
        {"version": 2, "hits": []},
        executed_at="2026-11-30T10:00:00+00:00",
    )
    save_search_run(
        store,
        "run-2",
        "alice",
        {"query": "x"},
        {"version": 2},
        executed_at="2026-11-30T11:00:00+00:00",
    )
    save_search_run(store, "run-3", "bob", {"q": 1}, {"v": 1}, executed_at=NOW)
    assert get_search_run(store, "run-1").definition == {"query": "crispr"}
    assert [r.id for r in list_search_runs(store, "alice")] == ["run-2", "run-1"]
    with pytest.raises(NotFoundError):
        get_search_run(store, "run-3", owner="alice")
    with pytest.raises(InputError):
        save_search_run(store, "run-1", "alice", {}, {}, executed_at=NOW)
    with pytest.raises(InputError):
        save_search_run(store, "run-9", "alice", {}, {"x": "y" * 800_000}, executed_at=NOW)


def test_cache_claim_hit_wait_and_owner_scope(store: Store):
    assert cache_claim(store, "k", "alice", now=100.0).state == "claimed"
    waiting = cache_claim(store, "k", "alice", now=101.0)
    assert waiting.state == "wait" and waiting.until == 160.0
    assert cache_claim(store, "k", "bob", now=101.0).state == "claimed"  # never crosses owners
    cache_fill(store, "k", "alice", {"hits": [1, 2]}, ttl_seconds=300, now=102.0)
    hit = cache_claim(store, "k", "alice", now=103.0)
    assert hit.state == "hit" and hit.value == {"hits": [1, 2]}
    assert cache_get(store, "k", "alice", now=103.0) == {"hits": [1, 2]}
    assert cache_get(store, "k", "alice", now=500.0) is None
    assert cache_claim(store, "k", "alice", now=500.0).state == "claimed"  # expired
    cache_abandon(store, "k", "alice")
    assert cache_get(store, "k", "alice", now=501.0) is None
    assert cache_claim(store, "k", "alice", now=501.0).state == "claimed"
    assert cache_purge(store, now=10_000.0) == 2


def test_cache_claim_is_exclusive_under_concurrency(store: Store):
    results: list[str] = []
    barrier = threading.Barrier(6)

    def claim():
        barrier.wait()
        results.append(cache_claim(store, "same", "alice", now=1000.0).state)

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["claimed"] + ["wait"] * 5


DAY = date(2026, 11, 30)
AT = datetime(2026, 11, 30, 23, 0, tzinfo=UTC)


def test_allowance_owner_then_global_limits(store: Store):
    got = [reserve(store, "openalex", "alice", DAY, 5, 3, now=AT) for _ in range(4)]
    assert [g.allowed for g in got] == [True, True, True, False]
    assert got[3].reason == "owner_daily_limit" and got[3].retry_after == 3600
    assert reserve(store, "openalex", "bob", DAY, 5, 3, now=AT).allowed
    assert reserve(store, "openalex", "carol", DAY, 5, 3, now=AT).allowed
    denied = reserve(store, "openalex", "dave", DAY, 5, 3, now=AT)
    assert (denied.allowed, denied.reason) == (False, "daily_limit")
    assert usage(store, "openalex", DAY) == {"*": 5, "alice": 3, "bob": 1, "carol": 1}
    # a new UTC day resets; other providers are separate
    assert reserve(store, "openalex", "alice", date(2026, 12, 1), 5, 3).allowed
    assert reserve(store, "pubmed", "alice", DAY, 5, 3).allowed
    # the owner limit is capped at the global limit
    assert [reserve(store, "s2", "erin", DAY, 2, 50).allowed for _ in range(3)] == [
        True,
        True,
        False,
    ]


def test_allowance_is_atomic_under_concurrency(store: Store):
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        for _ in range(5):
            results.append(
                reserve(store, "openalex", f"o{threading.get_ident()}", DAY, 17, 100).allowed
            )

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(results) == 17
    assert usage(store, "openalex", DAY)["*"] == 17


def test_allowance_fails_closed_when_store_breaks(store: Store):
    with store.write() as conn:
        conn.execute(sa.text("DROP TABLE allowances"))
    got = reserve(store, "openalex", "alice", DAY, 5, 3)
    assert (got.allowed, got.reason) == (False, "store_unavailable")


def test_allowance_fails_closed_when_unreachable(tmp_path):
    bad = Store(make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1"))
    got = reserve(bad, "openalex", "alice", DAY, 5, 3)
    assert (got.allowed, got.reason) == (False, "store_unavailable")


def test_allowance_argument_errors(store: Store):
    with pytest.raises(InputError):
        reserve(store, "openalex", "*", DAY, 5, 3)
    with pytest.raises(InputError):
        reserve(store, "openalex", "alice", DAY, 0, 3)
    with pytest.raises(InputError):
        reserve(store, "", "alice", DAY, 5, 3)


def test_coalesce_runs_once_and_shares_the_result(store: Store):
    from litdesk.adapters.store import coalesce

    calls: list[int] = []
    outcomes: list[tuple] = []
    barrier = threading.Barrier(5)
    entered = threading.Semaphore(0)
    waiting: set[int] = set()  # the callers that found the search in flight and wait on it
    all_waiting = threading.Event()
    lock = threading.Lock()

    def produce():
        calls.append(1)
        # hold the work until every caller has gone into coalesce (a slow connection on a
        # loaded machine must not let a caller arrive after the result is cached) and the
        # four others have found the in-flight row and are waiting on it (their first poll's
        # sleep: coalesce sleeps only when the row is in flight, neither claimed nor a hit)
        for _ in range(5):
            assert entered.acquire(timeout=30)
        assert all_waiting.wait(timeout=30)
        return {"hits": ["a"]}, True

    def sleep(seconds: float) -> None:
        with lock:
            waiting.add(threading.get_ident())
            if len(waiting) == 4:
                all_waiting.set()
        time.sleep(seconds)

    def worker():
        barrier.wait()
        entered.release()
        outcomes.append(
            coalesce(store, "q", "alice", produce, ttl_seconds=300, poll_seconds=0.05, sleep=sleep)
        )

    threads = [threading.Thread(target=worker) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(waiting) == 4  # the four that did not run it waited on the in-flight row
    assert sorted(o[1] for o in outcomes) == ["coalesced"] * 4 + ["fresh"]
    assert all(o[0] == {"hits": ["a"]} for o in outcomes)
    assert coalesce(store, "q", "alice", produce, ttl_seconds=300) == ({"hits": ["a"]}, "cache")
    assert len(calls) == 1


def test_coalesce_failures_and_partial_results_are_not_cached(store: Store):
    from litdesk.adapters.store import coalesce

    def boom():
        raise RuntimeError("provider down")

    with pytest.raises(RuntimeError):
        coalesce(store, "q", "alice", boom, ttl_seconds=300)
    assert coalesce(store, "q", "alice", lambda: ("partial", False), ttl_seconds=300) == (
        "partial",
        "fresh",
    )
    assert cache_get(store, "q", "alice") is None
    assert coalesce(store, "q", "alice", lambda: ("full", True), ttl_seconds=300)[1] == "fresh"
    assert cache_get(store, "q", "alice") == "full"


def test_concurrent_saves_of_one_paper_never_duplicate(store: Store):
    from litdesk.services.workspace import Workspace

    ws = Workspace(store)
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def worker(i: int):
        barrier.wait()
        try:
            ws.save_paper(make_paper(pmid="77", doi="10.1234/same", title=f"t{i}"))
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(ws.papers()) == 1


@pytest.mark.parametrize("bad", ["", "..", "a/b", "../x", "run:1", "x" * 101, "a..b", ".hidden"])
def test_search_run_ids_are_safe_file_names(store: Store, bad: str):
    with pytest.raises(InputError):
        save_search_run(store, bad, "alice", {}, {}, executed_at=NOW)


def test_downgrade_then_open_upgrades_again(store_url: str):
    from alembic import command

    from litdesk.adapters.store._engine import _alembic_config

    s = open_store(store_url)
    with s.write() as conn:
        cfg = _alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert s.revision() is None
    assert "papers" not in sa.inspect(s.engine).get_table_names()
    s.dispose()
    s = open_store(store_url)
    assert s.revision() == _head()
    with s.write() as conn:
        repo.insert_paper(conn, make_paper(pmid="3"), NOW)
    s.dispose()


def test_unwritable_data_dir_is_config_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError):
        make_engine(f"sqlite:///{blocker / 'sub' / 'db.sqlite3'}")


@pytest.mark.no_store_template  # open_store makes the file private, not a template copy
def test_sqlite_file_is_private(tmp_path):
    import os
    import stat

    db = tmp_path / "p" / "litdesk.sqlite3"
    s = open_store(f"sqlite:///{db}")
    s.dispose()
    if os.name == "posix":
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
