"""Update rounds begun by hand (issue 28): ``study_begun_rounds``.

A living review kept current by re-running its searches in databases litdesk cannot query
(Embase, Scopus, …) and importing the new exports begins its update round with ``litdesk
study round``: a row says that round N of the Study began at a time, by whom, with an
optional note. Imports and papers that join the Study after it belong to that round
(:class:`litdesk.core.runs.StudyRounds`). A new table: no existing row changes, and a
Study without one reads exactly as before.

Revision ID: 0036_begun_rounds
Revises: 0035_records_version
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0036_begun_rounds"
down_revision = "0035_records_version"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_begun_rounds",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("by", sa.String(200), nullable=False),
        sa.Column("began_at", sa.String(40), nullable=False),
        sa.Column("note", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("study_begun_rounds")
