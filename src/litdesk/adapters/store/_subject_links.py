"""Evidence records' links to subjects (``evidence_subjects``): written with the record,
read beside it, and the subjects an account's visible evidence is linked to (the evidence
table's filter). A link goes with its record (foreign key, ``ON DELETE CASCADE``) and
into the trash with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk.core.vocab import SubjectRef

from ._accounts import LOCAL_OWNER, visible_documents
from ._schema import evidence, evidence_subjects

__all__ = [
    "evidence_linked_to",
    "link_subjects",
    "linked_subjects",
    "subjects_of",
]


def link_subjects(conn: Connection, evidence_id: str, subjects: Sequence[SubjectRef]) -> None:
    """Link ``evidence_id`` to ``subjects`` (in their order)."""
    if subjects:
        conn.execute(
            sa.insert(evidence_subjects),
            [
                {
                    "evidence_id": evidence_id,
                    "vocabulary": s.vocabulary,
                    "subject_id": s.id,
                    "label": s.label,
                    "position": n,
                }
                for n, s in enumerate(subjects)
            ],
        )


def subjects_of(conn: Connection, evidence_ids: Sequence[str]) -> dict[str, list[SubjectRef]]:
    """The subjects each of ``evidence_ids`` links to, in the order they were linked."""
    out: dict[str, list[SubjectRef]] = {}
    ids = list(dict.fromkeys(evidence_ids))
    for start in range(0, len(ids), 500):  # bounded IN lists
        rows = conn.execute(
            sa.select(evidence_subjects)
            .where(evidence_subjects.c.evidence_id.in_(ids[start : start + 500]))
            .order_by(evidence_subjects.c.evidence_id, evidence_subjects.c.position)
        )
        for r in rows:
            out.setdefault(r.evidence_id, []).append(
                SubjectRef(r.vocabulary, r.subject_id, r.label)
            )
    return out


def evidence_linked_to(vocabulary: str, subject_id: str) -> sa.Select[Any]:
    """Ids of the evidence records linked to the subject (a subquery for ``IN``)."""
    return sa.select(evidence_subjects.c.evidence_id).where(
        evidence_subjects.c.vocabulary == vocabulary,
        evidence_subjects.c.subject_id == subject_id,
    )


def linked_subjects(
    conn: Connection, *, visible_to: str, study_id: str | None = None, limit: int = 500
) -> list[tuple[SubjectRef, int]]:
    """The subjects the evidence ``visible_to`` may see is linked to (in ``study_id``
    when given), each with its number of records; by label."""
    query = sa.select(
        evidence_subjects.c.vocabulary,
        evidence_subjects.c.subject_id,
        sa.func.min(evidence_subjects.c.label).label("label"),
        sa.func.count().label("n"),
    ).join(evidence, evidence.c.id == evidence_subjects.c.evidence_id)
    if visible_to != LOCAL_OWNER:
        query = query.where(visible_documents(evidence, visible_to))
    if study_id is not None:
        query = query.where(evidence.c.study_id == study_id)
    query = (
        query.group_by(evidence_subjects.c.vocabulary, evidence_subjects.c.subject_id)
        .order_by(sa.func.min(evidence_subjects.c.label), evidence_subjects.c.subject_id)
        .limit(limit)
    )
    return [
        (SubjectRef(r.vocabulary, r.subject_id, r.label), int(r.n)) for r in conn.execute(query)
    ]
