"""Background jobs (the store-backed queue of :mod:`litdesk.services.jobs`).

One row per job: its kind, owner, parameters and status; progress (done/total, the
current item, a rate); the worker holding it and until when (the lease, epoch seconds,
compared); a checkpoint a resumed attempt continues from; the result or the failure.

Revision ID: 0005_jobs
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_jobs"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(80), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=True),
        sa.Column("current", sa.Text, nullable=True),
        sa.Column("rate", sa.Float, nullable=True),
        sa.Column("message", sa.Text, nullable=False, server_default=""),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("checkpoint", sa.Text, nullable=True),
        sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("worker", sa.String(200), nullable=True),
        sa.Column("lease_until", sa.Float, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=True),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Column("heartbeat_at", sa.String(40), nullable=True),
    )
    op.create_index("ix_jobs_status_kind", "jobs", ["status", "kind", "created_at"])
    op.create_index("ix_jobs_owner", "jobs", ["owner", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_jobs_owner", table_name="jobs")
    op.drop_index("ix_jobs_status_kind", table_name="jobs")
    op.drop_table("jobs")
