"""Listing an owner's assistance drafts of one feature (the Study summary keeps its
drafts and saved Study reports in ``assist_drafts``)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._assist import AssistDraftRow, assist_drafts
from ._engine import load_json

__all__ = ["assist_list_drafts"]


def assist_list_drafts(
    conn: Connection, *, owner: str, feature: str, limit: int = 200
) -> list[AssistDraftRow]:
    """The owner's drafts of ``feature``, newest first (another owner's are never listed)."""
    c = assist_drafts.c
    rows = conn.execute(
        sa.select(assist_drafts)
        .where(c.owner == owner, c.feature == feature)
        .order_by(c.created_at.desc(), c.id)
        .limit(limit)
    )
    return [
        AssistDraftRow(
            r.id,
            r.owner,
            r.feature,
            r.paper_id,
            load_json(r.data, what="assistance draft"),
            r.created_at,
            r.saved_as,
        )
        for r in rows
    ]
