"""A Study's records version (issues 26 and 28): ``studies.records_version``.

A fresh random token written by every write transaction that changes the Study's records
(``study_records``: records identified or forgotten, grouped, relabelled, their papers
changed), in that transaction, just before it commits. A process may keep what it read of
the Study's records (its working set) beside the token it read them with: while the token
it reads is the same, the records are the same, whichever process or host wrote last.
Every existing Study is given a random token here (``NULL``: nothing kept).

Revision ID: 0035_records_version
Revises: 0034_blindmodel_reviewer_models
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0035_records_version"
down_revision = "0034_blindmodel_reviewer_models"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("studies", sa.Column("records_version", sa.String(32), nullable=True))
    fresh = (
        "md5(random()::text || clock_timestamp()::text || id)"
        if op.get_bind().dialect.name == "postgresql"
        else "lower(hex(randomblob(16)))"
    )  # one per row
    op.execute(sa.text(f"UPDATE studies SET records_version = {fresh}"))


def downgrade() -> None:
    # ALTER TABLE … DROP COLUMN on both (SQLite ≥ 3.35): no copy of ``studies``, whose
    # deletion would take every table that references it with it (ON DELETE CASCADE)
    op.execute(sa.text("ALTER TABLE studies DROP COLUMN records_version"))
