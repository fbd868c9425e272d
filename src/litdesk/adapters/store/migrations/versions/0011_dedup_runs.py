"""A Study's finished deduplication runs with their review queue (issue 17): the web
review is shown and decided on from any worker of a team server, and a run's job claimed
again after its worker died finds its run recorded (the run's id is the job's id).

Revision ID: 0011_dedup_runs
Revises: 0010_oidc
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_dedup_runs"
down_revision = "0010_oidc"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dedup_runs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_index("ix_dedup_runs_study_created", "dedup_runs", ["study_id", "created_at"])
    op.create_table(
        "dedup_run_pairs",
        sa.Column(
            "run_id",
            sa.String(32),
            sa.ForeignKey("dedup_runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("no", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("a_key", sa.String(80), nullable=False),
        sa.Column("b_key", sa.String(80), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_index("ix_dedup_run_pairs_keys", "dedup_run_pairs", ["run_id", "a_key", "b_key"])


def downgrade() -> None:
    op.drop_index("ix_dedup_run_pairs_keys", table_name="dedup_run_pairs")
    op.drop_table("dedup_run_pairs")
    op.drop_index("ix_dedup_runs_study_created", table_name="dedup_runs")
    op.drop_table("dedup_runs")
