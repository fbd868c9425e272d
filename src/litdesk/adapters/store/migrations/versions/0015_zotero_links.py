"""The Zotero bridge's identity links (issue 31): each imported Zotero item or note, by
owner, library (``user``, ``group:<id>``) and item key, names what litdesk made of it (a
paper id, note ids), the item's version and ``dateModified`` as imported and its
collections — so importing again updates changed items, adds new ones, reports removed
or moved ones and never duplicates.

Revision ID: 0015_zotero_links
Revises: 0014_study_name_index
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_zotero_links"
down_revision = "0014_study_name_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "zotero_links",
        sa.Column("owner", sa.String(200), primary_key=True),
        sa.Column("library", sa.String(80), primary_key=True),
        sa.Column("item_key", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("date_modified", sa.String(40), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("imported_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("zotero_links")
