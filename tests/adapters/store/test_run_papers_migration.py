"""Migration 0031_keptrun_run_papers on SQLite and PostgreSQL, from the revision before it: a
whole search's link notes its papers taken when it joined (its commit made them the Study's
papers); a run kept before the migration keeps ``NULL`` (the Study's reconcile takes its
papers); a link made afterwards by a keep notes them; the downgrade drops the column."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from litdesk.adapters.store import open_store, repo
from litdesk.adapters.store._engine import _alembic_config, make_engine

#: the tests of the migrations migrate their stores from zero (no template copy)
pytestmark = pytest.mark.no_store_template

RAN = "2026-11-01T08:00:00+00:00"
NOW = "2026-12-05T12:00:00+00:00"


def test_whole_searches_have_their_papers_kept_runs_wait(empty_store_url: str) -> None:
    engine = make_engine(empty_store_url)
    cfg = _alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0030_rounds_run_joined_at")
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
                    " executed_at) VALUES ('whole', 'local', '{}', '{}', :now, :ran),"
                    " ('kept', 'local', '{}', '{}', :now, :ran),"
                    " ('later', 'local', '{}', '{}', :now, :ran)"
                ),
                {"now": NOW, "ran": RAN},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO study_search_runs (study_id, run_id, added_at) VALUES"
                    " ('study-a', 'whole', :ran), ('study-a', 'kept', :now)"
                ),
                {"now": NOW, "ran": RAN},
            )
            conn.execute(
                sa.text(
                    'INSERT INTO study_search_rounds (study_id, run_id, round, kind, cap, "by",'
                    " created_at) VALUES ('study-a', 'whole', 0, 'search', 100, 'local', :ran)"
                ),
                {"ran": RAN},
            )
            command.upgrade(cfg, "0031_keptrun_run_papers")
            rows = conn.execute(
                sa.text("SELECT run_id, papers_at FROM study_search_runs ORDER BY run_id")
            ).all()
            assert [tuple(r) for r in rows] == [("kept", None), ("whole", RAN)]
    finally:
        engine.dispose()
    store = open_store(empty_store_url)
    try:
        with store.read() as conn:
            assert repo.runs_without_papers(conn, "study-a") == [("kept", "local")]
        with store.write() as conn:
            assert repo.add_study_search_run(conn, "study-a", "later", at=NOW, papers_at=NOW)
            assert not repo.add_study_search_run(conn, "study-a", "later", at=NOW)  # once
            repo.mark_run_papers(conn, "study-a", "kept", at=NOW)
        with store.read() as conn:
            assert repo.runs_without_papers(conn, "study-a") == []
    finally:
        store.dispose()
    engine = make_engine(empty_store_url)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0030_rounds_run_joined_at")
            columns = {c["name"] for c in sa.inspect(conn).get_columns("study_search_runs")}
            assert columns == {"study_id", "run_id", "added_at"}
    finally:
        engine.dispose()
