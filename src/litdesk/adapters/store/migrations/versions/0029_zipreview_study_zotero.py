"""Which Zotero import brought a paper into which Study (branch zipreview).

A Study's PRISMA 2020 flow counts a saved paper under the Zotero library that brought it
into *that* Study, not under any library the account imported it from: a paper added by
hand to one Study and imported from Zotero into another is "added by hand" in the first.
``study_zotero_items`` keeps one row per Study, paper and library, written by a Zotero
import with the papers it saves into the Study.

The rows before this migration cannot say which Study an import brought a paper into;
they are filled as the count was made until now (each Study's saved papers that are an
imported Zotero item of the account holding them), so no Study's flow changes by the
upgrade; a Zotero import from now on records exactly.

Revision ID: 0029_zipreview_study_zotero
Revises: 0028_screening_vectors
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029_zipreview_study_zotero"
down_revision = "0028_screening_vectors"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_zotero_items",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("paper_id", sa.String(130), primary_key=True),
        sa.Column("library", sa.String(80), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("imported_at", sa.String(40), nullable=False),
    )
    op.execute(
        "INSERT INTO study_zotero_items (study_id, paper_id, library, owner, imported_at) "
        "SELECT sp.study_id, sp.paper_id, zl.library, MIN(zl.owner), MIN(zl.imported_at) "
        "FROM study_papers sp JOIN zotero_links zl ON zl.kind = 'item' "
        "AND zl.target = sp.paper_id AND zl.owner = sp.paper_owner "
        "GROUP BY sp.study_id, sp.paper_id, zl.library"
    )


def downgrade() -> None:
    op.drop_table("study_zotero_items")
