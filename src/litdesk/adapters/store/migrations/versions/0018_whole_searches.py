"""Whole searches kept with a Study (issue 27): ``search_run_hits`` holds every hit of a
run too large for its document (each hit with its lane and rank), ``study_search_rounds``
says which round of a Study brought a run (0: added, N: update round N), its cap per lane,
who ran it, from which job, and the update round's report.

Revision ID: 0018_whole_searches
Revises: 0017_study_forms
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_whole_searches"
down_revision = "0017_study_forms"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "search_run_hits",
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
    op.create_table(
        "study_search_rounds",
        sa.Column(
            "study_id",
            sa.String(64),
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
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("cap", sa.Integer, nullable=False),
        sa.Column("job_id", sa.String(64), nullable=True),
        sa.Column("by", sa.String(200), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("report", sa.Text, nullable=True),
    )
    op.create_index("ix_study_search_rounds_job_id", "study_search_rounds", ["job_id"])
    op.create_index("ix_study_search_rounds_round", "study_search_rounds", ["study_id", "round"])


def downgrade() -> None:
    op.drop_table("study_search_rounds")
    op.drop_table("search_run_hits")
