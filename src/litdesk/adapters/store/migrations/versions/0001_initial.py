"""Initial store: papers, identity keys, studies, notes, evidence, search runs, imports,
search cache and allowances.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

W = 40


def upgrade() -> None:
    op.create_table(
        "papers",
        sa.Column("id", sa.String(130), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("created_at", sa.String(W), nullable=False),
        sa.Column("updated_at", sa.String(W), nullable=False),
    )
    op.create_table(
        "paper_keys",
        sa.Column("key", sa.String(600), primary_key=True),
        sa.Column(
            "paper_id",
            sa.String(130),
            sa.ForeignKey("papers.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
    )
    op.create_table(
        "studies",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("created_at", sa.String(W), nullable=False),
    )
    op.create_table(
        "study_papers",
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
        sa.Column("added_at", sa.String(W), nullable=False),
    )
    for name in ("notes", "evidence"):
        op.create_table(
            name,
            sa.Column("id", sa.String(64), primary_key=True),
            sa.Column(
                "paper_id",
                sa.String(130),
                sa.ForeignKey("papers.id", ondelete="CASCADE"),
                nullable=False,
                index=True,
            ),
            sa.Column(
                "study_id",
                sa.String(64),
                sa.ForeignKey("studies.id", ondelete="SET NULL"),
                nullable=True,
                index=True,
            ),
            sa.Column("data", sa.Text, nullable=False),
            sa.Column("created_at", sa.String(W), nullable=False),
        )
    op.create_table(
        "search_runs",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False, index=True),
        sa.Column("definition", sa.Text, nullable=False),
        sa.Column("run", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(W), nullable=False),
        sa.Column("executed_at", sa.String(W), nullable=False),
    )
    op.create_table(
        "study_search_runs",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "run_id",
            sa.String(100),
            sa.ForeignKey("search_runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_table(
        "imports",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="SET NULL"),
            nullable=True,
            index=True,
        ),
        sa.Column("sha256", sa.String(80), nullable=False),
        sa.Column("format", sa.String(40), nullable=False),
        sa.Column("trace", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(W), nullable=False),
    )
    op.create_table(
        "search_cache",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("owner", sa.String(200), primary_key=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("value", sa.Text, nullable=True),
        sa.Column("expires_at", sa.Float, nullable=False, index=True),
    )
    op.create_table(
        "allowances",
        sa.Column("provider", sa.String(100), primary_key=True),
        sa.Column("owner", sa.String(200), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("calls", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for name in (
        "allowances",
        "search_cache",
        "imports",
        "study_search_runs",
        "search_runs",
        "evidence",
        "notes",
        "study_papers",
        "studies",
        "paper_keys",
        "papers",
    ):
        op.drop_table(name)
