"""A Study's records and its working set (issue 27): every record the Study identified — each
import's records and each linked search run's hits, with the source (import or run id), the
database, the rank where known — materialised in ``study_records`` and kept in step with the
sources; after deduplication each record carries its group in the working set (``grp``, the
key of the group's first record) and the rule that put it there.

Revision ID: 0019_study_records
Revises: 0018_whole_searches
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_study_records"
down_revision = "0018_whole_searches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_records",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("source_kind", sa.String(16), nullable=False),
        sa.Column("source_id", sa.String(130), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("digest", sa.String(80), nullable=False),
        sa.Column("database", sa.String(200), nullable=False),
        sa.Column("rank", sa.Integer, nullable=True),
        sa.Column("paper_id", sa.String(130), nullable=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("added_at", sa.String(40), nullable=False),
        sa.Column("grp", sa.String(200), nullable=True),
        sa.Column("rule", sa.String(300), nullable=True),
    )
    op.create_index("ix_study_records_source", "study_records", ["study_id", "source_id"])
    op.create_index("ix_study_records_grp", "study_records", ["study_id", "grp"])


def downgrade() -> None:
    op.drop_index("ix_study_records_grp", table_name="study_records")
    op.drop_index("ix_study_records_source", table_name="study_records")
    op.drop_table("study_records")
