"""The working set does no more work than asked (issue 26), on SQLite and PostgreSQL: a
regrouping writes only the records whose group or rule changed (a Study of thousands of
records regrouped after a few came or went rewrote every record); a group's merged record
is merged when read, once (the PRISMA flow merged every group's and read none)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url
from tests.services.studies.test_study_sources import RIS, on_app

from litdesk import Settings
from litdesk.adapters.store import study_records
from litdesk.services.app import App
from litdesk.services.dedup import _working_set, working_groups
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


def test_a_groups_record_is_merged_when_read_once(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ris = tmp_path / "twice.ris"
    ris.write_text(RIS, encoding="utf-8")
    again = tmp_path / "again.ris"  # the same records from another database: one group each
    again.write_text(RIS + "\n", encoding="utf-8")
    merged: list[int] = []
    real = _working_set.merged_paper

    def counted(members: tuple[object, ...]) -> object:
        merged.append(len(members))
        return real(members)  # type: ignore[arg-type]

    def body(app: App) -> None:
        sid = app.studies.create_study(CreateStudyRequest("Merges", None), owner=app.owner).id
        app.studies.import_files(
            ImportRequest(study=sid, paths=(str(ris), str(again))), owner=app.owner
        )
        monkeypatch.setattr(_working_set, "merged_paper", counted)
        flow = app.studies.prisma(sid, owner=app.owner).report["identification"]
        assert isinstance(flow, dict) and flow["records_after_deduplication"] == 2
        assert merged == []  # the flow counts groups and members: nothing merged
        groups = working_groups(app.store, sid)
        assert [len(g.members) for g in groups] == [2, 2]
        first = groups[0].paper
        assert groups[0].paper is first and merged == [2]  # merged once, when read
        assert first == real(groups[0].members)
        assert first.title == "Aspirin and stroke in older adults"

    on_app(settings, body)
