"""What a library PDF is, per account (issue 32): the description a person confirmed or
corrected over what was read from its first pages, and the saved paper the PDF is.

Revision ID: 0025_pdf_records
Revises: 0023_job_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025_pdf_records"
down_revision = "0024_evidence_subjects"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pdf_records",
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("file", sa.String(260), nullable=False),
        sa.Column("title", sa.Text, nullable=True),
        sa.Column("authors", sa.Text, nullable=True),
        sa.Column("year", sa.Integer, nullable=True),
        sa.Column("venue", sa.Text, nullable=True),
        sa.Column("doi", sa.String(300), nullable=True),
        sa.Column("arxiv", sa.String(60), nullable=True),
        sa.Column("confirmed_at", sa.String(40), nullable=True),
        sa.Column("paper_id", sa.String(130), nullable=True),  # the owner's paper (no FK)
        sa.Column("attached_at", sa.String(40), nullable=True),
        sa.Index("ix_pdf_records_paper", "owner", "paper_id"),
    )


def downgrade() -> None:
    op.drop_table("pdf_records")
