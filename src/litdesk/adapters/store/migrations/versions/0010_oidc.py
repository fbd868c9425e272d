"""Single sign-on through OpenID Connect (issue 17): identities (issuer, subject) linked to
accounts, and the sign-ins under way (state, nonce and PKCE verifier kept server-side, so any
worker of a team server finishes a sign-in another one started).

Revision ID: 0010_oidc
Revises: 0009_live_state
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_oidc"
down_revision = "0009_live_state"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "oidc_links",
        sa.Column("issuer", sa.String(500), primary_key=True),
        sa.Column("subject", sa.String(255), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(64),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("email", sa.String(320), nullable=True),
        sa.Column("linked_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "oidc_flows",
        # SHA-256 of the state and of the pre-login cookie: a copy of the table is no use
        sa.Column("state_hash", sa.String(64), primary_key=True),
        sa.Column("binding_hash", sa.String(64), nullable=False),
        sa.Column("nonce", sa.String(128), nullable=False),
        sa.Column("verifier", sa.String(128), nullable=False),
        sa.Column("next_path", sa.String(500), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("oidc_flows")
    op.drop_table("oidc_links")
