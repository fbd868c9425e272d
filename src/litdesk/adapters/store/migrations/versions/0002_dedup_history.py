"""Deduplication history of a Study: every reviewer decision and every run, append-only.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dedup_history",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("kind", sa.String(16), nullable=False),  # decision | run
        sa.Column("a_digest", sa.String(80), nullable=True),
        sa.Column("b_digest", sa.String(80), nullable=True),
        sa.Column("decision", sa.String(16), nullable=True),  # merge | distinct | undone
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("dedup_history")
