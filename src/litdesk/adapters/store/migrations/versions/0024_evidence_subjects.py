"""Evidence linked to subjects (issue 33): one row per evidence record and subject
(vocabulary, id, the label it had when linked), so a subject's page lists the findings
linked to it and the evidence table filters by subject. A link goes with its record.

Revision ID: 0024_evidence_subjects
Revises: 0023_job_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024_evidence_subjects"
down_revision = "0023_job_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evidence_subjects",
        sa.Column(
            "evidence_id",
            sa.String(64),
            sa.ForeignKey("evidence.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("vocabulary", sa.String(40), primary_key=True),
        sa.Column("subject_id", sa.String(64), primary_key=True),
        sa.Column("label", sa.String(300), nullable=False),
        sa.Column("position", sa.Integer, nullable=False, server_default="0"),
        sa.Index("ix_evidence_subjects_subject", "vocabulary", "subject_id"),
    )


def downgrade() -> None:
    op.drop_table("evidence_subjects")
