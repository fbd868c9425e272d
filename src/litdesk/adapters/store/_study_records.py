"""A Study's records (``_schema.study_records``): what each of its sources identified, and
each record's group in the Study's working set once deduplicated."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._engine import dump_json, load_json, records_changed, records_version, rows_loaded
from ._memo import stored_record
from ._schema import imports, search_runs, study_papers, study_records, study_search_runs

__all__ = [
    "RELABELLED",
    "SOURCE_KINDS",
    "RecordCounts",
    "SourceRow",
    "StudyRecordRow",
    "count_by_database",
    "database_source_kinds",
    "count_records_by_database",
    "count_records",
    "covered_papers",
    "delete_source",
    "insert_records",
    "list_records",
    "paper_owners",
    "paper_record_names",
    "rename_paper_record",
    "record_groups_in_order",
    "record_sources",
    "records_version",
    "relabel_import_records",
    "refresh_paper_records",
    "set_groups",
    "set_record_papers",
    "study_sources",
    "run_document",
    "source_papers",
]

#: where a record came from: an import, a linked search run, a paper added by hand
SOURCE_KINDS: Final = frozenset({"import", "run", "paper"})
#: the Study's history action of an import's records counted under another source
#: (:func:`relabel_import_records`); a cached screen set is keyed by its latest (issue 28)
RELABELLED: Final = "import_source_set"


@dataclass(frozen=True, slots=True)
class StudyRecordRow:
    """One identified record of a Study. ``data`` holds the record's paper (``paper``) and
    its provenance (``label``: the source as people read it; ``source_record``: its own id
    there; ``lanes``: a run hit's lanes and ranks). ``grp`` is ``None`` until the record is
    deduplicated; ``rule`` says why it is in its group."""

    key: str
    source_kind: str
    source_id: str
    position: int
    digest: str
    database: str
    rank: int | None
    paper_id: str | None  # the saved paper the record is, when known
    data: dict[str, Any]
    added_at: str
    grp: str | None = None
    rule: str | None = None

    def values(self, study_id: str) -> dict[str, object]:
        return {
            "study_id": study_id,
            "key": self.key,
            "source_kind": self.source_kind,
            "source_id": self.source_id,
            "position": self.position,
            "digest": self.digest,
            "database": self.database[:200],
            "rank": self.rank,
            "paper_id": self.paper_id,
            "data": dump_json(self.data),
            "added_at": self.added_at,
            "grp": self.grp,
            "rule": self.rule,
        }


@dataclass(frozen=True, slots=True)
class RecordCounts:
    records: int
    grouped: int  # records with a group (deduplicated)
    groups: int  # groups among them
    pending: int  # records not deduplicated yet (each its own study until then)

    @property
    def working_set(self) -> int:
        return self.groups + self.pending


@dataclass(frozen=True, slots=True)
class SourceRow:
    """A source of a Study's records as the store holds it (``sha256``: an import's file)."""

    kind: str
    id: str
    at: str
    sha256: str | None = None


#: a Study's sources, built once and bound at execution (``:sid``): every regrouping and
#: PRISMA count reads them, and constructing a statement and its cache key cost more than
#: running it
_SOURCE_IMPORTS: Final = (
    sa.select(imports.c.id, imports.c.created_at, imports.c.sha256)
    .where(imports.c.study_id == sa.bindparam("sid"))
    .order_by(imports.c.created_at, imports.c.id)
)
_SOURCE_RUNS: Final = (
    sa.select(
        search_runs.c.id,
        sa.func.coalesce(study_search_runs.c.added_at, search_runs.c.executed_at).label("joined"),
    )
    .join(study_search_runs, study_search_runs.c.run_id == search_runs.c.id)
    .where(study_search_runs.c.study_id == sa.bindparam("sid"))
    .order_by(search_runs.c.executed_at, search_runs.c.id)
)
_SOURCE_PAPERS: Final = (
    sa.select(study_papers.c.paper_id, study_papers.c.added_at)
    .where(study_papers.c.study_id == sa.bindparam("sid"))
    .order_by(study_papers.c.added_at, study_papers.c.paper_id)
)


def study_sources(conn: Connection, study_id: str) -> list[SourceRow]:
    """The Study's imports and linked search runs (oldest first) and its saved papers."""
    sid = {"sid": study_id}
    out = [
        SourceRow("import", r.id, r.created_at, r.sha256)
        for r in conn.execute(_SOURCE_IMPORTS, sid)
    ]
    # a run's time is when it joined (0030: else its execution)
    out += [SourceRow("run", r.id, r.joined) for r in conn.execute(_SOURCE_RUNS, sid)]
    out += [SourceRow("paper", r.paper_id, r.added_at) for r in conn.execute(_SOURCE_PAPERS, sid)]
    return out


