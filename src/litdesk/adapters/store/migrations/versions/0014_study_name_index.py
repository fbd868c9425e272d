"""Study names: the database no longer refuses a second Study of one owner's name (issue
17). A co-owner renaming a shared Study to a name its owner gives a private Study the
co-owner cannot see was refused by the unique constraint on ``(owner, name)`` — and so
learnt that the private Study exists. Names stay unique where the caller can see the clash
(the store's code checks it, under a lock per owner); the constraint becomes a plain index
on ``(owner, name)`` for the lookups.

SQLite cannot drop a table's UNIQUE: the table is rebuilt (Alembic batch mode, as in
0012_study_names; the store runs SQLite migrations with foreign-key enforcement off).

Revision ID: 0014_study_name_index
Revises: 0013_import_uploads
"""

from __future__ import annotations

from alembic import op

revision = "0014_study_name_index"
down_revision = "0013_import_uploads"
branch_labels = None
depends_on = None

UNIQUE: str = "uq_studies_owner_name"
INDEX: str = "ix_studies_owner_name"


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("studies", recreate="always") as batch:
            batch.drop_constraint(UNIQUE, type_="unique")
            batch.create_index(INDEX, ["owner", "name"])
        return
    op.drop_constraint(UNIQUE, "studies", type_="unique")
    op.create_index(INDEX, "studies", ["owner", "name"])


def downgrade() -> None:
    """Back to the constraint (refused by the database when an owner has two Studies of one
    name). On SQLite run it with foreign-key enforcement off, as the store runs upgrades."""
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("studies", recreate="always") as batch:
            batch.drop_index(INDEX)
            batch.create_unique_constraint(UNIQUE, ["owner", "name"])
        return
    op.drop_index(INDEX, "studies")
    op.create_unique_constraint(UNIQUE, "studies", ["owner", "name"])
