"""A regrouping writes only the records whose group or rule changed (issue 26: a Study of
thousands of records regrouped after a few came or went rewrote every record), on SQLite
and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url
from tests.services.studies.test_study_sources import RIS, on_app

from litdesk import Settings
from litdesk.adapters.store import study_records
from litdesk.services.app import App
from litdesk.services.studies import CreateStudyRequest, ImportRequest

__all__ = ["pg_schema", "store_url"]


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=store_url)


def test_set_groups_writes_only_what_changed(settings: Settings, tmp_path: Path) -> None:
    ris = tmp_path / "two.ris"
    ris.write_text(RIS, encoding="utf-8")

    def body(app: App) -> None:
        sid = app.studies.create_study(CreateStudyRequest("Writes", None), owner=app.owner).id
        app.studies.import_files(ImportRequest(study=sid, paths=(str(ris),)), owner=app.owner)
        with app.store.read() as conn:
            rows = study_records.list_records(conn, sid)
        held = [(r.key, r.grp, r.rule) for r in rows]
        assert len(held) == 2 and all(g for _, g, _ in held)
        with app.store.write() as conn:
            assert study_records.set_groups(conn, sid, held) == 0
            changed = [(held[0][0], held[0][1], "a reviewer's rule"), *held[1:]]
            assert study_records.set_groups(conn, sid, changed) == 1
            # a record that is not the Study's is not written either
            assert study_records.set_groups(conn, sid, [("nobody:0", "x", "y")]) == 0
        with app.store.read() as conn:
            after = [(r.key, r.grp, r.rule) for r in study_records.list_records(conn, sid)]
        assert after == changed

    on_app(settings, body)
