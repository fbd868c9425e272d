"""Recent search runs in the store (issue 17): each web search an owner ran, with the time
it was last shown, so a selection, a kept run or the reader works from any worker of a team
server. Bounded per owner and by age by the store module ``_recent``.

Revision ID: 0008_recent_runs
Revises: 0007_team
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_recent_runs"
down_revision = "0007_team"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recent_runs",
        sa.Column("owner", sa.String(200), primary_key=True),
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("run", sa.Text, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
    )
    op.create_index("ix_recent_runs_seen_at", "recent_runs", ["seen_at"])
    op.create_index("ix_recent_runs_owner_seen", "recent_runs", ["owner", "seen_at"])


def downgrade() -> None:
    op.drop_index("ix_recent_runs_owner_seen", table_name="recent_runs")
    op.drop_index("ix_recent_runs_seen_at", table_name="recent_runs")
    op.drop_table("recent_runs")
