"""The engine factory and the transactional :class:`Store` (SQLite or PostgreSQL).

One schema, one code path: SQLite (WAL, ``foreign_keys=ON``, a busy timeout, write
transactions opened with ``BEGIN IMMEDIATE``) in the data directory by default, or
PostgreSQL (psycopg 3) when the URL says so. Migrations run on open
(``alembic upgrade head`` semantics), under a lock so concurrent openers agree; a store
already at the newest revision is told by one read, without the lock or Alembic's
environment.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from litdesk._errors import ConfigError, ExternalError, InputError, IntegrityError
from litdesk._settings import Settings

from ._compiled import SharedCompiledCache

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "MIGRATIONS_DIR",
    "Store",
    "StoreError",
    "StoreValueRefused",
    "StoredDataInvalid",
    "dump_json",
    "load_json",
    "make_engine",
    "open_store",
    "rows_loaded",
    "records_changed",
    "records_version",
    "sources_changed",
]

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS: Final = 30_000
_MIGRATION_LOCK: Final = (1909102026, 4)
#: Largest stored JSON document read back (characters): an import trace of a 200 MB file.
MAX_DOCUMENT_BYTES: Final = 1_000_000_000
#: a pooled PostgreSQL connection idle this long is pinged before it is used again (s)
PING_IDLE_SECONDS: Final = 10.0
#: the most PostgreSQL connections one process opens by default (the ``database_pool_max``
#: setting), opened as needed and kept open once opened: a pool that kept only a third
#: closed the others when given back, and under load opened one again for about one
#: transaction in twenty (a new connection is a server process: ~9 ms, 25 times a query's
#: round trip). The web server's 40 request threads wait for a connection
#: rather than each opening one: several workers (and the CLI, the backups) must stay within
#: the database's ``max_connections`` (100 by default): 40 a process made 4 processes of a
#: crowd of reservations refuse calls with "too many clients"
POOL_MAX: Final = 15
#: a migration file's ``revision = "…"`` line
_REVISION: Final = re.compile(r'^revision\s*=\s*"([^"\n]+)"', re.MULTILINE)


class StoreError(ExternalError):
    """The database failed (unreachable, locked too long, a constraint broke)."""

    default_code = "store"


class StoreValueRefused(InputError):
    """A value cannot be stored: text holding a NUL character (PostgreSQL refuses it; both
    backends refuse it alike, before the statement is sent)."""

    default_code = "nul_character"


log = logging.getLogger("litdesk.store")

#: plain messages by the driver's error class (its own text goes to the server log only)
_PLAIN: Final = (
    (sa.exc.OperationalError, "the database is unavailable or busy; try again"),
    (sa.exc.IntegrityError, "the database refused a change that conflicts with stored data"),
    (sa.exc.DataError, "the database refused a value"),
)


class StoredDataInvalid(IntegrityError):
    """A stored document is not valid JSON or not the expected shape."""

    default_code = "stored_data_invalid"


def dump_json(value: Any) -> str:
    """Compact, deterministic JSON for a stored document."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def load_json(text: object, *, what: str = "document") -> Any:
    """Parse a stored JSON document (raises :class:`StoredDataInvalid`)."""
    if not isinstance(text, str) or len(text) > MAX_DOCUMENT_BYTES:
        raise StoredDataInvalid(f"stored {what} is not a JSON text within limits")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoredDataInvalid(f"stored {what} is not valid JSON: {exc.msg}") from None


def _describe(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    first = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__name__}: {first[:200]}" if first else type(orig).__name__


def _plain(exc: BaseException) -> str:
    for kind, message in _PLAIN:
        if isinstance(exc, kind):
            return message
    return "the database failed"


def _has_nul(parameters: Any) -> bool:
    if isinstance(parameters, str):
        return "\x00" in parameters
    if isinstance(parameters, dict):
        return any(_has_nul(v) for v in parameters.values())
    if isinstance(parameters, (list, tuple)):
        return any(_has_nul(v) for v in parameters)
    return False


def _refuse_nul(engine: Engine) -> None:
    """Refuse a statement whose parameters hold a NUL character, typed and plain, on both
    backends (PostgreSQL's driver would answer with its own message)."""

    @sa.event.listens_for(engine, "before_cursor_execute")
    def _check(
        _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _many: bool
    ) -> None:
        if _has_nul(parameters):
            raise StoreValueRefused("text with a NUL character cannot be stored")


