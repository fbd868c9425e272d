"""A trash per Study (issue 27): what was deleted in a Study (a note, highlight, evidence
record, a paper's membership with its work, an import with its papers, the Study itself)
is kept as a snapshot of its rows until it is restored or the trash is emptied. A deleted
Study stays in ``studies`` and is hidden while its ``kind = 'study'`` entry exists. Work of
no Study deleted by an account is kept with ``study_id`` NULL under that account.

Revision ID: 0020_study_trash
Revises: 0019_study_records
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020_study_trash"
down_revision = "0019_study_records"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_trash",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("deleted_at", sa.String(40), nullable=False),
        sa.Index("ix_study_trash_study", "study_id", "kind"),
        sa.Index("ix_study_trash_owner", "owner"),
    )


def downgrade() -> None:
    op.drop_table("study_trash")
