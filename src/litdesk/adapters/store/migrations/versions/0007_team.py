"""Team mode: local accounts, sessions, failed-login attempts, Study memberships with roles,
a Study's history (who did what, when), who saved which paper, and owner columns on the
workspace tables. Existing rows belong to ``local`` (the single-user owner), so a workspace
used before keeps working unchanged without ``--team``.

Revision ID: 0007_team
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_team"
down_revision = "0006_assist"
branch_labels = None
depends_on = None

#: workspace tables that gain an ``owner`` column (the account that created the row)
OWNED = ("papers", "notes", "evidence", "studies", "imports")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("username", sa.String(80), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("password_changed_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "sessions",
        # SHA-256 of the cookie's token: a copy of the table cannot be replayed as cookies
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(64),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False, index=True),
    )
    op.create_table(
        "login_failures",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        # "account:<sha256 of the name>" or "address:<sha256 of the address>"
        sa.Column("scope", sa.String(80), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Index("ix_login_failures_scope_at", "scope", "at"),
    )
    op.create_table(
        "study_members",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("account_id", sa.String(64), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("added_by", sa.String(64), nullable=False),
        sa.Column("added_at", sa.String(40), nullable=False),
        sa.Index("ix_study_members_account", "account_id"),
    )
    op.create_table(
        "study_history",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(200), nullable=True),
        sa.Column("at", sa.String(40), nullable=False),
    )
    op.create_table(
        "paper_savers",
        sa.Column(
            "paper_id",
            sa.String(130),
            sa.ForeignKey("papers.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("account_id", sa.String(64), primary_key=True),
        sa.Column("saved_at", sa.String(40), nullable=False),
        # a team account's own reading status (``local`` keeps papers.status)
        sa.Column("status", sa.String(16), nullable=True),
        sa.Index("ix_paper_savers_account", "account_id"),
    )
    for table in OWNED:
        # a plain ADD COLUMN on both backends (SQLite: no table rebuild, which would
        # cascade-delete the rows that reference it)
        op.add_column(
            table, sa.Column("owner", sa.String(64), nullable=False, server_default="local")
        )
        op.create_index(f"ix_{table}_owner", table, ["owner"])
    op.execute(
        "INSERT INTO paper_savers (paper_id, account_id, saved_at)"
        " SELECT id, 'local', created_at FROM papers"
    )


def downgrade() -> None:
    for table in OWNED:
        op.drop_index(f"ix_{table}_owner", table_name=table)
        # a plain DROP COLUMN (SQLite 3.35+): a batch rebuild would cascade-delete references
        op.drop_column(table, "owner")
    for table in ("paper_savers", "study_history", "study_members", "login_failures"):
        op.drop_table(table)
    op.drop_table("sessions")
    op.drop_table("accounts")
