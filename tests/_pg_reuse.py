"""Giving a PostgreSQL test schema back to its template's pool instead of dropping it.

``tests/_store_template.py``'s :class:`~tests._store_template.PgTemplate` hands each test a
schema at head. Cloning one costs a DDL script (about 0.55 s of wall time here, most of it
the server's) and dropping it as much again; emptying one that a test wrote to costs a few
ms. So a schema given back is *reset* — in one transaction that never waits for a lock:

1. ``LOCK TABLE`` every table of the template ``IN ACCESS EXCLUSIVE MODE`` under a short
   ``lock_timeout``: a connection the test left inside a transaction (or still writing)
   makes it fail at once, and the schema is dropped instead (or kept aside until the end of
   the session if even that would wait);
2. :func:`fingerprint` — the schema's structure read from the catalog (relations, columns,
   defaults, constraints, indexes, sequences' options and owners, triggers, rules,
   policies, ownership, privileges, comments, and what else depends on the schema) — must
   equal the template's, else the test changed the structure, and :func:`statistics` — the
   planner's statistics of its relations — a fresh clone's, else a test analysed or
   vacuumed a table: dropped, replaced by a fresh clone;
3. :attr:`ResetPlan.script`: ``DELETE FROM`` every table, children before parents (a
   ``TRUNCATE`` makes new files for every table and index: 0.6–1.0 s here against 3–6 ms,
   ``tests/adapters/store/test_pg_reuse.py`` and bench/RESULTS.md's pgreuse26 section),
   every sequence set back to a fresh clone's state, the template's own rows copied back,
   and the schema renamed: a connection the test left open (idle) resolves its
   ``search_path`` to a name that no longer exists, so it can neither read nor write the
   schema the next test gets, as if it had been dropped.

Under the exclusive locks no other transaction writes between the ``DELETE`` and the
commit, so no table holds a row the template does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

__all__ = [
    "FINGERPRINT",
    "STATISTICS",
    "ResetPlan",
    "fingerprint",
    "ident",
    "reset_plan",
    "statistics",
]


def ident(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


#: a digest of the structure of the schema ``:s``, which must be first on the search path
#: (the catalog then renders names in it unqualified, so two schemas of one structure have
#: one digest); ``%L`` keeps NULL apart from any text. Every object PostgreSQL puts in a
#: schema depends on it in ``pg_depend`` (relations, types, functions, operators...) or on
#: one of its relations (indexes, constraints, triggers, rules, policies, statistics), so
#: the digest is read through indexes only — a scan of ``pg_class`` costs 10–30 ms on a
#: server whose catalog many clones and drops have bloated (and autovacuum is off here)
FINGERPRINT = """
WITH owned AS MATERIALIZED (
  SELECT d.classid, d.objid FROM pg_depend d
   WHERE d.refclassid = 'pg_namespace'::regclass AND d.refobjid = CAST(:s AS regnamespace)
), rels AS MATERIALIZED (
  SELECT c.* FROM pg_class c
   WHERE c.oid IN (SELECT objid FROM owned WHERE classid = 'pg_class'::regclass)
     AND c.relnamespace = CAST(:s AS regnamespace)
), items AS (
  SELECT format('owned|%L|%L', classid::regclass, count(*)) AS item FROM owned GROUP BY classid
  UNION ALL
  SELECT format('rel|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L', c.relname, c.relkind,
                c.relpersistence, c.relnatts, c.relowner::regrole, c.relacl, c.reloptions,
                c.relrowsecurity, c.relforcerowsecurity, c.relhasrules, c.relreplident,
                obj_description(c.oid, 'pg_class'))
    FROM rels c
  UNION ALL
  SELECT format('col|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L|%L', c.relname, a.attnum, a.attname,
                format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attisdropped,
                a.attidentity, a.attgenerated, a.attcollation, a.attstorage, a.attacl,
                pg_get_expr(d.adbin, d.adrelid), col_description(c.oid, a.attnum))
    FROM rels c JOIN pg_attribute a ON a.attrelid = c.oid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE a.attnum > 0
  UNION ALL
  SELECT format('con|%L|%L|%L|%L|%L|%L|%L', c.relname, k.conname, k.contype,
                pg_get_constraintdef(k.oid), k.condeferrable, k.condeferred, k.convalidated)
    FROM rels c JOIN pg_constraint k ON k.conrelid = c.oid
  UNION ALL  -- pg_get_indexdef names the table's schema whatever the search path
  SELECT format('idx|%L|%L|%L|%L', x.relname, replace(pg_get_indexdef(i.indexrelid),
                ' ON ' || quote_ident(CAST(:s AS text)) || '.', ' ON '), i.indisvalid,
                i.indisclustered)
    FROM rels c JOIN pg_index i ON i.indrelid = c.oid JOIN pg_class x ON x.oid = i.indexrelid
  UNION ALL
  SELECT format('seq|%L|%L|%L|%L|%L|%L|%L|%L', c.relname, format_type(s.seqtypid, NULL),
                s.seqincrement, s.seqmin, s.seqmax, s.seqstart, s.seqcache, s.seqcycle)
    FROM rels c JOIN pg_sequence s ON s.seqrelid = c.oid
  UNION ALL
  SELECT format('dep|%L|%L|%L|%L', c.relname, t.relname, d.refobjsubid, d.deptype)
    FROM rels c JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
    JOIN pg_class t ON t.oid = d.refobjid
   WHERE c.relkind = 'S' AND d.refclassid = 'pg_class'::regclass
  UNION ALL
  SELECT format('trigger|%L|%L', c.relname, t.tgname)  -- a foreign key's: its constraint
    FROM rels c JOIN pg_trigger t ON t.tgrelid = c.oid WHERE NOT t.tgisinternal
  UNION ALL
  SELECT format('rule|%L|%L', c.relname, r.rulename)
    FROM rels c JOIN pg_rewrite r ON r.ev_class = c.oid
  UNION ALL
  SELECT format('policy|%L|%L', c.relname, p.polname)
    FROM rels c JOIN pg_policy p ON p.polrelid = c.oid
  UNION ALL
  SELECT format('statistics|%L|%L', c.relname, x.stxname)
    FROM rels c JOIN pg_statistic_ext x ON x.stxrelid = c.oid
  UNION ALL
  SELECT format('nsp|%L|%L|%L', n.nspowner::regrole, n.nspacl,
                obj_description(n.oid, 'pg_namespace'))
    FROM pg_namespace n WHERE n.oid = CAST(:s AS regnamespace)
)
SELECT md5(string_agg(item, E'\\n' ORDER BY item)) FROM items
"""


def fingerprint(conn: sa.Connection, schema: str, *, lock: str = "") -> str:
    """:data:`FINGERPRINT` of ``schema``, read in ``conn``'s transaction (whose search path
    it sets to ``schema`` alone), after the statement ``lock`` if one is given."""
    conn.exec_driver_sql(f"SET LOCAL search_path = {ident(schema)}")
    if lock:
        conn.exec_driver_sql(lock)
    return str(conn.execute(sa.text(FINGERPRINT), {"s": schema}).scalar_one())


#: a digest of the planner's statistics of the relations in the schema ``:s`` (pages,
#: rows, all-visible pages): ``ANALYZE`` and ``VACUUM`` change them, ``DELETE`` does not,
#: and the store reads them (``Store``'s ``ANALYZE`` after a bulk load asks ``reltuples``).
#: A clone's differ from the template's (its tables and indexes were made otherwise), so a
#: schema given back is compared with a fresh clone's. A table analysed holds a row of
#: ``pg_statistic`` for a column only after it sampled a row, so its ``reltuples`` moved.
STATISTICS = """
SELECT md5(string_agg(format('%L|%L|%L|%L', c.relname, c.reltuples, c.relpages,
                             c.relallvisible), E'\\n' ORDER BY c.relname))
  FROM pg_class c
 WHERE c.oid IN (SELECT d.objid FROM pg_depend d
                  WHERE d.refclassid = 'pg_namespace'::regclass
                    AND d.refobjid = CAST(:s AS regnamespace)
                    AND d.classid = 'pg_class'::regclass
                 UNION ALL
                 SELECT i.indexrelid FROM pg_index i JOIN pg_depend d ON d.objid = i.indrelid
                  WHERE d.refclassid = 'pg_namespace'::regclass
                    AND d.refobjid = CAST(:s AS regnamespace)
                    AND d.classid = 'pg_class'::regclass)
   AND c.relnamespace = CAST(:s AS regnamespace)
