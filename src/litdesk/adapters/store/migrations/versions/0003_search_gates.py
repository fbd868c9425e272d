"""Search gates: the minimum gap between calls of a lane (the OpenAlex semantic 1 s gap),
shared by every process using the store.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "search_gates",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("last_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("search_gates")
