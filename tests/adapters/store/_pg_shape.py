"""What a PostgreSQL schema is made of and what it holds, read from the catalog on its own
(not from ``tests/_store_template.py``'s script nor ``tests/_pg_reuse.py``'s digest, which
it checks): two schemas a test expects to be alike compare equal."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

__all__ = ["pg_shape"]

_COLUMNS = """
SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated, a.attcollation
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = CAST(:s AS regnamespace) AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY 1, 2
"""
_CONSTRAINTS = """
SELECT c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid)
  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
 WHERE k.connamespace = CAST(:s AS regnamespace) ORDER BY 1, 2
"""
_RELATIONS = """
SELECT relname, relkind, relpersistence FROM pg_class
 WHERE relnamespace = CAST(:s AS regnamespace) ORDER BY 1
"""
_SEQUENCES = """
SELECT c.relname, s.seqtypid, s.seqincrement, s.seqmin, s.seqmax, s.seqstart, s.seqcycle,
       (SELECT t.relname || '.' || d.refobjsubid FROM pg_depend d
          JOIN pg_class t ON t.oid = d.refobjid
         WHERE d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype = 'a')
  FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
 WHERE c.relnamespace = CAST(:s AS regnamespace) ORDER BY 1
"""


def pg_shape(engine: sa.Engine, schema: str) -> dict[str, Any]:
    """What ``schema`` is made of, its names unqualified, the rows it holds and where its
    sequences stand."""
    params = {"s": schema}
    with engine.begin() as conn:
        conn.execute(sa.text(f'SET LOCAL search_path = "{schema}"'))
        shape: dict[str, Any] = {
            name: conn.execute(sa.text(query), params).all()
            for name, query in [
                ("columns", _COLUMNS),
                ("constraints", _CONSTRAINTS),
                ("relations", _RELATIONS),
                ("sequences", _SEQUENCES),
            ]
        }
        shape["indexes"] = [
            (name, definition.replace(f" ON {schema}.", " ON "))
            for name, definition in conn.execute(
                sa.text(
                    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = :s ORDER BY 1"
                ),
                params,
            )
        ]
        shape["rows"] = {
            table: sorted(conn.execute(sa.text(f'SELECT * FROM "{table}"')).all())
            for table, kind, _ in shape["relations"]
            if kind == "r"
        }
        shape["sequence values"] = {
            name: conn.execute(sa.text(f'SELECT last_value, is_called FROM "{name}"')).one()
            for name, kind, _ in shape["relations"]
            if kind == "S"
        }
    return shape