def paper_owners(conn: Connection, study_id: str) -> dict[str, str]:
    """``{paper id: the account whose record the Study holds}`` of its saved papers."""
    rows = conn.execute(
        sa.select(study_papers.c.paper_id, study_papers.c.paper_owner).where(
            study_papers.c.study_id == study_id
        )
    )
    return {str(r[0]): str(r[1]) for r in rows}


def paper_record_names(conn: Connection, study_id: str) -> dict[str, str]:
    """``{paper id: the source it is counted under}`` of the Study's records of saved
    papers that no import or run brought (added by hand, or from a Zotero library)."""
    c = study_records.c
    rows = conn.execute(
        sa.select(c.source_id, c.database).where(c.study_id == study_id, c.source_kind == "paper")
    )
    return {str(r[0]): str(r[1]) for r in rows}


def rename_paper_record(conn: Connection, study_id: str, paper_id: str, name: str) -> None:
    """Count the record of a saved paper under another source (its group stays)."""
    c = study_records.c
    where = (c.study_id == study_id, c.source_kind == "paper", c.source_id == paper_id)
    if _relabel(conn, where, name, "label", name):
        records_changed(conn, study_id)


def relabel_import_records(
    conn: Connection, study_id: str, import_id: str, name: str, kind: str
) -> int:
    """Count an import's records under another source (``name``, PRISMA ``kind``); their
    keys, digests and groups stay, so every decision on them holds. Answers how many."""
    c = study_records.c
    where = (c.study_id == study_id, c.source_kind == "import", c.source_id == import_id)
    n = _relabel(conn, where, name, "prisma_kind", kind)
    if n:
        records_changed(conn, study_id)
    return n


def _relabel(
    conn: Connection, where: tuple[sa.ColumnElement[bool], ...], name: str, field: str, value: str
) -> int:
    """The records ``where`` selects counted under source ``name`` (their document's
    ``field`` set to ``value``); answers how many."""
    c = study_records.c
    n = 0
    for key, data in conn.execute(sa.select(c.key, c.data).where(*where)).all():
        body = load_json(data)
        if isinstance(body, dict):
            body[field] = value
        conn.execute(
            sa.update(study_records)
            .where(*where, c.key == key)
            .values(database=name[:200], data=dump_json(body))
        )
        n += 1
    return n


def refresh_paper_records(
    conn: Connection, paper_id: str, paper: dict[str, Any], *, owner: str
) -> list[str]:
    """Give the records of ``owner``'s saved paper that no import or run brought (added by
    hand, or from a Zotero library: the record *is* the saved paper) its fields now, in
    every Study holding it; their key, digest and group stay, so reviewer decisions on
    them hold. Answers the Studies whose records changed."""
    c = study_records.c
    holding = sa.select(study_papers.c.study_id).where(
        study_papers.c.paper_id == paper_id, study_papers.c.paper_owner == owner
    )
    where = (c.source_kind == "paper", c.source_id == paper_id, c.study_id.in_(holding))
    changed: list[str] = []
    for study_id, key, data in conn.execute(sa.select(c.study_id, c.key, c.data).where(*where)):
        body = load_json(data)
        if not isinstance(body, dict) or body.get("paper") == paper:
            continue
        body["paper"] = paper
        conn.execute(
            sa.update(study_records)
            .where(c.study_id == study_id, c.key == key)
            .values(data=dump_json(body))
        )
        changed.append(str(study_id))
    for study_id in set(changed):
        records_changed(conn, study_id)
    return changed


#: a Study record's columns in :class:`StudyRecordRow`'s order (``data`` parsed)
_ROW_COLUMNS: Final = (
    study_records.c.key, study_records.c.source_kind, study_records.c.source_id,
    study_records.c.position, study_records.c.digest, study_records.c.database,
    study_records.c.rank, study_records.c.paper_id, study_records.c.data,
    study_records.c.added_at, study_records.c.grp, study_records.c.rule,
)  # fmt: skip


