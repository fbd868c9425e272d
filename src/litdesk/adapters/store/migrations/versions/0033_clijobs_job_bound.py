"""A job bound to the process that submitted it (branch clijobs): ``jobs.bound``.

``litdesk study add-search`` / ``study update`` run their job in the CLI's own process
and claim it at submission (in the insert's transaction). One run with ``--replay`` or
``--record`` is bound to that process's cassette: no other worker (a ``litdesk serve`` on
the same data) may take it over, even when its lease runs out — it would page the
databases over the network instead. ``bound`` holds the message such a job fails with
when its process is gone (saying how to run it again); ``NULL`` for every other job.
Existing rows are not bound.

Revision ID: 0033_clijobs_job_bound
Revises: 0032_idxrace_job_rerun
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033_clijobs_job_bound"
down_revision = "0032_idxrace_job_rerun"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("bound", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("bound")
