"""Several papers saved into a Study at once (issue 26), on SQLite and PostgreSQL: a history
line per paper, in the order they were saved, as one by one — written in one statement
(one per paper before: a round trip each on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync

__all__ = ["pg_schema", "store_url"]

COUNT = 120


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def test_papers_saved_into_a_study_have_their_history_lines_in_one_statement(app: App) -> None:
    ws = app.workspace("acct_ana")
    study = ws.create_study("Saved at once")
    ws.save_paper(make_paper(pmid="1", title="Known before"), study=study.id)
    papers = [make_paper(pmid=str(i + 1), title=f"Paper {i}") for i in range(COUNT)]
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_a: Any) -> None:
        seen.append(" ".join(statement.split()))

    sa.event.listen(app.store.engine, "before_cursor_execute", note)
    try:
        saved = ws.save_papers(papers, study=study.id)
    finally:
        sa.event.remove(app.store.engine, "before_cursor_execute", note)
    assert [r.paper.id for r in saved] == [p.id for p in papers]
    assert sum(s.startswith("INSERT INTO study_history") for s in seen) == 1, seen  # 120 before

    with app.store.read() as conn:
        lines = access.list_history(conn, study.id)[::-1]  # oldest first
    added = [(line.account_id, line.action, line.target) for line in lines[-COUNT:]]
    # one line per paper saved, the one saved before too (it is saved again), in order
    assert added == [("acct_ana", "paper_added", p.id) for p in papers]
    seqs = [line.seq for line in lines]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert len({line.at for line in lines[-COUNT:]}) == 1  # one transaction, one time
