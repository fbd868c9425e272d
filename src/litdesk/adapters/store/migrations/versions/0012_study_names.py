"""Study names unique per owner (issue 17): the server-wide unique constraint on
``studies.name`` refused one account a name another account's private Study had (and so
revealed it); it becomes unique on ``(owner, name)``.

SQLite cannot drop a column's UNIQUE: the table is rebuilt (Alembic batch mode; the store
runs SQLite migrations with foreign-key enforcement off, so dropping the old table does not
cascade into the rows that reference it). PostgreSQL drops the constraint by the name it
really has (``studies_name_key`` when 0001 made it; read from the catalogue, not assumed).

Revision ID: 0012_study_names
Revises: 0011_dedup_runs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_study_names"
down_revision = "0011_dedup_runs"
branch_labels = None
depends_on = None

NEW: str = "uq_studies_owner_name"
#: names given to the reflected, unnamed constraints of the SQLite table being rebuilt
_NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def _name_constraints() -> list[str | None]:
    """The names of the unique constraints on ``studies(name)`` alone."""
    found = sa.inspect(op.get_bind()).get_unique_constraints("studies")
    return [u["name"] for u in found if list(u["column_names"]) == ["name"]]


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("studies", recreate="always", naming_convention=_NAMING) as batch:
            batch.drop_constraint("uq_studies_name", type_="unique")
            batch.create_unique_constraint(NEW, ["owner", "name"])
        return
    for name in _name_constraints():
        assert name is not None  # PostgreSQL names every constraint
        op.drop_constraint(name, "studies", type_="unique")
    op.create_unique_constraint(NEW, "studies", ["owner", "name"])


def downgrade() -> None:
    """Back to server-wide names (refused by the database when two owners share one). On
    SQLite run it with foreign-key enforcement off, as the store runs its upgrades: the
    rebuild would otherwise cascade-delete the rows referencing a Study."""
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("studies", recreate="always") as batch:
            batch.drop_constraint(NEW, type_="unique")
            batch.create_unique_constraint("uq_studies_name", ["name"])
        return
    op.drop_constraint(NEW, "studies", type_="unique")
    op.create_unique_constraint("studies_name_key", "studies", ["name"])
