"""Live search progress and citation listings in the store (issue 17): a live search's
lanes, end state and cancel request, and the citation lists a page showed, so that any
worker of a team server follows, cancels or saves from what another worker started or
showed. Bounded per owner and by age by the store module ``_live``.

Revision ID: 0009_live_state
Revises: 0008_recent_runs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_live_state"
down_revision = "0008_recent_runs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_searches",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("lanes", sa.Text, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("code", sa.String(80), nullable=False),
        sa.Column("run_id", sa.String(100), nullable=True),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
    )
    op.create_index("ix_live_searches_owner_started", "live_searches", ["owner", "started_at"])
    op.create_index("ix_live_searches_updated_at", "live_searches", ["updated_at"])
    op.create_table(
        "citation_listings",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("papers", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index(
        "ix_citation_listings_owner_created", "citation_listings", ["owner", "created_at"]
    )
    op.create_index("ix_citation_listings_created_at", "citation_listings", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_citation_listings_created_at", table_name="citation_listings")
    op.drop_index("ix_citation_listings_owner_created", table_name="citation_listings")
    op.drop_table("citation_listings")
    op.drop_index("ix_live_searches_updated_at", table_name="live_searches")
    op.drop_index("ix_live_searches_owner_started", table_name="live_searches")
    op.drop_table("live_searches")