def _rows(result: sa.Result[Any]) -> list[StudyRecordRow]:
    """The rows of a select of ``_ROW_COLUMNS``, fetched at once and unpacked by position:
    a 7,100-record Study's read took 190 ms row by row by column name, 76 ms so."""
    rows = cast(Sequence[tuple[Any, ...]], result.all())
    return [
        StudyRecordRow(key, kind, source, pos, digest, db, rank, pid, stored_record(data), at,
                       grp, rule)
        for key, kind, source, pos, digest, db, rank, pid, data, at, grp, rule in rows
    ]  # fmt: skip


def record_sources(conn: Connection, study_id: str) -> dict[str, int]:
    """The sources whose records are materialised, with their record counts."""
    rows = conn.execute(
        sa.select(study_records.c.source_id, sa.func.count())
        .where(study_records.c.study_id == study_id)
        .group_by(study_records.c.source_id)
    )
    return {str(r[0]): int(r[1]) for r in rows}


def insert_records(conn: Connection, study_id: str, rows: Sequence[StudyRecordRow]) -> None:
    if rows:
        conn.execute(sa.insert(study_records), [r.values(study_id) for r in rows])
        rows_loaded(conn, study_records, len(rows))
        records_changed(conn, study_id)


def delete_source(conn: Connection, study_id: str, source_id: str) -> int:
    """Forget the records of a source the Study no longer has; how many went."""
    result = conn.execute(
        sa.delete(study_records).where(
            study_records.c.study_id == study_id, study_records.c.source_id == source_id
        )
    )
    gone = int(result.rowcount or 0)
    if gone:
        records_changed(conn, study_id)
    return gone


def list_records(
    conn: Connection,
    study_id: str,
    *,
    limit: int | None = None,
    offset: int = 0,
    keys: Iterable[str] | None = None,
) -> list[StudyRecordRow]:
    """The Study's records in the order they were identified (source, then position)."""
    q = sa.select(*_ROW_COLUMNS).where(study_records.c.study_id == study_id)
    if keys is not None:
        q = q.where(study_records.c.key.in_(list(keys)))
    q = q.order_by(study_records.c.added_at, study_records.c.source_id, study_records.c.position)
    # no OFFSET 0 when reading from the first: SQLite sorts a 7,100-record Study's rows
    # under ``LIMIT -1 OFFSET 0`` in 117 ms, without it in 46 ms
    if offset:
        q = q.offset(offset)
    if limit is not None:
        q = q.limit(limit)
    return _rows(conn.execute(q))


def record_groups_in_order(conn: Connection, study_id: str) -> list[tuple[str, str | None]]:
    """Every record's key and group (``None``: not deduplicated yet) in the order of
    :func:`list_records`, without the records' documents (a page of the working set reads
    the documents of its own groups' records only)."""
    c = study_records.c
    rows = conn.execute(
        sa.select(c.key, c.grp)
        .where(c.study_id == study_id)
        .order_by(c.added_at, c.source_id, c.position)
    ).all()
    return [(str(key), None if grp is None else str(grp)) for key, grp in rows]


def set_groups(
    conn: Connection, study_id: str, groups: Sequence[tuple[str, str | None, str | None]]
) -> int:
    """Set each record's group and rule (``(key, grp, rule)``) in one statement; a record
    that holds them already is not written (a regrouping after a few records came or went
    changes only the groups they are in). How many records were written."""
    if not groups:
        return 0
    held = {
        str(key): (grp, rule)
        for key, grp, rule in conn.execute(
            sa.select(study_records.c.key, study_records.c.grp, study_records.c.rule).where(
                study_records.c.study_id == study_id
            )
        )
    }
    todo = [
        {"s_id": study_id, "r_key": k, "r_grp": g, "r_rule": rule}
        for k, g, r in groups
        if k in held and held[k] != (g, rule := (r or None) and r[:300])
    ]
    if not todo:
        return 0
    stmt = (
        sa.update(study_records)
        .where(
            study_records.c.study_id == sa.bindparam("s_id"),
            study_records.c.key == sa.bindparam("r_key"),
        )
        .values(grp=sa.bindparam("r_grp"), rule=sa.bindparam("r_rule"))
    )
    conn.execute(stmt, todo)
    records_changed(conn, study_id)
    return len(todo)


