"""The per-test copies of the migrated template (``tests/_store_template.py``) are the
store a migration from zero makes, and ``open_store`` on a store at head migrates nothing."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from tests._store_template import (
    PgTemplate,
    TemplateError,
    pg_schema_url,
    sqlite_url_at_head,
)
from tests.adapters.store._pg_shape import pg_shape

from litdesk.adapters.store import open_store
from litdesk.adapters.store._engine import _script_head


def test_a_postgres_clone_is_the_schema_the_migrations_make(
    pg_template: PgTemplate, migrated_from_zero: tuple[sa.Engine, str]
) -> None:
    engine, fresh = migrated_from_zero
    expected = pg_shape(engine, fresh)
    assert len(expected["relations"]) > 50 and expected["rows"]["alembic_version"]
    with pg_template.schema_at_head() as clone:
        assert pg_shape(engine, clone) == expected


def test_postgres_clones_are_independent(pg_schema: str, pg_template: PgTemplate) -> None:
    with pg_template.schema_at_head() as other:
        stores = [open_store(pg_schema), open_store(pg_schema_url(pg_template.base_url, other))]
        try:
            seqs = []
            for store, n in zip(stores, (3, 1), strict=True):
                with store.write() as conn:
                    for i in range(n):
                        conn.execute(
                            sa.text("INSERT INTO login_failures (scope, at) VALUES (:s, :at)"),
                            {"s": f"s{i}", "at": float(i)},
                        )
                with store.read() as conn:
                    top = conn.execute(sa.text("SELECT max(seq) FROM login_failures"))
                    seqs.append(top.scalar_one())
        finally:
            for store in stores:
                store.dispose()
    assert seqs == [3, 1]  # each clone has its own rows and its own sequence


def test_a_template_holding_what_the_clone_does_not_copy_is_refused(postgres_url: str) -> None:
    template = PgTemplate(postgres_url, spares=0)
    try:
        with template.engine.begin() as conn:
            conn.execute(sa.text(f'CREATE VIEW "{template.schema}".v AS SELECT 1 AS one'))
        with pytest.raises(TemplateError, match="views"):
            template._script()
    finally:
        template.close()
    engine = sa.create_engine(postgres_url)
    try:
        with engine.connect() as conn:
            left = conn.execute(
                sa.text("SELECT count(*) FROM pg_namespace WHERE nspname = :s"),
                {"s": template.schema},
            ).scalar_one()
    finally:
        engine.dispose()
    assert left == 0  # closing dropped the template


def _sqlite_shape(path: Path) -> tuple[list[Any], list[Any]]:
    with sqlite3.connect(path) as conn:
        schema = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        ).fetchall()
        version = conn.execute("SELECT * FROM alembic_version").fetchall()
    conn.close()
    return schema, version


@pytest.mark.no_store_template  # `fresh` is migrated from zero
def test_a_sqlite_copy_is_the_store_the_migrations_make(
    sqlite_template: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh" / "litdesk.sqlite3"
    open_store(f"sqlite:///{fresh}").dispose()
    copy = tmp_path / "copy" / "litdesk.sqlite3"
    sqlite_url_at_head(sqlite_template, copy)
    assert _sqlite_shape(copy) == _sqlite_shape(fresh)
    assert _sqlite_shape(copy)[1] == [(_script_head(),)]
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600


def test_tmp_settings_holds_a_store_at_head(tmp_settings: Any) -> None:
    url = tmp_settings.resolved_database_url()
    assert Path(url.removeprefix("sqlite:///")).is_file()
    store = open_store(url)
    try:
        assert store.revision() == _script_head()
    finally:
        store.dispose()


@pytest.mark.no_store_template
def test_tmp_settings_marked_no_store_template_is_empty(tmp_settings: Any) -> None:
    assert not tmp_settings.resolved_data_dir().exists()


def test_opening_a_store_at_head_runs_no_migration(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("alembic ran on a store at head")

    monkeypatch.setattr(command, "upgrade", refuse)
    store = open_store(store_url)
    try:
        assert store.revision() == _script_head()
    finally:
        store.dispose()


def test_a_new_sqlite_store_a_test_opens_is_a_copy_of_the_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("alembic ran on a store made in a test")

    monkeypatch.setattr(command, "upgrade", refuse)
    store = open_store(f"sqlite:///{tmp_path / 'new' / 'litdesk.sqlite3'}")
    try:
        assert store.revision() == _script_head()
    finally:
        store.dispose()


def test_opening_an_empty_store_still_migrates(empty_store_url: str) -> None:
    store = open_store(empty_store_url)
    try:
        assert store.revision() == _script_head() is not None
    finally:
        store.dispose()
