"""A Study's extraction form (issue 27): the fields its evidence records take (a ready
template or the reviewers' own), as JSON with a revision that counts its changes, who
changed it last and when. A Study without a row uses litdesk's six default fields.

Revision ID: 0017_study_forms
Revises: 0016_study_fulltext
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_study_forms"
down_revision = "0016_study_fulltext"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_forms",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Column("updated_by", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("study_forms")