def make_engine(url: str, *, pool_max: int = POOL_MAX) -> Engine:
    """An engine for ``url``: ``sqlite:///<file>`` or ``postgresql://…`` (psycopg 3), with
    at most ``pool_max`` connections (PostgreSQL)."""
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise ConfigError("the database URL is not a valid SQLAlchemy URL") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            folder = Path(database).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(
                    f"cannot create the data directory {folder}: {exc.strerror}",
                    code="data_dir",
                ) from None
        engine = sa.create_engine(parsed, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        _sqlite_events(engine)
        _refuse_nul(engine)
        return _shared_statements(engine)
    if backend == "postgresql":
        if parsed.drivername != "postgresql+psycopg":
            parsed = parsed.set(drivername="postgresql+psycopg")
        engine = sa.create_engine(parsed, pool_size=pool_max, max_overflow=0)
        _postgres_events(engine)
        _refuse_nul(engine)
        return _shared_statements(engine)
    raise ConfigError(f"unsupported database backend {backend!r}: use sqlite or postgresql")


def _shared_statements(engine: Engine) -> Engine:
    """The engine looks its compiled statements up in the process's one cache, shared with
    the other engines of its kind (:mod:`._compiled`): a store opened after another in the
    process compiles none of the statements the first already did."""
    engine.update_execution_options(compiled_cache=SharedCompiledCache(engine.dialect))
    return engine


def _postgres_events(engine: Engine) -> None:
    """Ping a pooled connection before use only when it sat idle for
    :data:`PING_IDLE_SECONDS` (one that fails is replaced: the pool retries with a new
    one). ``pool_pre_ping`` pinged on every checkout — a round trip per transaction under
    load, when connections are seconds old; a server restart or an idle timeout is what
    the ping is for, and both leave connections idle first."""
    errors = engine.dialect.loaded_dbapi.Error

    @sa.event.listens_for(engine, "checkin")
    def _checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")  # none: a new connection, just opened
        if since is None or time.monotonic() - since < PING_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except errors as exc:
            raise sa.exc.DisconnectionError("a pooled connection was gone") from exc


def _sqlite_events(engine: Engine) -> None:
    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # let SQLAlchemy's "begin" event emit BEGIN itself (pysqlite's own is deferred-only)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("litdesk_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


#: the connection's note of the Studies whose sources a write transaction changed
_SOURCES_CHANGED: Final = "litdesk_study_sources_changed"


def sources_changed(conn: Connection, study_id: str) -> None:
    """Note, in a write transaction, that a Study's sources (its imports, linked search
    runs or papers) changed: the Store reconciles the Study's records before the
    transaction commits and brings its working set up to date after (see
    :meth:`Store.on_sources_changed`)."""
    changed: set[str] = conn.info.setdefault(_SOURCES_CHANGED, set())
    changed.add(study_id)


#: the connection's note of the Studies whose records a write transaction changed
_RECORDS_CHANGED: Final = "litdesk_study_records_changed"


def records_changed(conn: Connection, study_id: str) -> None:
    """Note that ``conn`` changed the Study's records (``study_records``): a write
    transaction gives the Study a fresh ``records_version`` just before it commits (after
    its reconciliation, so that the ``studies`` row is locked last and briefly); any other
    connection at once."""
    if conn.get_execution_options().get("litdesk_write", False):
        changed: set[str] = conn.info.setdefault(_RECORDS_CHANGED, set())
        changed.add(study_id)
    else:
        _new_versions(conn, [study_id])


def _new_versions(conn: Connection, study_ids: list[str]) -> None:
    from uuid import uuid4

    from ._schema import studies

    stmt = (
        sa.update(studies)
        .where(studies.c.id == sa.bindparam("sid"))
        .values(records_version=sa.bindparam("version"))
    )
    conn.execute(stmt, [{"sid": sid, "version": uuid4().hex} for sid in study_ids])


def records_version(conn: Connection, study_id: str) -> str | None:
    """The Study's records version (:func:`records_changed`): the same while its records
    are; ``None`` when it has none yet (or no such Study): nothing may be kept by it."""
    from ._schema import studies

    version = conn.execute(
        sa.select(studies.c.records_version).where(studies.c.id == study_id)
    ).scalar_one_or_none()
    return None if version is None else str(version)


#: the hits of the whole searches a write transaction inserted (``run id -> (its
#: transaction, the hit documents stored)``): that transaction's reconciliation of the
#: Study's records reads them without a query (:func:`_whole_searches.written_hits`)
WHOLE_HITS_WRITTEN: Final = "litdesk_whole_hits_written"

#: the connection's note of the rows a write transaction inserted, by table
_ROWS_LOADED: Final = "litdesk_rows_loaded"
#: rows one write transaction must insert into a table before PostgreSQL's statistics of
#: it are brought up to date once it commits (``ANALYZE``), and no fewer than a tenth of
#: the rows the table had at its last analysis (autovacuum's own rule, which it applies
#: only within ``autovacuum_naptime``, a minute by default). A table loaded without
#: statistics is read as if it were tiny: a 500-key lookup in ``paper_keys`` scanned all
#: of the owner's keys (13–46 ms on 10,000–100,000 rows) instead of taking the primary
#: key (0.6–1.8 ms once analysed), so a big import deduplicated in the first minute
#: paid it for every lookup.
ANALYZE_AFTER_ROWS: Final = 500
ANALYZE_SHARE: Final = 0.1


def rows_loaded(conn: Connection, table: sa.Table, count: int) -> None:
    """Note, in a write transaction, that it inserted ``count`` rows into ``table``: on
    PostgreSQL the Store analyses the table after the transaction commits when it loaded
    enough of them (:data:`ANALYZE_AFTER_ROWS`)."""
    if count > 0:
        loaded: dict[str, int] = conn.info.setdefault(_ROWS_LOADED, {})
        loaded[table.name] = loaded.get(table.name, 0) + count


class Store:
    """A migrated database with read and write transactions."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._within: Callable[[Connection, str], bool] | None = None
        self._after: Callable[[str], None] | None = None
        #: this thread's open :meth:`snapshot` (its connection), which reads join
        self._shared = threading.local()

    def on_sources_changed(
        self, within: Callable[[Connection, str], bool], after: Callable[[str], None]
    ) -> None:
        """What a write transaction that changed a Study's sources (:func:`sources_changed`)
        does: ``within`` runs in it, before it commits, for each such Study (the records
        reconciled with the sources: they come and go with them, all or nothing) and says
        whether ``after`` is needed; ``after`` runs after it committed (the working set
        regrouped: deduplication work kept out of the write lock). Reads never write: they
        show what the writes left."""
        self._within, self._after = within, after

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction: committed on success, rolled back on any error."""
        regroup: set[str] = set()
        self._shared.conn = None  # reads after a write see it: no more joining the snapshot
        with self._translate(), self.engine.connect() as conn:
            conn = conn.execution_options(litdesk_write=True)
            conn.info.pop(_SOURCES_CHANGED, None)  # a failed transaction's notes
            conn.info.pop(_ROWS_LOADED, None)
            conn.info.pop(_RECORDS_CHANGED, None)
            try:
                with conn.begin():
                    yield conn
                    within = self._within
                    while within is not None and (todo := conn.info.pop(_SOURCES_CHANGED, None)):
                        regroup |= {sid for sid in sorted(todo) if within(conn, sid)}
                    if changed := conn.info.pop(_RECORDS_CHANGED, None):
                        _new_versions(conn, sorted(changed))  # in a fixed order: no deadlock
            finally:
                conn.info.pop(WHOLE_HITS_WRITTEN, None)  # never seen by a later transaction
                conn.info.pop(_RECORDS_CHANGED, None)
            conn.info.pop(_SOURCES_CHANGED, None)
            loaded: dict[str, int] = conn.info.pop(_ROWS_LOADED, None) or {}
            if self.is_postgres and max(loaded.values(), default=0) >= ANALYZE_AFTER_ROWS:
                self._analyze(conn, loaded)
        if self._after is not None:
            for study_id in sorted(regroup):
                self._after(study_id)

    def _analyze(self, conn: Connection, loaded: dict[str, int]) -> None:
        """PostgreSQL: ``ANALYZE`` the tables a committed write loaded enough rows into
        (:data:`ANALYZE_AFTER_ROWS`), in a statement of its own outside that transaction
        (``ANALYZE`` holds its lock until its transaction ends: inside an import's it would
        make two accounts' concurrent imports wait on each other), skipping a table another
        session is analysing (``SKIP_LOCKED``: it never waits). ``conn`` is the write's
        connection, its transaction committed: no second connection taken from the pool (the
        pool gives the connection its isolation level back when it returns). Statistics only
        make reads faster: a failure is logged and the committed write stands."""
        try:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            rows = conn.execute(
                sa.text(
                    "SELECT n, (SELECT reltuples FROM pg_class WHERE oid = to_regclass(n))"
                    " FROM unnest(CAST(:names AS text[])) AS n"
                ),
                {"names": sorted(loaded)},
            ).all()
            quote = conn.dialect.identifier_preparer.quote
            due = [
                quote(str(name))
                for name, tuples in rows
                if tuples is not None
                and loaded[name] >= max(ANALYZE_AFTER_ROWS, ANALYZE_SHARE * float(tuples))
            ]
            if due:
                conn.exec_driver_sql(f"ANALYZE (SKIP_LOCKED) {', '.join(due)}")
            conn.rollback()  # SQLAlchemy's own transaction of the statements (nothing sent)
        except sa.exc.SQLAlchemyError as exc:
            log.debug("statistics not updated after a bulk load (%s): %s", type(exc).__name__, exc)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """One read transaction (a consistent snapshot on both backends); inside a
        :meth:`snapshot` of this thread, that snapshot's transaction."""
        shared: Connection | None = getattr(self._shared, "conn", None)
        if shared is not None:
            with self._translate():
                yield shared
            return
        with self._translate(), self.engine.connect() as conn:
            if self.is_postgres:
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                yield conn

    @contextmanager
    def read_one(self) -> Iterator[Connection]:
        """A read of ONE statement (a statement is atomic on its own): on PostgreSQL without
        a transaction around it (autocommit: one round trip, not ``BEGIN``, the statement,
        ``COMMIT``); on SQLite, and inside a :meth:`snapshot`, a :meth:`read`."""
        if not self.is_postgres or getattr(self._shared, "conn", None) is not None:
            with self.read() as conn:
                yield conn
            return
        with self._translate(), self.engine.connect() as conn:
            yield conn.execution_options(isolation_level="AUTOCOMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction for every :meth:`read` of this thread inside it: a view
        composed of several reads costs one transaction (on PostgreSQL each costs a
        ``BEGIN`` and a ``COMMIT`` round trip) and sees one state of the store. A
        :meth:`write` inside it ends the joining (the reads after it open their own
        transactions, so they see the write); nested snapshots are one."""
        if getattr(self._shared, "conn", None) is not None:
            yield
            return
        with self.read() as conn:
            self._shared.conn, self._shared.memo = conn, {}
            try:
                yield
            finally:
                self._shared.conn = self._shared.memo = None

    def snapshot_memo(self) -> dict[Any, Any] | None:
        """A dict that lives as long as this thread's :meth:`snapshot` (``None`` outside
        one, and after a write in it): answers read in the snapshot, kept for its other
        reads (they cannot change within it)."""
        if getattr(self._shared, "conn", None) is None:
            return None
        memo: dict[Any, Any] = self._shared.memo
        return memo

    @contextmanager
    def _translate(self) -> Iterator[None]:
        try:
            yield
        except sa.exc.SQLAlchemyError as exc:
            # the driver's text (values, constraint and table names) is for the server log
            log.warning("the store failed: %s", _describe(exc))
            raise StoreError(_plain(exc), kind=type(exc).__name__) from None

    def lock(self, conn: Connection, namespace: int, key: str) -> None:
        """Serialise writers on ``key`` for the rest of the transaction.

        PostgreSQL takes a transaction-level advisory lock; SQLite's ``BEGIN
        IMMEDIATE`` already holds the database write lock.
        """
        if self.is_postgres:
            conn.execute(_ADVISORY_LOCK, {"ns": namespace, "key": key})

    def revision(self) -> str | None:
        """The applied migration revision (Alembic's version table, read without Alembic:
        a process whose store is at the newest revision never imports it)."""
        with self.read() as conn:
            return _applied_revision(conn)

    def migrate(self) -> None:
        """Bring the schema to the newest revision (idempotent, safe to run concurrently).

        A store already at the newest revision is told by one read transaction (no lock:
        a schema at head stays there); any other runs the migrations under the lock,
        which asks again first, so concurrent openers migrate once."""
        head = _script_head()
        if self.revision() == head:
            return
        from alembic import command

        cfg = _alembic_config()
        with self._migrating() as conn:
            if self.is_postgres:
                conn.execute(
                    sa.text("SELECT pg_advisory_xact_lock(:a, :b)"),
                    dict(zip("ab", _MIGRATION_LOCK, strict=True)),
                )
            if _applied_revision(conn) == head:
                return
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            if not self.is_postgres:  # what the rebuilt tables hold still fits together
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise StoreError(f"the migration broke {len(broken)} references; not applied")

    @contextmanager
    def _migrating(self) -> Iterator[Connection]:
        """The migrations' write transaction. On SQLite foreign-key enforcement is off for
        it (a table rebuilt in Alembic's batch mode drops the old table, which would
        otherwise cascade-delete every row referencing it); it is on again afterwards."""
        if self.is_postgres:
            with self.write() as conn:
                yield conn
            return
        with self._translate(), self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert raw is not None
            raw.execute("PRAGMA foreign_keys=OFF")  # outside a transaction, or it is ignored
            try:
                conn = conn.execution_options(litdesk_write=True)
                with conn.begin():
                    yield conn
            finally:
                raw.execute("PRAGMA foreign_keys=ON")

    def dispose(self) -> None:
        self.engine.dispose()


#: built once (every writer that serialises on a key runs it)
_ADVISORY_LOCK: Final = sa.text("SELECT pg_advisory_xact_lock(:ns, hashtext(:key))")

#: whether Alembic's version table exists where the store's tables are (what
#: ``Inspector.has_table`` asks: SQLite's main database, PostgreSQL's current schema), in
#: one prepared statement: every open asks it, and an inspector costs more than the query
_HAS_VERSION_TABLE: Final = {
    "sqlite": sa.text(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
    ),
    "postgresql": sa.text(
        "SELECT 1 FROM pg_catalog.pg_class c"
        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relname = 'alembic_version'"
        " AND c.relkind IN ('r', 'p')"
    ),
}
_VERSION: Final = sa.text("SELECT version_num FROM alembic_version")


def _applied_revision(conn: Connection) -> str | None:
    """The revision in Alembic's version table, or None before the first migration."""
    if conn.execute(_HAS_VERSION_TABLE[conn.dialect.name]).first() is None:
        return None
    rows = conn.execute(_VERSION).scalars().all()
    if len(rows) > 1:
        raise StoreError(f"the database records {len(rows)} schema versions; expected one")
    return str(rows[0]) if rows else None


def _alembic_config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


@lru_cache(maxsize=1)
def _script_head() -> str | None:
    """The newest revision of the migration scripts: they are numbered ``NNNN_name.py``, one
    chain in the order of their numbers (``tests/adapters/store`` checks that the last file's
    revision is Alembic's own head), so it is read from the last file without importing
    Alembic."""
    files = sorted((MIGRATIONS_DIR / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
    if not files:
        return None
    found = _REVISION.search(files[-1].read_text(encoding="utf-8"))
    if found is None:
        raise StoreError(f"the migration {files[-1].name} names no revision")
    return found.group(1)


def open_store(target: Settings | str) -> Store:
    """Open (and migrate) the store named by settings or by a URL."""
    if isinstance(target, str):
        store = Store(make_engine(target))
    else:
        store = Store(
            make_engine(target.resolved_database_url(), pool_max=target.database_pool_max)
        )
    store.migrate()
    _private(store)
    return store


def _private(store: Store) -> None:
    """A SQLite store holds private notes: readable by its owner only (POSIX)."""
    if store.dialect != "sqlite" or os.name != "posix":
        return
    database = store.engine.url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    for suffix in ("", "-wal", "-shm"):
        path = Path(database + suffix).expanduser()
        try:
            if path.exists() and stat.S_IMODE(path.stat().st_mode) & 0o077:
                path.chmod(0o600)
        except OSError:
            continue  # not ours to change (a shared file); the store still works
