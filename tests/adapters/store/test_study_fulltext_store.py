"""A Study's PDF links and full-text checks (migration 0016_study_fulltext) on SQLite and
PostgreSQL: one row per Study paper, replaced, dropped with the Study (foreign keys), and
the migration's downgrade and upgrade."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from litdesk.adapters.store import Store, fulltext, make_engine, open_store
from litdesk.adapters.store._engine import _alembic_config
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

REVISION = "0016_study_fulltext"


def test_links_and_checks_are_per_study_paper_and_go_with_the_study(store: Store) -> None:
    ws = Workspace(store)
    a, b = ws.create_study("A"), ws.create_study("B")
    paper = ws.save_paper(make_paper(title="Trial", doi="10.1000/t"), study=a.id).paper
    ws.add_to_study(b.id, paper.id)
    link = fulltext.PdfLinkRow(a.id, paper.id, "f" * 64, "t.pdf", "doi", "DOI on both",
                               "linked", "local", "2026-12-05T00:00:00+00:00")  # fmt: skip
    check = fulltext.FulltextCheckRow(a.id, paper.id, True, "PMC1", "CC BY", None, None,
                                      "local", "2026-12-05T00:00:00+00:00")  # fmt: skip
    with store.write() as conn:
        fulltext.put_pdf_link(conn, link)
        fulltext.put_pdf_link(conn, link.__class__(**{**_fields(link), "state": "rejected"}))
        fulltext.put_fulltext_check(conn, check)
    with store.read() as conn:
        assert fulltext.pdf_links(conn, a.id)[paper.id].state == "rejected"  # replaced
        assert fulltext.pdf_links(conn, b.id) == {}  # another Study's paper is its own
        assert fulltext.fulltext_checks(conn, a.id)[paper.id] == check
    with store.write() as conn:
        conn.execute(sa.text("DELETE FROM studies WHERE id = :id"), {"id": a.id})
    with store.read() as conn:
        assert fulltext.pdf_links(conn, a.id) == {} and fulltext.fulltext_checks(conn, a.id) == {}


def _fields(row: fulltext.PdfLinkRow) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__dataclass_fields__}


def test_the_migration_goes_down_and_up(empty_store_url: str) -> None:
    open_store(empty_store_url).dispose()  # at head
    before = ScriptDirectory.from_config(_alembic_config()).get_revision(REVISION).down_revision
    assert isinstance(before, str)
    for target, down in ((before, True), (REVISION, False)):
        engine = make_engine(empty_store_url)
        cfg = _alembic_config()
        try:
            with engine.connect() as conn:
                raw = conn.connection.dbapi_connection
                if engine.dialect.name == "sqlite" and raw is not None:
                    raw.execute("PRAGMA foreign_keys=OFF")
                with conn.begin():
                    cfg.attributes["connection"] = conn
                    (command.downgrade if down else command.upgrade)(cfg, target)
                tables = set(sa.inspect(conn).get_table_names())
        finally:
            engine.dispose()
        assert ({"study_pdf_links", "study_fulltext_checks"} <= tables) is not down
