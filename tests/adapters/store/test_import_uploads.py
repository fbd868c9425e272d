"""Migration 0013_import_uploads and the uploads of import jobs on SQLite and PostgreSQL:
the table comes with the head and goes with a downgrade; the bytes come back checked
against their SHA-256, a changed byte is refused, and only the holder of a job records it."""

from __future__ import annotations

import hashlib

import pytest
import sqlalchemy as sa
from alembic import command

from litdesk.adapters.store import (
    Store,
    StoredDataInvalid,
    drop_import_uploads,
    import_uploads,
    put_import_uploads,
    record_import_done,
    sweep_import_uploads,
)
from litdesk.adapters.store._engine import _alembic_config, make_engine
from litdesk.adapters.store._uploads import import_uploads_table
from litdesk.services.jobs import Jobs


def test_uploads_round_trip_and_are_checked(store: Store) -> None:
    files = [("a.ris", b"TY  - JOUR\nER  -\n"), ("b.bin", bytes(range(256)) * 40)]
    with store.write() as conn:
        put_import_uploads(conn, "f" * 32, files)
    with store.read() as conn:
        got = import_uploads(conn, "f" * 32)
    assert [(u.no, u.name, u.data) for u in got] == [
        (0, "a.ris", files[0][1]),
        (1, "b.bin", files[1][1]),
    ]
    assert [u.sha256 for u in got] == [hashlib.sha256(d).hexdigest() for _n, d in files]
    with store.write() as conn:
        t = import_uploads_table
        conn.execute(sa.update(t).where(t.c.no == 1).values(data=b"changed"))
    with store.read() as conn, pytest.raises(StoredDataInvalid):
        import_uploads(conn, "f" * 32)
    with store.write() as conn:
        assert drop_import_uploads(conn, "f" * 32) == 2


def test_only_the_job_s_holder_records_it(store: Store) -> None:
    jobs = Jobs(store)
    view = jobs.submit("imports.study", {"study_id": "s"}, owner="local")
    with store.write() as conn:
        put_import_uploads(conn, view.id, [("a.ris", b"x")])
    held = jobs.claim(["imports.study"], "w1", lease_s=30)
    assert held is not None
    with store.write() as conn:
        assert record_import_done(conn, view.id, "w2", {"result": {}}) is False
    with store.read() as conn:
        assert len(import_uploads(conn, view.id)) == 1
    with store.write() as conn:
        assert record_import_done(conn, view.id, "w1", {"result": {"n": 1}}) is True
    with store.read() as conn:
        assert import_uploads(conn, view.id) == []
    assert jobs.repo.get(view.id).checkpoint == {"result": {"n": 1}}  # type: ignore[union-attr]


def test_the_migration_goes_down_and_up(empty_store_url: str) -> None:
    engine = make_engine(empty_store_url)
    cfg = _alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0013_import_uploads")
            assert "import_uploads" in sa.inspect(conn).get_table_names()
            command.downgrade(cfg, "0012_study_names")
            assert "import_uploads" not in sa.inspect(conn).get_table_names()
            command.upgrade(cfg, "0013_import_uploads")
            assert "import_uploads" in sa.inspect(conn).get_table_names()
    finally:
        engine.dispose()


def test_the_sweep_keeps_active_jobs_files_and_fresh_ones(store: Store) -> None:
    jobs = Jobs(store)
    active = jobs.submit("imports.study", {"study_id": "s"}, owner="local")
    ended = jobs.submit("imports.study", {"study_id": "s"}, owner="local")
    jobs.cancel(ended.id, owner="local")
    with store.write() as conn:
        for job_id in (active.id, ended.id, "a" * 32, "b" * 32):
            put_import_uploads(conn, job_id, [("a.ris", b"x")])
        t = import_uploads_table
        old = "2000-01-01T00:00:00.000000+00:00"
        conn.execute(sa.update(t).where(t.c.job_id == "b" * 32).values(created_at=old))
        assert sweep_import_uploads(conn) == 2  # the ended job's, the old orphan's
    with store.read() as conn:
        left = {r[0] for r in conn.execute(sa.select(import_uploads_table.c.job_id))}
    assert left == {active.id, "a" * 32}  # an id about to be queued keeps its files
