"""Stores at the newest migration without migrating per test.

The migrations run once per test session (once per xdist worker) into a template; each
test gets a copy of it:

* SQLite — :func:`build_sqlite_template` migrates a file once; :func:`copy_sqlite_template`
  copies it to where a test's store lives (``<data dir>/litdesk.sqlite3`` for settings, as
  :meth:`litdesk.Settings.resolved_database_url` names it), so ``open_store`` finds the
  schema at head and only reads its revision.
* PostgreSQL — :class:`PgTemplate` migrates a schema of its own once, reads from the
  catalog how to rebuild it (sequences, tables, defaults, constraints, indexes, rows) and
  replays that as one script into a new schema: one round trip instead of the whole
  Alembic chain. A template holding anything the clone does not copy (views, types,
  functions, triggers…) is refused with :class:`TemplateError`, and
  ``tests/adapters/store/test_template.py`` checks that a clone matches a schema migrated
  from zero. A schema a test gives back is emptied and handed to the next test instead of
  being dropped (``tests/_pg_reuse.py``: a few ms against half a second to clone and as
  much to drop), unless the test changed its structure or statistics or still holds it;
  ``tests/adapters/store/test_pg_reuse.py`` checks that it comes back as the schema the
  migrations make. A fresh database per test (``CREATE DATABASE … TEMPLATE``) was measured and not
  taken: its ``DROP DATABASE`` waits for a checkpoint (1–100 s on a loaded machine).

Tests of the migrations themselves keep an empty store (``empty_store_url``, ``pg_empty``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
import threading
import uuid
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from litdesk import LitdeskError
from litdesk.adapters.store import open_store
from tests._pg_reuse import ResetPlan, fingerprint, reset_plan, statistics
from tests._pg_reuse import ident as _ident

__all__ = [
    "store_at_head",
    "STORE_FILE",
    "PgTemplate",
    "TemplateError",
    "build_sqlite_template",
    "copy_sqlite_template",
    "create_schema",
    "drop_schema",
    "KEEP_EMPTY",
    "ensure_sqlite_at_head",
    "keep_empty",
    "new_sqlite_at_head",
    "pg_schema_url",
    "process_sqlite_template",
    "sqlite_path",
    "sqlite_url_at_head",
]

#: the store's file name in a data directory (``Settings.resolved_database_url``)
STORE_FILE = "litdesk.sqlite3"


class TemplateError(LitdeskError):
    """The migrated template holds something the per-test clone would not copy."""

    default_code = "store_template"


# --- SQLite -------------------------------------------------------------------------------


#: the templates being migrated (in this process)
_building: set[Path] = set()


def build_sqlite_template(folder: Path) -> Path:
    """A SQLite store migrated to head in ``folder``, its write-ahead log folded into the
    file (so the file alone is the whole store)."""
    path = folder / STORE_FILE
    _building.add(path)  # migrated here, not copied from itself (new_sqlite_at_head)
    try:
        open_store(f"sqlite:///{path}").dispose()
    finally:
        _building.discard(path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def sqlite_path(url: str) -> Path:
    """The file of the SQLite store at ``url`` (as the engine opens it)."""
    database = sa.make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        raise TemplateError(f"not a SQLite file URL: {url}")
    return Path(database).expanduser()


def copy_sqlite_template(template: Path, database: Path) -> Path:
    """A copy of ``template`` at ``database`` (its folder made), private to its owner as
    ``open_store`` leaves it."""
    database.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, database)
    database.chmod(0o600)
    return database


def sqlite_url_at_head(template: Path, database: Path) -> str:
    """The URL of a copy of ``template`` at ``database``."""
    return f"sqlite:///{copy_sqlite_template(template, database)}"


_template_lock = threading.Lock()
_ensure_lock = threading.Lock()
_process_template: Path | None = None


def process_sqlite_template(folder: Path | None = None) -> Path:
    """This process's SQLite template, migrated on first use (in ``folder``, else in a
    temporary folder removed at exit): the ``sqlite_template`` fixture and helpers that
    build settings without fixtures (:func:`ensure_sqlite_at_head`) share it."""
    global _process_template
    with _template_lock:
        if _process_template is None or not _process_template.is_file():
            if folder is None:
                folder = Path(tempfile.mkdtemp(prefix="litdesk-store-template-"))
                atexit.register(shutil.rmtree, folder, True)
            _process_template = build_sqlite_template(folder)
        return _process_template


def ensure_sqlite_at_head(url: str) -> None:
    """A copy of the template where the SQLite store at ``url`` lives, unless a file is
    already there; other URLs (PostgreSQL, memory) are left alone. Safe for threads: the
    copy is whole before it appears (renamed into place) and made once."""
    if sa.make_url(url).get_backend_name() != "sqlite":
        return
    _copy_if_missing(sqlite_path(url))


def _copy_if_missing(database: Path) -> bool:
    """A copy of the template at ``database`` unless a file is there (True: copied)."""
    with _ensure_lock:
        if database.exists():
            return False
        partial = database.with_name(f".{database.name}.{uuid.uuid4().hex[:8]}")
        copy_sqlite_template(process_sqlite_template(), partial)
        os.replace(partial, database)
        return True


#: the SQLite files a test keeps empty (``empty_store_url``): no template copied there
KEEP_EMPTY = pytest.StashKey[set[Path]]()


def keep_empty(node: pytest.Item, url: str) -> str:
    """``url`` (a SQLite file's), which :func:`new_sqlite_at_head` leaves alone in the test
    ``node``: opening it runs the migrations from zero."""
    node.stash.setdefault(KEEP_EMPTY, set()).add(sqlite_path(url))
    return url


def new_sqlite_at_head(url: str | sa.URL, *, keep: Collection[Path] = ()) -> bool:
    """A copy of the template where the SQLite store file at ``url`` would be made: True
    when there was no file there (it is now the copy), False otherwise (an existing file,
    a file in ``keep``, an in-memory or ``file:`` URI store, another backend: left alone).
    What ``tests/conftest.py``'s ``_new_stores_from_template`` does before a store
    migrates."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.query.get("uri"):
        return False
    try:
        database = sqlite_path(parsed.render_as_string(hide_password=False))
    except TemplateError:
        return False
    return database not in keep and database not in _building and _copy_if_missing(database)


# --- PostgreSQL ---------------------------------------------------------------------------


def pg_schema_url(base: str, schema: str) -> str:
    """``base`` with ``schema`` as the connections' search path."""
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options={quote(f'-csearch_path={schema} -csynchronous_commit=off')}"


def store_at_head(
    request: pytest.FixtureRequest,
    database: Path,
    on_close: Callable[[Callable[[], None]], object],
) -> str:
    """A store at the schema head for a fixture parametrised by backend (``request.param``
    ``"sqlite"``: ``database`` copied from the session's SQLite template; else a schema taken
    from the session's PostgreSQL template, given back through ``on_close``)."""
    if request.param == "sqlite":
        return sqlite_url_at_head(request.getfixturevalue("sqlite_template"), database)
    template = request.getfixturevalue("pg_template")
    schema = template.take()
    on_close(lambda: template.give_back(schema))
    return pg_schema_url(template.base_url, schema)


def create_schema(engine: sa.Engine, prefix: str = "t") -> str:
    """A new empty schema with a unique name (other engineers share the database)."""
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    return schema


def drop_schema(engine: sa.Engine, schema: str) -> None:
    with engine.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


_UNSUPPORTED = {
    "views, foreign or partitioned tables": "SELECT relname FROM pg_class"
    " WHERE relnamespace = CAST(:s AS regnamespace) AND relkind NOT IN ('r', 'i', 'S')",
    "types": "SELECT t.typname FROM pg_type t LEFT JOIN pg_class c ON c.oid = t.typrelid"
    " WHERE t.typnamespace = CAST(:s AS regnamespace) AND t.typcategory <> 'A'"
    " AND (c.relkind IS NULL OR c.relkind NOT IN ('r', 'S'))",
    "functions": "SELECT proname FROM pg_proc WHERE pronamespace = CAST(:s AS regnamespace)",
    "triggers": "SELECT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
    " WHERE c.relnamespace = CAST(:s AS regnamespace) AND NOT t.tgisinternal",
    "constraint kinds": "SELECT conname FROM pg_constraint"
    " WHERE connamespace = CAST(:s AS regnamespace) AND contype NOT IN ('p', 'u', 'c', 'f', 'x')",
    "policies": "SELECT polname FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid"
    " WHERE c.relnamespace = CAST(:s AS regnamespace)",
    "extended statistics": "SELECT stxname FROM pg_statistic_ext"
    " WHERE stxnamespace = CAST(:s AS regnamespace)",
}

_SEQUENCES = """
SELECT c.relname, format_type(s.seqtypid, NULL), s.seqincrement, s.seqmin, s.seqmax,
       s.seqstart, s.seqcache, s.seqcycle,
       (SELECT d.deptype FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
          AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')),
       (SELECT quote_ident(t.relname) || '.' || quote_ident(a.attname)
          FROM pg_depend d JOIN pg_class t ON t.oid = d.refobjid
          JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
         WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
           AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a')
  FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
 WHERE c.relnamespace = CAST(:s AS regnamespace) AND c.relkind = 'S'
 ORDER BY c.relname
"""
_TABLES = """
SELECT relname FROM pg_class
 WHERE relnamespace = CAST(:s AS regnamespace) AND relkind = 'r' ORDER BY relname
"""
_DEFAULTS = """
SELECT c.relname, a.attname, pg_get_expr(d.adbin, d.adrelid)
  FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid
  JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
 WHERE c.relnamespace = CAST(:s AS regnamespace) AND a.attgenerated = '' AND a.attidentity = ''
 ORDER BY c.relname, a.attnum
"""
_CONSTRAINTS = """
SELECT c.relname, k.conname, pg_get_constraintdef(k.oid)
  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
 WHERE k.connamespace = CAST(:s AS regnamespace)
 ORDER BY k.contype = 'f', c.relname, k.conname
"""
_INDEXES = """
SELECT pg_get_indexdef(i.indexrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE c.relnamespace = CAST(:s AS regnamespace)
   AND NOT EXISTS (SELECT 1 FROM pg_constraint k
                    WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
 ORDER BY c.relname
"""


class PgTemplate:
    """A schema migrated to head once, the script that rebuilds it in another schema, and a
    pool of schemas at head kept by a helper thread, so a test waits for no DDL when the
    server keeps up (the helper works while the previous test runs).

    A schema given back is reset (emptied, its sequences and the template's rows set back,
    renamed: ``tests/_pg_reuse.py``) and taken again, unless the test changed its structure
    or its tables' statistics (``ANALYZE``, ``VACUUM``) or left a transaction open on it:
    then it is dropped — or kept aside until :meth:`close` if even that would wait — and a
    fresh clone takes its place. ``reuse=False`` drops every schema given back (what the
    pool did before schemas were reused).

    Use :meth:`schema_at_head` (or :meth:`take` and :meth:`give_back`); :meth:`close` at
    the end of the session drops the pool, the schemas given back and the template.
    :attr:`counts` says how often a schema was cloned, reused, dropped, kept aside."""

    #: how long a reset or a drop in the helper waits for a lock before it gives up
    LOCK_TIMEOUT_MS = 200
    #: resets of one clone before it is dropped instead: a ``DELETE`` leaves dead rows that
    #: only a vacuum clears (autovacuum was off on the server this was measured on), and
    #: a vacuum would move the statistics the reset checks
    MAX_REUSES = 25

    def __init__(self, base_url: str, *, spares: int = 1, reuse: bool = True) -> None:
        self.base_url = base_url
        self.engine = sa.create_engine(base_url)
        self.schema = create_schema(self.engine, prefix="ldtpl")
        self.reuse = reuse
        self.counts = {"cloned": 0, "reused": 0, "dropped": 0, "kept aside": 0}
        #: a reset schema's name -> the name it was given back under
        self.reset_from: dict[str, str] = {}
        #: :func:`~tests._pg_reuse.statistics` of a fresh clone (read from the first one)
        self.fresh_statistics: str | None = None
        #: a schema's resets since it was cloned (none: a fresh clone)
        self.reuses: dict[str, int] = {}
        self.max_reuses = self.MAX_REUSES
        self._spares_wanted = spares
        self._spares: list[str] = []
        self._returned: list[str] = []
        self._drops: list[str] = []
        self._aside: list[str] = []
        self._busy = False
        self._error: BaseException | None = None
        self._closing = False
        self._cond = threading.Condition()
        try:
            open_store(pg_schema_url(base_url, self.schema)).dispose()
            self.script = self._script()
            with self.engine.begin() as conn:
                self.plan: ResetPlan = reset_plan(conn, self.schema)
            if "%" in self.plan.lock + self.plan.script:  # the driver would read placeholders
                raise TemplateError("a table or sequence name holds '%': not reset, teach me")
        except BaseException:
            drop_schema(self.engine, self.schema)
            self.engine.dispose()
            raise
        self._thread = threading.Thread(target=self._work, name="pg-store-template", daemon=True)
        self._thread.start()

    def _script(self) -> str:
        """The statements that rebuild the template in the schema first on the search path.

        The catalog renders names unqualified when they are on the search path, so it is
        read with the template alone on it and the script runs with the target alone on it;
        only ``LIKE`` (column definitions) and the rows name the template."""
        tpl = _ident(self.schema)
        params = {"s": self.schema}
        out: list[str] = []
        with self.engine.begin() as conn:
            for what, query in _UNSUPPORTED.items():
                names = [row[0] for row in conn.execute(sa.text(query), params)]
                if names:
                    raise TemplateError(
                        f"the migrated schema holds {what} ({', '.join(names[:5])}) that "
                        "tests/_store_template.py does not clone: teach it to"
                    )
            conn.execute(sa.text(f"SET LOCAL search_path = {tpl}"))
            sequences = conn.execute(sa.text(_SEQUENCES), params).all()
            owned: list[str] = []
            for name, kind, inc, low, high, start, cache, cycle, deptype, column in sequences:
                if deptype == "i":  # an identity column's: LIKE … INCLUDING IDENTITY makes it
                    continue
                out.append(
                    f"CREATE SEQUENCE {_ident(name)} AS {kind} INCREMENT {inc} MINVALUE {low}"
                    f" MAXVALUE {high} START {start} CACHE {cache}{' CYCLE' if cycle else ''}"
                )
                last, called = conn.execute(
                    sa.text(f"SELECT last_value, is_called FROM {tpl}.{_ident(name)}")
                ).one()
                out.append(f"SELECT setval('{_ident(name)}', {last}, {str(called).lower()})")
                if column is not None:
                    owned.append(f"ALTER SEQUENCE {_ident(name)} OWNED BY {column}")
            tables = [row[0] for row in conn.execute(sa.text(_TABLES), params)]
            for table in tables:
                out.append(
                    f"CREATE TABLE {_ident(table)} (LIKE {tpl}.{_ident(table)} INCLUDING IDENTITY"
                    " INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMPRESSION"
                    " INCLUDING COMMENTS)"
                )
            out += owned
            for table, column, expr in conn.execute(sa.text(_DEFAULTS), params):
                out.append(
                    self._unqualified(
                        f"ALTER TABLE {_ident(table)} ALTER COLUMN {_ident(column)}"
                        f" SET DEFAULT {expr}"
                    )
                )
            for table in tables:
                if conn.execute(
                    sa.text(f"SELECT EXISTS (SELECT FROM {tpl}.{_ident(table)})")
                ).scalar():
                    out.append(f"INSERT INTO {_ident(table)} SELECT * FROM {tpl}.{_ident(table)}")
            for table, name, definition in conn.execute(sa.text(_CONSTRAINTS), params):
                out.append(
                    self._unqualified(
                        f"ALTER TABLE {_ident(table)} ADD CONSTRAINT {_ident(name)} {definition}"
                    )
                )
            for (definition,) in conn.execute(sa.text(_INDEXES), params):
                # pg_get_indexdef names the table's schema whatever the search path
                out.append(self._unqualified(definition.replace(f" ON {self.schema}.", " ON ", 1)))
        return ";\n".join(out) + ";\n"

    def _unqualified(self, statement: str) -> str:
        """``statement`` when it does not name the template (it applies to the search path)."""
        if self.schema in statement:
            raise TemplateError(f"a cloned statement names the template: {statement[:200]}")
        return statement

    def clone_into(self, schema: str) -> None:
        """Rebuild the template in the empty ``schema`` (one transaction, one round trip)."""
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            try:  # no parameters: psycopg sends the statements as one simple query
                cur.execute(f"SET LOCAL search_path = {_ident(schema)};\n{self.script}")
            finally:
                cur.close()
            raw.commit()
        finally:
            raw.close()

    def fingerprint(self, schema: str) -> str:
        """The structure of ``schema`` as a digest (``tests/_pg_reuse.py``): the template's
        is :attr:`plan`'s."""
        with self.engine.begin() as conn:
            return fingerprint(conn, schema)

    def reset(self, schema: str) -> str | None:
        """``schema`` back at the template's state under a new name (returned), or None when
        it cannot be without waiting for a lock, or when its structure is not the template's
        or its statistics not a fresh clone's (then it is left as it was)."""
        new = f"t_{uuid.uuid4().hex[:16]}"
        try:
            with self.engine.begin() as conn:
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {self.LOCK_TIMEOUT_MS}")
                if (
                    fingerprint(conn, schema, lock=self.plan.lock) != self.plan.fingerprint
                    or statistics(conn, schema) != self.fresh_statistics
                ):  # its structure or its statistics changed (the commit releases the locks)
                    return None
                conn.exec_driver_sql(  # one round trip (psycopg's simple query)
                    f"{self.plan.script}ALTER SCHEMA {_ident(schema)} RENAME TO {_ident(new)}"
                )
        except sa.exc.DBAPIError:  # a lock not granted, a DELETE refused: not reusable
            return None
        return new

    def _drop(self, schema: str) -> bool:
        """Drop ``schema`` unless that would wait for a lock (False: it is still there)."""
        try:
            with self.engine.begin() as conn:
                conn.exec_driver_sql(
                    f"SET LOCAL lock_timeout = {self.LOCK_TIMEOUT_MS};"
                    f" DROP SCHEMA IF EXISTS {_ident(schema)} CASCADE"
                )
        except sa.exc.OperationalError:
            return False
        return True

    def _work(self) -> None:
        """Reset a schema given back (else drop it and count a spare short), make a spare
        clone when one is missing, else drop a schema that had to be."""
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                while (
                    not self._closing
                    and not self._returned
                    and not self._drops
                    and len(self._spares) >= self._spares_wanted
                ):
                    self._cond.wait()
                if self._closing:
                    return
                self._busy = True
                returned = self._returned.pop(0) if self._returned else None
                drop = None
                if returned is None and len(self._spares) >= self._spares_wanted:
                    drop = self._drops.pop(0)
            try:
                if returned is not None:
                    self._settle(returned)
                elif drop is not None:
                    self._drop_or_keep_aside(drop)
                else:
                    self._clone_spare()
            except Exception as exc:  # noqa: BLE001 - raised in the test that takes a schema
                with self._cond:
                    self._error = exc
                    self._busy = False
                    self._cond.notify_all()
                return

    def _settle(self, schema: str) -> None:
        """A schema given back joins the spares, reset, or is dropped (soon): when it
        cannot be reset, or was reset :attr:`max_reuses` times already."""
        done = self.reuses.pop(schema, 0)
        new = self.reset(schema) if self.reuse and done < self.max_reuses else None
        with self._cond:
            if new is None:
                self._drops.append(schema)
            else:
                self.counts["reused"] += 1
                self.reset_from[new] = schema
                self.reuses[new] = done + 1
                self._spares.append(new)
                self._cond.notify_all()

    def _drop_or_keep_aside(self, schema: str) -> None:
        dropped = self._drop(schema)
        with self._cond:
            if dropped:
                self.counts["dropped"] += 1
            else:  # a connection still holds it: dropped at close, when it may wait
                self.counts["kept aside"] += 1
                self._aside.append(schema)

    def _clone_spare(self) -> None:
        schema = create_schema(self.engine)
        with self._cond:
            self._drops.append(schema)  # dropped later if the clone fails
        self.clone_into(schema)
        if self.fresh_statistics is None:
            with self.engine.begin() as conn:
                self.fresh_statistics = statistics(conn, schema)
        with self._cond:
            self._drops.remove(schema)
            self.counts["cloned"] += 1
            self._spares.append(schema)
            self._cond.notify_all()

    def take(self) -> str:
        """A schema (its name) at the template's state, nobody else's; :meth:`give_back` it."""
        if self._spares_wanted < 1:
            raise TemplateError("this template keeps no clones (made with spares=0)")
        with self._cond:
            while not self._spares and self._error is None:
                self._cond.wait()
            if self._error is not None:
                raise TemplateError(
                    f"cloning the store template failed: {self._error}"
                ) from self._error
            schema = self._spares.pop()  # the last reset: its pages are the likeliest cached
            self._cond.notify_all()
            return schema

    def give_back(self, schema: str) -> None:
        """Reset ``schema`` for another test, or drop it (in the helper thread; at
        :meth:`close` if it is still there then). The name is never handed out again."""
        with self._cond:
            self._returned.append(schema)
            self._cond.notify_all()

    def settle(self) -> None:
        """Wait until the helper is idle: every schema given back reset or dropped (or kept
        aside), the spares made (for tests)."""
        with self._cond:
            while (self._returned or self._busy) and self._error is None:
                self._cond.wait()

    @contextmanager
    def schema_at_head(self) -> Iterator[str]:
        """A schema at head for the duration of the block, given back afterwards (reset for
        another test, or dropped: :meth:`give_back`)."""
        schema = self.take()
        try:
            yield schema
        finally:
            self.give_back(schema)

    def close(self) -> None:
        """Stop the helper and drop every schema left, the template last."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()
        try:
            for schema in [*self._spares, *self._returned, *self._drops, *self._aside]:
                drop_schema(self.engine, schema)
            drop_schema(self.engine, self.schema)
        finally:
            self.engine.dispose()
