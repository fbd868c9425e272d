"""Migration 0030_rounds_run_joined_at on SQLite and PostgreSQL, from the revision before it
with a kept run: the link's join time is the run's execution time (what stood in until
then, so no Study's flow changes by the upgrade); a link made afterwards keeps its own; the
downgrade drops the column."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from litdesk.adapters.store import open_store, repo, study_records
from litdesk.adapters.store._engine import _alembic_config, make_engine

#: the tests of the migrations migrate their stores from zero (no template copy)
pytestmark = pytest.mark.no_store_template

RAN = "2026-11-01T08:00:00+00:00"
NOW = "2026-12-05T12:00:00+00:00"


def test_old_links_join_when_their_run_ran(empty_store_url: str) -> None:
    engine = make_engine(empty_store_url)
    cfg = _alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0029_zipreview_study_zotero")
            conn.execute(
                sa.text(
                    "INSERT INTO studies (id, name, description, created_at, owner) VALUES"
                    " ('study-a', 'Aspirin', NULL, :now, 'local')"
                ),
                {"now": NOW},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO search_runs (id, owner, definition, run, created_at,"
                    " executed_at) VALUES ('run1', 'local', '{}', '{}', :now, :ran),"
                    " ('run2', 'local', '{}', '{}', :now, :ran)"
                ),
                {"now": NOW, "ran": RAN},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO study_search_runs (study_id, run_id) VALUES ('study-a', 'run1')"
                )
            )
            command.upgrade(cfg, "0030_rounds_run_joined_at")
            assert conn.execute(sa.text("SELECT added_at FROM study_search_runs")).all() == [(RAN,)]
    finally:
        engine.dispose()
    store = open_store(empty_store_url)
    try:
        with store.write() as conn:
            repo.add_study_search_run(conn, "study-a", "run2", at=NOW)
        with store.read() as conn:
            joined = {s.id: s.at for s in study_records.study_sources(conn, "study-a")}
        assert joined == {"run1": RAN, "run2": NOW}
    finally:
        store.dispose()
    engine = make_engine(empty_store_url)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0029_zipreview_study_zotero")
            columns = {c["name"] for c in sa.inspect(conn).get_columns("study_search_runs")}
            assert columns == {"study_id", "run_id"}
    finally:
        engine.dispose()
