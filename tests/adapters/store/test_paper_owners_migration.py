"""Migration 0026_paper_owners on SQLite and PostgreSQL, from the revision before it with
data: a record two accounts saved becomes two records (each with its keys, the saver's
reading status), Study links keep the record they held, notes survive; afterwards the same
id may be stored under two owners and the composite references cascade."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from litdesk.adapters.store import Store, open_store
from litdesk.adapters.store._engine import _alembic_config, make_engine

#: the tests of the migrations migrate their stores from zero (no template copy)
pytestmark = pytest.mark.no_store_template

NOW = "2026-12-05T12:00:00+00:00"
BEFORE = str(
    ScriptDirectory.from_config(_alembic_config()).get_revision("0026_paper_owners").down_revision
)
P1 = '{"version": 1, "id": "DOI-1", "title": "Ana wrote it", "doi": "10.1/x"}'
P2 = '{"version": 1, "id": "MED-2", "title": "Only Bob", "pmid": "2"}'


def _old_store(url: str) -> None:
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
                    " ('study-a', 'Aspirin', NULL, :now, 'acct_ana'),"
                    " ('study-b', 'Statins', NULL, :now, 'acct_bob')"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO papers (id, data, status, created_at, updated_at, owner) VALUES"
                    " ('DOI-1', :p1, NULL, :now, :now, 'acct_ana'),"
                    " ('MED-2', :p2, NULL, :now, :now, 'acct_bob')"
                ),
                {"now": NOW, "p1": P1, "p2": P2},
            )
            conn.execute(
                run(
                    "INSERT INTO paper_keys (key, paper_id) VALUES ('id:DOI-1', 'DOI-1'),"
                    " ('doi:10.1/x', 'DOI-1'), ('id:MED-2', 'MED-2'), ('pmid:2', 'MED-2')"
                )
            )
            conn.execute(
                run(
                    "INSERT INTO paper_savers (paper_id, account_id, saved_at, status) VALUES"
                    " ('DOI-1', 'acct_ana', :now, 'read'), ('DOI-1', 'acct_bob', :now, 'reading'),"
                    " ('MED-2', 'acct_bob', :now, NULL)"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO study_papers (study_id, paper_id, added_at) VALUES"
                    " ('study-a', 'DOI-1', :now), ('study-b', 'DOI-1', :now),"
                    " ('study-b', 'MED-2', :now)"
                ),
                {"now": NOW},
            )
            conn.execute(
                run(
                    "INSERT INTO notes (id, paper_id, study_id, data, created_at, owner)"
                    " VALUES ('note-1', 'DOI-1', 'study-b', '{}', :now, 'acct_bob')"
                ),
                {"now": NOW},
            )
    finally:
        engine.dispose()


def test_shared_records_are_split_per_owner(empty_store_url: str) -> None:
    _old_store(empty_store_url)
    store = open_store(empty_store_url)  # BEFORE → head (as a server would migrate)
    try:
        with store.read() as conn:
            rows = conn.execute(
                sa.text("SELECT owner, id, data, status FROM papers ORDER BY owner, id")
            ).all()
            assert [(r.owner, r.id, r.status) for r in rows] == [
                ("acct_ana", "DOI-1", None),
                ("acct_bob", "DOI-1", "reading"),
                ("acct_bob", "MED-2", None),
            ]
            assert rows[0].data == rows[1].data == P1
            keys = conn.execute(
                sa.text("SELECT owner, key, paper_id FROM paper_keys ORDER BY owner, key")
            ).all()
            assert [tuple(k) for k in keys] == [
                ("acct_ana", "doi:10.1/x", "DOI-1"),
                ("acct_ana", "id:DOI-1", "DOI-1"),
                ("acct_bob", "doi:10.1/x", "DOI-1"),
                ("acct_bob", "id:DOI-1", "DOI-1"),
                ("acct_bob", "id:MED-2", "MED-2"),
                ("acct_bob", "pmid:2", "MED-2"),
            ]
            links = conn.execute(
                sa.text(
                    "SELECT study_id, paper_id, paper_owner FROM study_papers"
                    " ORDER BY study_id, paper_id"
                )
            ).all()
            assert [tuple(r) for r in links] == [
                ("study-a", "DOI-1", "acct_ana"),
                ("study-b", "DOI-1", "acct_ana"),
                ("study-b", "MED-2", "acct_bob"),
            ]
            assert conn.execute(sa.text("SELECT paper_id FROM notes")).scalar_one() == "DOI-1"
        # one id under a third owner is a new record; a key names its owner's record only
        with store.write() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO papers (id, data, created_at, updated_at, owner)"
                    " VALUES ('DOI-1', :p1, :now, :now, 'acct_cy')"
                ),
                {"now": NOW, "p1": P1},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO paper_keys (owner, key, paper_id)"
                    " VALUES ('acct_cy', 'doi:10.1/x', 'DOI-1')"
                )
            )
        bad = Store(make_engine(empty_store_url))
        try:
            try:
                with bad.write() as conn:  # a key naming a record its owner does not have
                    conn.execute(
                        sa.text(
                            "INSERT INTO paper_keys (owner, key, paper_id)"
                            " VALUES ('acct_cy', 'pmid:2', 'MED-2')"
                        )
                    )
            except Exception:  # noqa: BLE001 - either engine's integrity error
                pass
            else:
                raise AssertionError("a key naming another owner's record was stored")
        finally:
            bad.dispose()
        # deleting a record takes its keys and Study links (composite references cascade)
        with store.write() as conn:
            conn.execute(sa.text("DELETE FROM papers WHERE owner = 'acct_ana' AND id = 'DOI-1'"))
        with store.read() as conn:
            left = conn.execute(
                sa.text("SELECT study_id, paper_owner FROM study_papers ORDER BY study_id")
            ).all()
            assert [tuple(r) for r in left] == [("study-b", "acct_bob")]
            owners = conn.execute(
                sa.text("SELECT DISTINCT owner FROM paper_keys WHERE paper_id = 'DOI-1'")
            ).scalars()
            assert sorted(owners) == ["acct_bob", "acct_cy"]
    finally:
        store.dispose()


def test_going_down_keeps_the_oldest_record_of_each_paper(empty_store_url: str) -> None:
    _old_store(empty_store_url)
    open_store(empty_store_url).dispose()  # up to head
    engine = make_engine(empty_store_url)
    cfg = _alembic_config()
    try:
        with engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            if engine.dialect.name == "sqlite" and raw is not None:
                raw.execute("PRAGMA foreign_keys=OFF")
            with conn.begin():
                cfg.attributes["connection"] = conn
                command.downgrade(cfg, BEFORE)
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT id, owner, data FROM papers ORDER BY id")).all()
            assert [(r.id, r.owner) for r in rows] == [("DOI-1", "acct_ana"), ("MED-2", "acct_bob")]
            keys = conn.execute(sa.text("SELECT key, paper_id FROM paper_keys ORDER BY key")).all()
            assert len(keys) == 4 and {k.paper_id for k in keys} == {"DOI-1", "MED-2"}
            links = conn.execute(sa.text("SELECT count(*) FROM study_papers")).scalar_one()
            assert links == 3
            assert conn.execute(sa.text("SELECT count(*) FROM notes")).scalar_one() == 1
    finally:
        engine.dispose()
    open_store(empty_store_url).dispose()  # and up again
