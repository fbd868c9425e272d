"""Migration 0012_study_names on SQLite and PostgreSQL, from 0008 with data: every Study and
every row referencing one survive the SQLite table rebuild; afterwards names are unique per
owner (the constraint's real name on both engines), never across owners. Then 0014_study_name_index:
the constraint becomes a plain index (the store's code checks names where the caller sees
them), every row kept, and back."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from litdesk.adapters.store import Store, StoreError, open_store
from litdesk.adapters.store._engine import _alembic_config, make_engine

#: the tests of the migrations migrate their stores from zero (no template copy)
pytestmark = pytest.mark.no_store_template

NOW = "2026-11-30T12:00:00+00:00"
#: the revision just before this one (0008_recent_runs when written; wherever the chain puts it)
BEFORE = str(
    ScriptDirectory.from_config(_alembic_config()).get_revision("0012_study_names").down_revision
)


def _old_store(url: str) -> None:
    """A store just before 0012_study_names holding two Studies with papers, notes, runs, members, history."""
    engine = make_engine(url)
    cfg = _alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, BEFORE)
            run = sa.text
            conn.execute(
                run(
                    "INSERT INTO studies (id, name, description, created_at, owner) VALUES"
                    " ('study-a', 'Aspirin', 'first', :now, 'local'),"
                    " ('study-b', 'Statins', NULL, :now, 'acct_ana')"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO papers (id, data, created_at, updated_at, owner)"
                    " VALUES ('DOI-10.1/x', '{}', :now, :now, 'local')"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO study_papers (study_id, paper_id, added_at)"
                    " VALUES ('study-a', 'DOI-10.1/x', :now), ('study-b', 'DOI-10.1/x', :now)"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO notes (id, paper_id, study_id, data, created_at,"
                    " owner) VALUES ('note-1', 'DOI-10.1/x', 'study-a', '{}', :now,"
                    " 'local')"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO study_members (study_id, account_id, role, added_by, added_at)"
                    " VALUES ('study-b', 'acct_bob', 'viewer', 'acct_ana', :now)"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO study_history (study_id, account_id, action, target, at)"
                    " VALUES ('study-b', 'acct_ana', 'study_created', 'Statins', :now)"
                ),
                {"now": NOW},
            )
    finally:
        engine.dispose()


def _migrate(url: str, revision: str, *, down: bool = False) -> None:
    """Upgrade (or downgrade) to ``revision`` as the store migrates (SQLite: foreign-key
    enforcement off, set before the transaction begins)."""
    engine = make_engine(url)
    cfg = _alembic_config()
    try:
        with engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            if engine.dialect.name == "sqlite" and raw is not None:
                raw.execute("PRAGMA foreign_keys=OFF")
            with conn.begin():
                cfg.attributes["connection"] = conn
                (command.downgrade if down else command.upgrade)(cfg, revision)
    finally:
        engine.dispose()


def _counts(conn: sa.Connection) -> dict[str, int]:
    tables = ("studies", "study_papers", "notes", "study_members", "study_history", "papers")
    return {t: conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in tables}


def test_migration_keeps_every_row_and_makes_names_unique_per_owner(empty_store_url: str) -> None:
    _old_store(empty_store_url)
    # 0014_study_name_index drops the constraint again
    _migrate(empty_store_url, "0012_study_names")
    store = Store(make_engine(empty_store_url))
    try:
        with store.read() as conn:
            assert _counts(conn) == {
                "studies": 2,
                "study_papers": 2,
                "notes": 1,
                "study_members": 1,
                "study_history": 1,
                "papers": 1,
            }
            rows = conn.execute(
                sa.text("SELECT id, name, description, owner FROM studies ORDER BY id")
            ).all()
            assert [tuple(r) for r in rows] == [
                ("study-a", "Aspirin", "first", "local"),
                ("study-b", "Statins", None, "acct_ana"),
            ]
            note_study = conn.execute(sa.text("SELECT study_id FROM notes")).scalar_one()
            assert note_study == "study-a"
        inspector = sa.inspect(store.engine)
        uniques = {
            u["name"]: list(u["column_names"]) for u in inspector.get_unique_constraints("studies")
        }
        assert uniques == {"uq_studies_owner_name": ["owner", "name"]}, uniques
        assert "ix_studies_owner" in {i["name"] for i in inspector.get_indexes("studies")}
        # another owner may take a name; the same owner may not
        with store.write() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO studies (id, name, created_at, owner)"
                    " VALUES ('study-c', 'Statins', :now, 'acct_bob')"
                ),
                {"now": NOW},
            )
        try:
            with store.write() as conn:
                conn.execute(
                    sa.text(
                        "INSERT INTO studies (id, name, created_at, owner)"
                        " VALUES ('study-d', 'Statins', :now, 'acct_ana')"
                    ),
                    {"now": NOW},
                )
        except StoreError:
            pass
        else:
            raise AssertionError("a second 'Statins' of acct_ana was stored")
        # the references still hold: deleting a Study cascades as declared
        with store.write() as conn:
            conn.execute(sa.text("DELETE FROM studies WHERE id = 'study-a'"))
        with store.read() as conn:
            left = conn.execute(sa.text("SELECT study_id FROM study_papers")).scalars().all()
            assert left == ["study-b"]
            assert conn.execute(sa.text("SELECT study_id FROM notes")).scalar_one() is None
    finally:
        store.dispose()


def test_0014_makes_the_constraint_an_index_and_back(empty_store_url: str) -> None:
    _old_store(empty_store_url)
    _migrate(empty_store_url, "0013_import_uploads")
    store = open_store(empty_store_url)  # 0013 → head
    try:
        with store.read() as conn:
            assert _counts(conn)["study_papers"] == 2
        inspector = sa.inspect(store.engine)
        assert inspector.get_unique_constraints("studies") == []
        indexes = {i["name"]: i["column_names"] for i in inspector.get_indexes("studies")}
        assert indexes["ix_studies_owner_name"] == ["owner", "name"], indexes
        with store.write() as conn:  # the store's code decides now, not the database
            conn.execute(
                sa.text(
                    "INSERT INTO studies (id, name, created_at, owner)"
                    " VALUES ('study-d', 'Statins 2', :now, 'acct_ana'),"
                    " ('study-e', 'Statins 2', :now, 'acct_ana')"
                ),
                {"now": NOW},
            )
            conn.execute(sa.text("DELETE FROM studies WHERE id = 'study-e'"))
    finally:
        store.dispose()
    _migrate(empty_store_url, "0013_import_uploads", down=True)
    engine = make_engine(empty_store_url)
    try:
        uniques = sa.inspect(engine).get_unique_constraints("studies")
        assert [list(u["column_names"]) for u in uniques] == [["owner", "name"]], uniques
        with engine.connect() as conn:
            assert _counts(conn)["study_papers"] == 2
    finally:
        engine.dispose()


def test_foreign_keys_are_enforced_again_after_the_migration(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'fk.sqlite3'}"
    _old_store(url)
    store = open_store(url)
    try:
        with store.read() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
        try:
            with store.write() as conn:
                conn.execute(
                    sa.text(
                        "INSERT INTO study_papers (study_id, paper_id, added_at)"
                        " VALUES ('no-such-study', 'DOI-10.1/x', :now)"
                    ),
                    {"now": NOW},
                )
        except StoreError:
            pass
        else:
            raise AssertionError("a link to a Study that does not exist was stored")
    finally:
        store.dispose()


def test_downgrade_restores_server_wide_names(empty_store_url: str) -> None:
    _old_store(empty_store_url)
    open_store(empty_store_url).dispose()  # at head
    engine = make_engine(empty_store_url)
    cfg = _alembic_config()
    try:
        with engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            if engine.dialect.name == "sqlite" and raw is not None:  # as the store migrates
                raw.execute("PRAGMA foreign_keys=OFF")  # before the transaction begins
            with conn.begin():
                cfg.attributes["connection"] = conn
                command.downgrade(cfg, BEFORE)
        uniques = sa.inspect(engine).get_unique_constraints("studies")
        assert [list(u["column_names"]) for u in uniques] == [["name"]], uniques
        with engine.connect() as conn:
            assert _counts(conn)["study_papers"] == 2
    finally:
        engine.dispose()
