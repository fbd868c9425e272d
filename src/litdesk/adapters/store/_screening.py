"""A Study's screening (migration 0021_screening, issue 28): settings (one JSON document),
decisions and retrieval notes (append-only: rows are inserted, never updated or deleted)
and the model's scores per stage (one row per Study and stage, replaced in one statement
pair inside the caller's transaction). The caller checks the account's role and holds
:data:`SCREENING_LOCK` on the Study while it reads what it then appends after."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._engine import StoredDataInvalid, load_json
from ._schema import (
    screening_decisions,
    screening_models,
    screening_retrieval,
    screening_settings,
    screening_vectors,
    studies,
    study_history,
    study_records,
)
from ._study_records import RELABELLED

__all__ = [
    "DECISION_KINDS",
    "SCREENING_LOCK",
    "DecisionRow",
    "ModelRow",
    "RetrievalRow",
    "SettingsRow",
    "add_decision",
    "add_decisions",
    "add_retrieval",
    "count_decisions",
    "get_model",
    "get_settings",
    "get_vectors",
    "known_vectors",
    "list_decisions",
    "list_retrieval",
    "model_version",
    "put_model",
    "put_settings",
    "put_vectors",
    "record_fingerprint",
    "record_groups",
]

#: the lock namespace writers of a Study's screening hold (see :meth:`Store.lock`)
SCREENING_LOCK: Final = 1909102128
DECISION_KINDS: Final = ("decision", "undo", "resolution")


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """One stored decision, undo or resolution (``undoes``: the row an undo takes back)."""

    id: int
    study_id: str
    record_key: str
    stage: str
    reviewer: str
    kind: str
    verdict: str | None
    reason: str
    note: str
    source: str
    made_at: str
    undoes: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "record_key": self.record_key,
            "stage": self.stage,
            "reviewer": self.reviewer,
            "kind": self.kind,
            "verdict": self.verdict,
            "reason": self.reason,
            "note": self.note,
            "source": self.source,
            "made_at": self.made_at,
            "undoes": self.undoes,
        }


@dataclass(frozen=True, slots=True)
class RetrievalRow:
    id: int
    record_key: str
    status: str
    note: str
    at: str
    by: str


@dataclass(frozen=True, slots=True)
class SettingsRow:
    data: dict[str, Any]
    updated_at: str
    updated_by: str


@dataclass(frozen=True, slots=True)
class ModelRow:
    """The scores in force for a Study's stage: ``version`` counts the retrains."""

    stage: str
    version: int
    trained_on: int
    scores: dict[str, float]
    trained_at: str
    #: the model that made the scores (``None``: stored before models were named, the
    #: default ``litdesk-svm-2``)
    model: str | None = None


# -- settings ---------------------------------------------------------------------------------


#: the reads every screening use case makes, built once and bound at execution (`:sid`,
#: ...): constructing a statement and its cache key cost more than running it (SQLite)
_SID: Final[sa.BindParameter[str]] = sa.bindparam("sid")
_SETTINGS: Final = sa.select(screening_settings).where(screening_settings.c.study_id == _SID)


def get_settings(conn: Connection, study_id: str) -> SettingsRow | None:
    row = conn.execute(_SETTINGS, {"sid": study_id}).first()
    if row is None:
        return None
    data = load_json(row.data, what="screening settings")
    if not isinstance(data, dict):
        raise StoredDataInvalid("the Study's screening settings are not a JSON object")
    return SettingsRow(data, row.updated_at, row.updated_by)


