"""Screening (issue 28): a Study's screening settings (reasons, criteria, keywords, dual
review, reveal, default order), its append-only decisions (never updated or deleted: a
change or an undo is a new row), its full-text retrieval notes (append-only) and the
prioritisation model's scores per stage (one row per Study and stage, replaced whole by
the retrain job in one transaction).

Revision ID: 0021_screening
Revises: 0020_study_trash
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_screening"
down_revision = "0020_study_trash"
branch_labels = None
depends_on = None


def _study() -> sa.Column[str]:
    return sa.Column(
        "study_id",
        sa.String(64),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "screening_settings",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Column("updated_by", sa.String(200), nullable=False),
    )
    op.create_table(
        "screening_decisions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _study(),
        sa.Column("record_key", sa.String(200), nullable=False),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("made_at", sa.String(40), nullable=False),
        sa.Column("undoes", sa.Integer, nullable=True),
        sa.Index("ix_screening_decisions_stage", "study_id", "stage"),
    )
    op.create_table(
        "screening_retrieval",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _study(),
        sa.Column("record_key", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("by", sa.String(200), nullable=False),
        sa.Index("ix_screening_retrieval_study", "study_id"),
    )
    op.create_table(
        "screening_models",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("stage", sa.String(16), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("trained_on", sa.Integer, nullable=False),
        sa.Column("scores", sa.Text, nullable=False),
        sa.Column("trained_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("screening_models")
    op.drop_table("screening_retrieval")
    op.drop_table("screening_decisions")
    op.drop_table("screening_settings")