def set_record_papers(conn: Connection, study_id: str, pairs: Sequence[tuple[str, str]]) -> None:
    """Set the saved paper of each record (``(key, paper id)``) in one statement: records
    identified before the Study held their papers (a run kept before migration 0031)."""
    if not pairs:
        return
    stmt = (
        sa.update(study_records)
        .where(
            study_records.c.study_id == sa.bindparam("s_id"),
            study_records.c.key == sa.bindparam("r_key"),
        )
        .values(paper_id=sa.bindparam("r_pid"))
    )
    conn.execute(stmt, [{"s_id": study_id, "r_key": k, "r_pid": pid} for k, pid in pairs])
    records_changed(conn, study_id)


def covered_papers(conn: Connection, study_id: str) -> set[str]:
    """The saved papers the Study's imported and searched records are."""
    c = study_records.c
    rows = conn.execute(
        sa.select(c.paper_id)
        .where(c.study_id == study_id, c.source_kind != "paper", c.paper_id.is_not(None))
        .distinct()
    )
    return {str(r[0]) for r in rows}


def source_papers(conn: Connection, study_id: str) -> dict[str, set[str]]:
    """The saved papers each imported or searched source of the Study brought (by source)."""
    c = study_records.c
    rows = conn.execute(
        sa.select(c.source_id, c.paper_id)
        .where(c.study_id == study_id, c.source_kind != "paper", c.paper_id.is_not(None))
        .distinct()
    )
    out: dict[str, set[str]] = {}
    for r in rows:
        out.setdefault(str(r[0]), set()).add(str(r[1]))
    return out


_COUNT_RECORDS: Final = sa.select(
    sa.func.count(),
    sa.func.count(study_records.c.grp),
    sa.func.count(sa.distinct(study_records.c.grp)),
).where(study_records.c.study_id == sa.bindparam("sid"))


def count_records(conn: Connection, study_id: str) -> RecordCounts:
    row = conn.execute(_COUNT_RECORDS, {"sid": study_id}).one()
    records, grouped, groups = int(row[0]), int(row[1]), int(row[2])
    return RecordCounts(records, grouped, groups, records - grouped)


def run_document(conn: Connection, run_id: str) -> Any:
    """A stored search run's document (validated by its reader)."""
    row = conn.execute(sa.select(search_runs.c.run).where(search_runs.c.id == run_id)).first()
    return None if row is None else load_json(row.run, what="search run")


def count_records_by_database(
    conn: Connection, study_id: str
) -> tuple[RecordCounts, dict[str, int]]:
    """:func:`count_records` and :func:`count_by_database` in one statement."""
    c = study_records.c
    where = c.study_id == study_id
    overall = sa.select(
        sa.literal(0).label("part"),
        sa.null().label("db"),
        sa.func.count().label("n"),
        sa.func.count(c.grp).label("grouped"),
        sa.func.count(sa.distinct(c.grp)).label("groups"),
    ).where(where)
    per = (
        sa.select(
            sa.literal(1).label("part"),
            c.database.label("db"),
            sa.func.count().label("n"),
            sa.literal(0).label("grouped"),
            sa.literal(0).label("groups"),
        )
        .where(where)
        .group_by(c.database)
    )
    counts = RecordCounts(0, 0, 0, 0)
    by_db: dict[str, int] = {}
    for r in conn.execute(sa.union_all(overall, per).order_by("part", "db")):
        if r.part == 0:
            records, grouped = int(r.n), int(r.grouped)
            counts = RecordCounts(records, grouped, int(r.groups), records - grouped)
        else:
            by_db[str(r.db)] = int(r.n)
    return counts, by_db


def database_source_kinds(conn: Connection, study_id: str) -> dict[str, set[str]]:
    """``{database: the kinds of source its records came from}`` (import, run, paper)."""
    c = study_records.c
    rows = conn.execute(
        sa.select(c.database, c.source_kind).where(c.study_id == study_id).distinct()
    )
    out: dict[str, set[str]] = {}
    for db, kind in rows:
        out.setdefault(str(db), set()).add(str(kind))
    return out


def count_by_database(conn: Connection, study_id: str) -> dict[str, int]:
    """The Study's records per database (an import counts as its file)."""
    c = study_records.c
    rows = conn.execute(
        sa.select(c.database, sa.func.count())
        .where(c.study_id == study_id)
        .group_by(c.database)
        .order_by(c.database)
    )
    return {str(r[0]): int(r[1]) for r in rows}
