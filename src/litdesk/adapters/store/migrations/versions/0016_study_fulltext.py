"""PDFs and licensed full text attached to a Study's papers (issue 27): one PDF link per
Study paper (library PDF by content hash, how it was found, linked/suggested/rejected,
who and when) and the latest full-text check per Study paper.

Revision ID: 0016_study_fulltext
Revises: 0015_zotero_links
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_study_fulltext"
down_revision = "0015_zotero_links"
branch_labels = None
depends_on = None


def _keys() -> list[sa.Column[str]]:
    return [
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "paper_id",
            sa.String(130),
            sa.ForeignKey("papers.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "study_pdf_links",
        *_keys(),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("file", sa.String(260), nullable=False),
        sa.Column("how", sa.String(16), nullable=False),
        sa.Column("detail", sa.String(300), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
    )
    op.create_table(
        "study_fulltext_checks",
        *_keys(),
        sa.Column("available", sa.Boolean, nullable=False),
        sa.Column("pmcid", sa.String(20), nullable=True),
        sa.Column("licence", sa.String(200), nullable=True),
        sa.Column("source_url", sa.String(300), nullable=True),
        sa.Column("reason", sa.String(300), nullable=True),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("checked_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("study_fulltext_checks")
    op.drop_table("study_pdf_links")
