"""The PostgreSQL connection pool: a pooled connection idle longer than
``PING_IDLE_SECONDS`` is pinged before use and replaced when it died (a server restart, an
idle timeout), while one given back moments ago is used without the extra round trip."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from litdesk.adapters.store import StoreError, open_store
from litdesk.adapters.store import _engine as engine_module


def _kill(url: str, pid: int) -> None:
    other = sa.create_engine(url)
    try:
        with other.connect() as conn:
            assert conn.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
        alive = sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :p")
        deadline = time.monotonic() + 30
        while True:  # until the backend has gone
            with other.connect() as conn:
                if not conn.execute(alive, {"p": pid}).scalar():
                    break
            assert time.monotonic() < deadline, f"backend {pid} did not go"
            time.sleep(0.01)
    finally:
        other.dispose()


def _pid(store: engine_module.Store) -> int:
    with store.read() as conn:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


def test_a_dead_idle_connection_is_replaced_and_a_recent_one_is_not_pinged(
    pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(pg_schema)
    try:
        assert store.engine.pool.size() == engine_module.POOL_MAX
        # idle "long enough" (bound 0 s): pinged, found dead, replaced — the read works
        monkeypatch.setattr(engine_module, "PING_IDLE_SECONDS", 0.0)
        first = _pid(store)
        _kill(pg_schema, first)
        second = _pid(store)
        assert second != first
        # given back moments ago (bound 1 h): no ping, so a connection that died meanwhile
        # fails this one transaction (which is what the idle ping is there to avoid) ...
        monkeypatch.setattr(engine_module, "PING_IDLE_SECONDS", 3600.0)
        _kill(pg_schema, second)
        with pytest.raises(StoreError):
            _pid(store)
        # ... and the pool, told of the disconnect, opens a new one for the next
        assert _pid(store) not in (first, second)
    finally:
        store.dispose()


def test_the_pool_cap_comes_from_the_settings(pg_schema: str, tmp_path) -> None:
    from litdesk import Settings

    store = open_store(Settings(database_url=pg_schema, data_dir=tmp_path, database_pool_max=8))
    try:
        pool = store.engine.pool
        assert pool.size() == 8 and pool._max_overflow == 0  # type: ignore[attr-defined]
    finally:
        store.dispose()
