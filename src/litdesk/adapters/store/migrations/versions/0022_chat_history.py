"""Paper-chat history per account (issue 32): one row per chat session with rounds (its
id, owner, title, round count, times), so an account lists, reopens and deletes its chats
from any browser; the rounds stay in the session's folder.

Revision ID: 0022_chat_history
Revises: 0020_study_trash
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_chat_history"
down_revision = "0021_screening"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_histories",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Index("ix_chat_histories_owner", "owner", "updated_at"),
    )


def downgrade() -> None:
    op.drop_table("chat_histories")