"""


def statistics(conn: sa.Connection, schema: str) -> str:
    """:data:`STATISTICS` of ``schema``, read in ``conn``'s transaction."""
    return str(conn.execute(sa.text(STATISTICS), {"s": schema}).scalar_one())


_TABLES = """
SELECT relname FROM pg_class
 WHERE relnamespace = CAST(:s AS regnamespace) AND relkind = 'r' ORDER BY relname
"""
_REFERENCES = """
SELECT c.relname, p.relname
  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
 WHERE k.connamespace = CAST(:s AS regnamespace) AND k.contype = 'f'
"""
_SEQUENCES = """
SELECT c.relname, s.seqstart,
       EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                  AND d.objid = c.oid AND d.deptype = 'i')
  FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
 WHERE c.relnamespace = CAST(:s AS regnamespace) AND c.relkind = 'S' ORDER BY c.relname
"""


@dataclass(frozen=True)
class ResetPlan:
    """How to bring a schema a test used back to the template ``template``."""

    #: the template's tables, children before the tables they reference
    tables: tuple[str, ...]
    #: :func:`fingerprint` of the template
    fingerprint: str
    #: every table locked exclusively (run first, with the search path set to the schema)
    lock: str
    #: rows deleted, sequences set back, the template's rows copied back (then a rename)
    script: str


