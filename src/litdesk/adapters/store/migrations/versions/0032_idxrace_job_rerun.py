"""A job asked to run again (branch idxrace): ``jobs.rerun_requested``.

A shared job (the PDF library's index: one at a time for every account) is reused by a
request that arrives while it is active. A request that arrives after the running job
last listed its work (the PDFs to index) was never read by it: the file stayed "not
indexed yet" until someone indexed again. Now the reuse marks the job in its own
transaction; the handler clears the mark when it lists its work, and a job that finishes
with the mark set goes back to the queue instead (the finish decides in one conditional
update, so a request is either seen by the finish or finds the job ended and queues a new
one). Existing rows start unmarked.

Revision ID: 0032_idxrace_job_rerun
Revises: 0031_keptrun_run_papers
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032_idxrace_job_rerun"
down_revision = "0031_keptrun_run_papers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "jobs",
        sa.Column("rerun_requested", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("rerun_requested")
