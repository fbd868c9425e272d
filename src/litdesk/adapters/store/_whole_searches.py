"""Whole searches kept with a Study (issue 27, migration ``0018_whole_searches``).

A whole search pages through every lane of a search up to a cap per lane. Its run is an
ordinary ``search_runs`` row (definition, lanes with their totals, a ``complete`` /
``capped`` note per lane, no hits: a whole search is far over a run document's size), its
hits are rows of ``search_run_hits`` (each the run hit's document: the paper, its lanes
and ranks), and ``study_search_rounds`` says which round of the Study brought the run
(0: added, 1, 2, ...: the update rounds), with what cap, by whom, from which job, and the
round's update report. Everything of one whole search commits in one transaction
(:func:`insert_whole_run`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._engine import WHOLE_HITS_WRITTEN, dump_json, load_json, rows_loaded, sources_changed
from ._schema import (
    metadata,
    paper_keys,
    paper_savers,
    papers,
    search_runs,
    studies,
    study_papers,
    study_search_runs,
)

__all__ = [
    "HIT_BATCH",
    "BegunRound",
    "RoundRow",
    "WholeHitRow",
    "begin_round",
    "begun_rounds",
    "lock_rounds",
    "get_round_of_job",
    "insert_new_papers",
    "insert_whole_run",
    "list_rounds",
    "next_round",
    "run_hit_count",
    "run_definition",
    "run_hits",
    "search_run_hits",
    "study_begun_rounds",
    "study_paper_ids",
    "study_search_rounds",
    "written_hits",
]

_ID = 64
_WHEN = 40
#: rows written (and read) per statement
HIT_BATCH: Final = 500

search_run_hits = sa.Table(
    "search_run_hits",
    metadata,
    sa.Column(
        "run_id",
        sa.String(100),
        sa.ForeignKey("search_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("lane", sa.String(60), nullable=False),
    sa.Column("provider", sa.String(40), nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Column("paper_id", sa.String(130), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)

study_search_rounds = sa.Table(
    "study_search_rounds",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column(
        "run_id",
        sa.String(100),
        sa.ForeignKey("search_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # "search" (added) | "update"
    sa.Column("cap", sa.Integer, nullable=False),
    sa.Column("job_id", sa.String(_ID), nullable=True, index=True),
    sa.Column("by", sa.String(200), nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("report", sa.Text, nullable=True),
    sa.Index("ix_study_search_rounds_round", "study_id", "round"),
)


#: update rounds begun by hand (``study round``, migration 0036): imports and papers
#: joining the Study after ``began_at`` belong to the round (issue 28)
study_begun_rounds = sa.Table(
    "study_begun_rounds",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("by", sa.String(200), nullable=False),
    sa.Column("began_at", sa.String(_WHEN), nullable=False),
    sa.Column("note", sa.Text, nullable=True),
)


@dataclass(frozen=True, slots=True)
class BegunRound:
    """An update round begun by hand: its number, who began it, when, and the note."""

    study_id: str
    round: int
    by: str
    began_at: str
    note: str | None


@dataclass(frozen=True, slots=True)
class WholeHitRow:
    """One hit of a whole search: its position in the run, its first lane and rank there,
    its paper id and the run hit's document (``paper``, ``contributions``, ...)."""

    position: int
    lane: str
    provider: str
    rank: int
    paper_id: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RoundRow:
    """A whole search of a Study: its run, round, cap, who ran it, and its report."""

    study_id: str
    run_id: str
    round: int
    kind: str
    cap: int
    job_id: str | None
    by: str
    created_at: str
    report: dict[str, Any] | None