def _children_first(tables: list[str], references: list[tuple[str, str]]) -> list[str]:
    """``tables`` ordered so that a table comes before every table it references (a cycle
    is broken anywhere: its ``DELETE`` then fails, and the schema is dropped instead)."""
    referrers: dict[str, set[str]] = {table: set() for table in tables}
    for child, parent in references:
        if child != parent and parent in referrers:
            referrers[parent].add(child)
    order: list[str] = []
    done: set[str] = set()

    def visit(table: str, path: frozenset[str]) -> None:
        if table in done:
            return
        for child in sorted(referrers[table] - path):
            visit(child, path | {table})
        done.add(table)
        order.append(table)

    for table in tables:
        visit(table, frozenset())
    return order


def reset_plan(conn: sa.Connection, template: str) -> ResetPlan:
    """The :class:`ResetPlan` of the schema ``template`` (read in ``conn``'s transaction,
    whose search path it sets to ``template``). Sequences go back to the values the clone
    script gives them: the template's own, or a new identity sequence's start."""
    params = {"s": template}
    print_ = fingerprint(conn, template)
    tables = [row[0] for row in conn.execute(sa.text(_TABLES), params)]
    references = [(row[0], row[1]) for row in conn.execute(sa.text(_REFERENCES), params)]
    order = _children_first(tables, references)
    tpl = ident(template)
    script = [f"DELETE FROM {ident(table)}" for table in order]
    for name, start, identity in conn.execute(sa.text(_SEQUENCES), params):
        if identity:
            last, called = start, False
        else:
            last, called = conn.execute(
                sa.text(f"SELECT last_value, is_called FROM {tpl}.{ident(name)}")
            ).one()
        script.append(f"SELECT setval('{ident(name)}', {last}, {str(called).lower()})")
    for table in reversed(order):  # parents first
        if conn.execute(sa.text(f"SELECT EXISTS (SELECT FROM {tpl}.{ident(table)})")).scalar():
            script.append(f"INSERT INTO {ident(table)} SELECT * FROM {tpl}.{ident(table)}")
    return ResetPlan(
        tables=tuple(order),
        fingerprint=print_,
        lock=f"LOCK TABLE {', '.join(map(ident, order))} IN ACCESS EXCLUSIVE MODE",
        script=";\n".join(script) + ";\n",
    )