def put_settings(
    conn: Connection, study_id: str, data: Mapping[str, Any], *, by: str, now: str
) -> None:
    """Store the Study's settings whole (the caller merged and validated them)."""
    text = json.dumps(dict(data), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    values = {"data": text, "updated_at": now, "updated_by": by}
    done = conn.execute(
        sa.update(screening_settings)
        .where(screening_settings.c.study_id == study_id)
        .values(**values)
    )
    if not done.rowcount:
        conn.execute(sa.insert(screening_settings).values(study_id=study_id, **values))


# -- decisions --------------------------------------------------------------------------------


def add_decision(
    conn: Connection,
    study_id: str,
    *,
    record_key: str,
    stage: str,
    reviewer: str,
    kind: str,
    verdict: str | None,
    reason: str = "",
    note: str = "",
    source: str,
    made_at: str,
    undoes: int | None = None,
) -> DecisionRow:
    """Append one row (never updates one); returns it with its id."""
    if kind not in DECISION_KINDS:
        raise ValueError(f"unknown decision kind {kind!r}")
    values: dict[str, Any] = {
        "study_id": study_id,
        "record_key": record_key,
        "stage": stage,
        "reviewer": reviewer,
        "kind": kind,
        "verdict": verdict,
        "reason": reason,
        "note": note,
        "source": source,
        "made_at": made_at,
        "undoes": undoes,
    }
    new_id = conn.execute(
        sa.insert(screening_decisions).values(**values).returning(screening_decisions.c.id)
    ).scalar_one()
    values.pop("study_id")
    return DecisionRow(int(new_id), study_id, **values)


def add_decisions(conn: Connection, study_id: str, rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Append many rows at once (each with :func:`add_decision`'s keywords), in their
    order; their ids, in the same order."""
    if not rows:
        return []
    values: list[dict[str, Any]] = []
    for r in rows:
        if r["kind"] not in DECISION_KINDS:
            raise ValueError(f"unknown decision kind {r['kind']!r}")
        values.append({"study_id": study_id, "reason": "", "note": "", "undoes": None, **r})
    done = conn.execute(
        sa.insert(screening_decisions).returning(
            screening_decisions.c.id, sort_by_parameter_order=True
        ),
        values,
    )
    return [int(i) for i in done.scalars()]


def _decision(row: Any) -> DecisionRow:
    return DecisionRow(
        int(row.id),
        row.study_id,
        row.record_key,
        row.stage,
        row.reviewer,
        row.kind,
        row.verdict,
        row.reason,
        row.note,
        row.source,
        row.made_at,
        None if row.undoes is None else int(row.undoes),
    )


def list_decisions(
    conn: Connection,
    study_id: str,
    *,
    stage: str | None = None,
    after: int = 0,
) -> list[DecisionRow]:
    """The Study's decisions (of one stage), oldest first (rows with id > ``after``)."""
    binds: dict[str, Any] = {"sid": study_id, "after": after}
    if stage is not None:
        binds["stage"] = stage
    return [_decision(r) for r in conn.execute(_DECISIONS[stage is not None], binds)]


def _decisions(by_stage: bool) -> sa.Select[Any]:
    d = screening_decisions.c
    query = sa.select(screening_decisions).where(d.study_id == _SID, d.id > sa.bindparam("after"))
    if by_stage:
        query = query.where(d.stage == sa.bindparam("stage"))
    return query.order_by(d.id)


_DECISIONS: Final = {by_stage: _decisions(by_stage) for by_stage in (False, True)}
_DECISION_COUNT: Final = sa.select(sa.func.count(), sa.func.max(screening_decisions.c.id)).where(
    screening_decisions.c.study_id == _SID
)


def count_decisions(conn: Connection, study_id: str) -> tuple[int, int]:
    """How many rows the Study's decisions hold and the newest id (0 when none): a
    cheap fingerprint of the history."""
    row = conn.execute(_DECISION_COUNT, {"sid": study_id}).one()
    return int(row[0] or 0), int(row[1] or 0)


# -- full-text retrieval ---------------------------------------------------------------------


def add_retrieval(
    conn: Connection,
    study_id: str,
    *,
    record_key: str,
    retrieved: bool,
    note: str,
    by: str,
    at: str,
) -> RetrievalRow:
    status = "retrieved" if retrieved else "not_retrieved"
    new_id = conn.execute(
        sa.insert(screening_retrieval)
        .values(study_id=study_id, record_key=record_key, status=status, note=note, at=at, by=by)
        .returning(screening_retrieval.c.id)
    ).scalar_one()
    return RetrievalRow(int(new_id), record_key, status, note, at, by)


def list_retrieval(conn: Connection, study_id: str) -> list[RetrievalRow]:
    """Every retrieval note of the Study, oldest first (the latest per record counts)."""
    rows = conn.execute(_RETRIEVAL, {"sid": study_id})
    return [RetrievalRow(int(r.id), r.record_key, r.status, r.note, r.at, r.by) for r in rows]


_RETRIEVAL: Final = (
    sa.select(screening_retrieval)
    .where(screening_retrieval.c.study_id == _SID)
    .order_by(screening_retrieval.c.id)
)

# -- model scores ----------------------------------------------------------------------------


def _whose(study_id: str, stage: str, reviewer: str) -> sa.ColumnElement[bool]:
    c = screening_models.c
    return sa.and_(c.study_id == study_id, c.stage == stage, c.reviewer == reviewer)


_MODEL_VERSION: Final = sa.select(screening_models.c.version, screening_models.c.trained_on).where(
    screening_models.c.study_id == _SID,
    screening_models.c.stage == sa.bindparam("stage"),
    screening_models.c.reviewer == sa.bindparam("reviewer"),
)


def model_version(
    conn: Connection, study_id: str, stage: str, reviewer: str = ""
) -> tuple[int, int] | None:
    """``(version, trained_on)`` of the stored scores, without reading them (``reviewer``:
    that reviewer's own model; ``''`` the shared one)."""
    row = conn.execute(
        _MODEL_VERSION, {"sid": study_id, "stage": stage, "reviewer": reviewer}
    ).first()
    return None if row is None else (int(row.version), int(row.trained_on))


def get_model(conn: Connection, study_id: str, stage: str, reviewer: str = "") -> ModelRow | None:
    row = conn.execute(sa.select(screening_models).where(_whose(study_id, stage, reviewer))).first()
    if row is None:
        return None
    scores = load_json(row.scores, what="screening scores")
    if not isinstance(scores, dict):
        raise StoredDataInvalid("the Study's screening scores are not a JSON object")
    return ModelRow(
        stage,
        int(row.version),
        int(row.trained_on),
        {str(k): float(v) for k, v in scores.items()},
        row.trained_at,
        row.model,
    )


def put_model(
    conn: Connection,
    study_id: str,
    stage: str,
    *,
    trained_on: int,
    scores: Mapping[str, float],
    trained_at: str,
    model: str | None = None,
    reviewer: str = "",
) -> int:
    """Replace the stage's scores with the next version (inside the caller's transaction:
    until it commits the previous scores stay in force); returns the new version.
    ``reviewer``: that reviewer's own model (its versions count on their own)."""
    current = model_version(conn, study_id, stage, reviewer)
    version = (current[0] if current else 0) + 1
    text = json.dumps(dict(scores), separators=(",", ":"))
    values = {
        "version": version,
        "trained_on": trained_on,
        "scores": text,
        "trained_at": trained_at,
        "model": model,
    }
    if current is None:
        conn.execute(
            sa.insert(screening_models).values(
                study_id=study_id, stage=stage, reviewer=reviewer, **values
            )
        )
    else:
        conn.execute(
            sa.update(screening_models).where(_whose(study_id, stage, reviewer)).values(**values)
        )
    return version


def get_vectors(
    conn: Connection, study_id: str, embedder: str, shas: Sequence[str] | None = None
) -> dict[str, bytes]:
    """The Study's stored rows of ``embedder`` by text SHA-256 (``shas``: only those)."""
    c = screening_vectors.c
    query = sa.select(c.text_sha, c.vector).where(c.study_id == study_id, c.embedder == embedder)
    if shas is None:
        return {r.text_sha: bytes(r.vector) for r in conn.execute(query)}
    out: dict[str, bytes] = {}
    wanted = list(dict.fromkeys(shas))
    for start in range(0, len(wanted), 500):  # bounded IN lists
        part = wanted[start : start + 500]
        out.update(
            (r.text_sha, bytes(r.vector)) for r in conn.execute(query.where(c.text_sha.in_(part)))
        )
    return out


def known_vectors(conn: Connection, study_id: str, embedder: str, shas: Sequence[str]) -> set[str]:
    """Which of ``shas`` have a stored row of ``embedder`` (their keys only, no rows read)."""
    c = screening_vectors.c
    query = sa.select(c.text_sha).where(c.study_id == study_id, c.embedder == embedder)
    out: set[str] = set()
    wanted = list(dict.fromkeys(shas))
    for start in range(0, len(wanted), 500):  # bounded IN lists
        part = wanted[start : start + 500]
        out.update(r.text_sha for r in conn.execute(query.where(c.text_sha.in_(part))))
    return out


def put_vectors(conn: Connection, study_id: str, embedder: str, rows: Mapping[str, bytes]) -> int:
    """Store rows not stored yet (a text's row is never replaced: the embedder is
    deterministic); returns how many were new."""
    if not rows:
        return 0
    known = known_vectors(conn, study_id, embedder, list(rows))
    new = [
        {"study_id": study_id, "embedder": embedder, "text_sha": sha, "vector": vector}
        for sha, vector in rows.items()
        if sha not in known
    ]
    if new:
        conn.execute(sa.insert(screening_vectors), new)
    return len(new)


def _fingerprint() -> sa.Select[Any]:
    c = study_records.c
    h = study_history.c
    relabelled = (
        sa.select(sa.func.max(h.seq))
        .where(h.study_id == _SID, h.action == RELABELLED)
        .scalar_subquery()
    )
    version = sa.select(studies.c.records_version).where(studies.c.id == _SID).scalar_subquery()
    return sa.select(
        sa.func.count(),
        sa.func.count(c.grp),
        sa.func.count(sa.distinct(c.grp)),
        sa.func.sum(sa.func.length(c.grp)),
        sa.func.min(c.grp),
        sa.func.max(c.grp),
        relabelled,
        version,
    ).where(c.study_id == _SID)


_FINGERPRINT: Final = _fingerprint()


def record_fingerprint(conn: Connection, study_id: str) -> str:
    """A cheap fingerprint of the Study's records and their groups (one aggregate row read
    from the ``(study_id, grp)`` index, no documents): the Study's records version
    (:func:`~._engine.records_version`: renewed by every committed write of its records —
    a record's text or rule changed in place, records moved between groups of the same
    sizes), and for a Study without one yet: records added, removed, grouped or regrouped
    into more, fewer or differently named groups change it; and an import's records
    counted under another source (the latest such change in the Study's history:
    :data:`RELABELLED`)."""
    row = conn.execute(_FINGERPRINT, {"sid": study_id}).one()
    return "|".join("" if v is None else str(v) for v in row)


def record_groups(conn: Connection, study_id: str) -> list[tuple[str, str | None]]:
    """Every record key of the Study with its group key (``None``: not deduplicated yet),
    without the records' documents: what a cached working set is checked against."""
    rows = conn.execute(
        sa.select(study_records.c.key, study_records.c.grp)
        .where(study_records.c.study_id == study_id)
        .order_by(study_records.c.key)
    )
    return [(str(r.key), None if r.grp is None else str(r.grp)) for r in rows]