def insert_whole_run(
    conn: Connection,
    *,
    run_id: str,
    owner: str,
    definition: dict[str, Any],
    run: dict[str, Any],
    executed_at: str,
    hits: Sequence[WholeHitRow],
    study_id: str,
    round_no: int,
    kind: str,
    cap: int,
    job_id: str | None,
    by: str,
    now: str,
    report: dict[str, Any] | None = None,
) -> None:
    """Inside the caller's transaction: the run, its hits, its Study link and round."""
    conn.execute(
        sa.insert(search_runs).values(
            id=run_id,
            owner=owner,
            definition=dump_json(definition),
            run=dump_json(run),
            created_at=now,
            executed_at=executed_at,
        )
    )
    for start in range(0, len(hits), HIT_BATCH):
        conn.execute(
            sa.insert(search_run_hits),
            [
                {
                    "run_id": run_id,
                    "position": h.position,
                    "lane": h.lane,
                    "provider": h.provider,
                    "rank": h.rank,
                    "paper_id": h.paper_id,
                    "data": dump_json(h.data),
                }
                for h in hits[start : start + HIT_BATCH]
            ],
        )
    written = conn.info.setdefault(WHOLE_HITS_WRITTEN, {})
    written[run_id] = (conn.get_transaction(), [h.data for h in sorted(hits, key=_position)])
    conn.execute(
        sa.insert(study_search_runs).values(
            study_id=study_id, run_id=run_id, added_at=now, papers_at=now
        )
    )  # its hits are the Study's papers in this transaction (commit_whole)
    sources_changed(conn, study_id)
    conn.execute(
        sa.insert(study_search_rounds).values(
            study_id=study_id,
            run_id=run_id,
            round=round_no,
            kind=kind,
            cap=cap,
            job_id=job_id,
            by=by,
            created_at=now,
            report=dump_json(report) if report is not None else None,
        )
    )


def _round(r: Any) -> RoundRow:
    report = load_json(r.report, what="update report") if r.report is not None else None
    return RoundRow(
        r.study_id,
        r.run_id,
        int(r.round),
        r.kind,
        int(r.cap),
        r.job_id,
        r.by,
        r.created_at,
        report if isinstance(report, dict) else None,
    )


#: built once, bound at execution: every screening page and Study view reads it
_ROUNDS: Final = (
    sa.select(study_search_rounds)
    .where(study_search_rounds.c.study_id == sa.bindparam("sid"))
    .order_by(study_search_rounds.c.round, study_search_rounds.c.created_at)
)


def list_rounds(conn: Connection, study_id: str) -> list[RoundRow]:
    """The Study's whole searches, by round then time."""
    return [_round(r) for r in conn.execute(_ROUNDS, {"sid": study_id})]


def get_round_of_job(conn: Connection, job_id: str) -> list[RoundRow]:
    """The rounds a job committed (a job claimed again finds its work done)."""
    rows = conn.execute(
        sa.select(study_search_rounds).where(study_search_rounds.c.job_id == job_id)
    )
    return [_round(r) for r in rows]


def next_round(conn: Connection, study_id: str, *, update: bool = False) -> int:
    """The number of the Study's next round (1 after the first searches): one past every
    round so far, whole searches' and begun ones'; with ``update`` (a ``study update``),
    the latest round begun by hand while it has no whole search yet — the update's
    searches are that round's, beside its imports."""
    top = conn.execute(
        sa.select(sa.func.max(study_search_rounds.c.round)).where(
            study_search_rounds.c.study_id == study_id
        )
    ).scalar()
    began = conn.execute(
        sa.select(sa.func.max(study_begun_rounds.c.round)).where(
            study_begun_rounds.c.study_id == study_id
        )
    ).scalar()
    whole = int(top) if top is not None else 0
    if began is not None and int(began) > whole:
        return int(began) if update else int(began) + 1
    return whole + 1


def lock_rounds(conn: Connection, study_id: str) -> None:
    """Inside a write transaction: hold the Study's row until it ends, so two rounds begun
    at once are numbered one after the other (PostgreSQL; SQLite's writer is one)."""
    conn.execute(sa.select(studies.c.id).where(studies.c.id == study_id).with_for_update())


def begun_rounds(conn: Connection, study_id: str) -> list[BegunRound]:
    """The update rounds begun by hand in the Study, in round order."""
    rows = conn.execute(
        sa.select(study_begun_rounds)
        .where(study_begun_rounds.c.study_id == study_id)
        .order_by(study_begun_rounds.c.round)
    )
    return [BegunRound(r.study_id, int(r.round), r.by, r.began_at, r.note) for r in rows]


