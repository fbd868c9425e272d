"""AI assistance (issue 16): the model-call allowance (one row per reserved call: daily
per owner and in total, one in flight per owner, a minimum spacing), reviewable drafts of
model suggestions, and the assistance provenance of saved evidence.

Revision ID: 0006_assist
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_assist"
down_revision = "0005_jobs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "assist_calls",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("feature", sa.String(40), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
    )
    op.create_index("ix_assist_calls_day", "assist_calls", ["day"])
    op.create_index("ix_assist_calls_owner_started", "assist_calls", ["owner", "started_at"])
    op.create_table(
        "assist_drafts",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("feature", sa.String(40), nullable=False),
        sa.Column(
            "paper_id",
            sa.String(130),
            sa.ForeignKey("papers.id", ondelete="CASCADE"),
            nullable=True,
            index=True,
        ),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("saved_as", sa.String(64), nullable=True),
    )
    op.create_table(
        "assist_provenance",
        sa.Column(
            "evidence_id",
            sa.String(64),
            sa.ForeignKey("evidence.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("draft_id", sa.String(64), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("assist_provenance")
    op.drop_table("assist_drafts")
    op.drop_index("ix_assist_calls_owner_started", table_name="assist_calls")
    op.drop_index("ix_assist_calls_day", table_name="assist_calls")
    op.drop_table("assist_calls")
