"""The account a job is charged to (issue 29): a job's ``owner`` may be a chat session or
a Study (whose jobs its members watch), while the per-account cap on queued work counts
jobs by the account that asked for them. Existing jobs are charged to their owner.

Revision ID: 0023_job_accounts
Revises: 0022_chat_history
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023_job_accounts"
down_revision = "0022_chat_history"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("account", sa.String(200), nullable=True))
    op.execute("UPDATE jobs SET account = owner")
    op.create_index("ix_jobs_account_status", "jobs", ["account", "status"])


def downgrade() -> None:
    op.drop_index("ix_jobs_account_status", table_name="jobs")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("account")
