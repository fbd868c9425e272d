"""Migration 0034_blindmodel_reviewer_models on SQLite and PostgreSQL, from the revision
before it with a stored model: the row becomes the shared model (reviewer ``''``, read as
before); a reviewer's own model is stored beside it under the same Study and stage, with
versions of its own; deleting the Study deletes both; the downgrade keeps the shared row
and drops the reviewers' ones."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from litdesk.adapters.store import open_store, screening
from litdesk.adapters.store._engine import _alembic_config, make_engine

#: the tests of the migrations migrate their stores from zero (no template copy)
pytestmark = pytest.mark.no_store_template

NOW = "2026-12-07T12:00:00+00:00"
TA = "title_abstract"


def test_stored_scores_become_the_shared_model(empty_store_url: str) -> None:
    engine = make_engine(empty_store_url)
    cfg = _alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0033_clijobs_job_bound")
            conn.execute(
                sa.text(
                    "INSERT INTO studies (id, name, description, created_at, owner) VALUES"
                    " ('study-a', 'Aspirin', NULL, :now, 'local')"
                ),
                {"now": NOW},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO screening_models (study_id, stage, version, trained_on,"
                    " scores, trained_at, model) VALUES ('study-a', :stage, 4, 9,"
                    " '{\"r1\": 0.75}', :now, NULL)"
                ),
                {"stage": TA, "now": NOW},
            )
            command.upgrade(cfg, "0034_blindmodel_reviewer_models")
            rows = conn.execute(sa.text("SELECT reviewer, version FROM screening_models")).all()
            assert rows == [("", 4)]
    finally:
        engine.dispose()
    store = open_store(empty_store_url)
    try:
        with store.write() as conn:
            mine = screening.put_model(
                conn, "study-a", TA, trained_on=2, scores={"r1": 0.1}, trained_at=NOW,
                reviewer="acct_bob",
            )  # fmt: skip
        assert mine == 1  # a reviewer's versions count on their own
        with store.read() as conn:
            shared = screening.get_model(conn, "study-a", TA)
            bob = screening.get_model(conn, "study-a", TA, "acct_bob")
            assert screening.model_version(conn, "study-a", TA, "acct_ana") is None
        assert shared is not None and (shared.version, shared.trained_on) == (4, 9)
        assert shared.scores == {"r1": 0.75}
        assert bob is not None and (bob.version, bob.scores) == (1, {"r1": 0.1})
        with store.write() as conn:  # the shared one's next version leaves bob's alone
            assert screening.put_model(conn, "study-a", TA, trained_on=10, scores={},
                                       trained_at=NOW) == 5  # fmt: skip
        with store.read() as conn:
            assert screening.model_version(conn, "study-a", TA, "acct_bob") == (1, 2)
    finally:
        store.dispose()
    engine = make_engine(empty_store_url)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0033_clijobs_job_bound")
            columns = {c["name"] for c in sa.inspect(conn).get_columns("screening_models")}
            assert "reviewer" not in columns
            rows = conn.execute(sa.text("SELECT stage, version FROM screening_models")).all()
            assert rows == [(TA, 5)]
            key = sa.inspect(conn).get_pk_constraint("screening_models")["constrained_columns"]
            assert key == ["study_id", "stage"]
            command.upgrade(cfg, "0034_blindmodel_reviewer_models")
            key = sa.inspect(conn).get_pk_constraint("screening_models")["constrained_columns"]
            assert key == ["study_id", "stage", "reviewer"]
            fks = sa.inspect(conn).get_foreign_keys("screening_models")
            assert [(f["referred_table"], f["options"].get("ondelete")) for f in fks] == [
                ("studies", "CASCADE")
            ]
    finally:
        engine.dispose()
