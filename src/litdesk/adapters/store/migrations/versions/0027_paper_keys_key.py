"""Identity keys looked up by key alone: an index on ``paper_keys.key``.

The primary key is ``(owner, key)``; a lookup of the records a Study holds by identity key
(``find_study_paper_ids``: whoever's they are) or of every owner's records (the local
workspace) named no owner, and read the whole Study or the whole table for each record of
a search saved into a Study (about 5 ms a record in a 5,000-record Study, issue 26).

Revision ID: 0027_paper_keys_key
Revises: 0026_paper_owners
"""

from __future__ import annotations

from alembic import op

revision = "0027_paper_keys_key"
down_revision = "0026_paper_owners"
branch_labels = None
depends_on = None

INDEX: str = "ix_paper_keys_key"


def upgrade() -> None:
    op.create_index(INDEX, "paper_keys", ["key"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="paper_keys")