def begin_round(
    conn: Connection, study_id: str, *, number: int, by: str, at: str, note: str | None
) -> BegunRound:
    """Inside the caller's write transaction: round ``number`` of the Study begins at ``at``."""
    conn.execute(
        sa.insert(study_begun_rounds).values(
            study_id=study_id, round=number, by=by, began_at=at, note=note
        )
    )
    return BegunRound(study_id, number, by, at, note)


def run_hit_count(conn: Connection, run_id: str) -> int:
    return int(
        conn.execute(
            sa.select(sa.func.count())
            .select_from(search_run_hits)
            .where(search_run_hits.c.run_id == run_id)
        ).scalar_one()
    )


def run_hits(conn: Connection, run_id: str) -> Iterator[WholeHitRow]:
    """A whole search's hits in run order (the document of each as stored: its reader
    validates it)."""
    after = -1
    while True:
        rows = list(
            conn.execute(
                sa.select(search_run_hits)
                .where(search_run_hits.c.run_id == run_id, search_run_hits.c.position > after)
                .order_by(search_run_hits.c.position)
                .limit(HIT_BATCH)
            )
        )
        for r in rows:
            data = load_json(r.data, what="search hit")
            yield WholeHitRow(
                int(r.position),
                r.lane,
                r.provider,
                int(r.rank),
                r.paper_id,
                data if isinstance(data, dict) else {},
            )
        if len(rows) < HIT_BATCH:
            return
        after = int(rows[-1].position)


def _position(hit: WholeHitRow) -> int:
    return hit.position


def written_hits(conn: Connection, run_id: str) -> list[dict[str, Any]] | None:
    """The hit documents of a whole search this very write transaction inserted, as it
    stored them (what :func:`run_hits` reads back, in run order), without a query;
    ``None`` for any other run or transaction (then :func:`run_hits` reads them)."""
    got = conn.info.get(WHOLE_HITS_WRITTEN, {}).get(run_id)
    now = conn.get_transaction()
    if got is None or now is None or got[0] is not now:
        return None
    return list(got[1])


def study_paper_ids(conn: Connection, study_id: str) -> set[str]:
    """The ids of the Study's papers."""
    rows = conn.execute(
        sa.select(study_papers.c.paper_id).where(study_papers.c.study_id == study_id)
    )
    return {r.paper_id for r in rows}


def run_definition(conn: Connection, run_id: str) -> Any:
    """A stored run's definition document (its reader validates it)."""
    text = conn.execute(
        sa.select(search_runs.c.definition).where(search_runs.c.id == run_id)
    ).scalar_one()
    return load_json(text, what="search definition")


def insert_new_papers(
    conn: Connection,
    new: Sequence[tuple[str, dict[str, Any], Sequence[str]]],
    *,
    owner: str,
    study_id: str,
    now: str,
) -> None:
    """Inside the caller's transaction (holding the identity lock): papers no stored key
    names — each ``(id, document, identity keys)`` — inserted with their keys, saved by
    ``owner`` and added to the Study, a statement per table for the whole batch."""
    if not new:
        return
    conn.execute(
        sa.insert(papers),
        [
            {"id": pid, "data": dump_json(doc), "status": None, "created_at": now,
             "updated_at": now, "owner": owner}
            for pid, doc, _keys in new
        ],
    )  # fmt: skip
    key_rows = [
        {"owner": owner, "key": k, "paper_id": pid}
        for pid, _doc, keys in new
        for k in dict.fromkeys(keys)
    ]
    conn.execute(sa.insert(paper_keys), key_rows)
    conn.execute(
        sa.insert(paper_savers),
        [{"paper_id": pid, "account_id": owner, "saved_at": now} for pid, _doc, _k in new],
    )
    conn.execute(
        sa.insert(study_papers),
        [
            {"study_id": study_id, "paper_id": pid, "added_at": now, "paper_owner": owner}
            for pid, _doc, _k in new
        ],
    )
    rows_loaded(conn, papers, len(new))
    rows_loaded(conn, paper_keys, len(key_rows))
    rows_loaded(conn, paper_savers, len(new))
    rows_loaded(conn, study_papers, len(new))
    sources_changed(conn, study_id)
