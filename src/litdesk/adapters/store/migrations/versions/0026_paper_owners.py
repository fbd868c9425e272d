"""Paper records scoped to their owners (issue 29): a paper record is ``(owner, id)``; the
identity keys are per owner; a Study link names whose record it holds.

Until now one record per paper id was shared by every account (the first writer's, filled
in by later imports). Each account that saved a shared record gets its own copy of it (with
its reading status and the record's keys); the record stays its creator's; a Study keeps
the record it linked (``study_papers.paper_owner``: the record's owner). The references to
``papers.id`` from notes, evidence and reading statuses become plain ids (a note names a
paper id; which record a reader sees is decided by its access), those of identity keys and
Study links become composite references to ``(owner, id)``.

Revision ID: 0026_paper_owners
Revises: 0023_job_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026_paper_owners"
down_revision = "0025_pdf_records"
branch_labels = None
depends_on = None

#: names SQLite's unnamed constraints for batch mode (PostgreSQL's are read from the catalogue)
_NAMING = {
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
}


def _drop_paper_references(bind: sa.engine.Connection) -> None:
    """Drop every foreign key to ``papers.id`` (it stops being unique)."""
    inspector = sa.inspect(bind)
    for table in sorted(inspector.get_table_names()):
        fks = [fk for fk in inspector.get_foreign_keys(table) if fk["referred_table"] == "papers"]
        if not fks:
            continue
        if bind.dialect.name == "sqlite":  # unnamed: named by the convention for batch mode
            with op.batch_alter_table(table, recreate="always", naming_convention=_NAMING) as batch:
                for fk in fks:
                    column = fk["constrained_columns"][0]
                    batch.drop_constraint(f"fk_{table}_{column}_papers", type_="foreignkey")
        else:
            for fk in fks:
                op.drop_constraint(str(fk["name"]), table, type_="foreignkey")


def _new_papers() -> None:
    op.create_table(
        "papers_new",
        sa.Column("owner", sa.String(64), server_default="local"),
        sa.Column("id", sa.String(130)),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("owner", "id", name="pk_papers"),
    )
    op.create_table(
        "paper_keys_new",
        sa.Column("owner", sa.String(64)),
        sa.Column("key", sa.String(600)),
        sa.Column("paper_id", sa.String(130), nullable=False),
        sa.PrimaryKeyConstraint("owner", "key", name="pk_paper_keys"),
    )


def upgrade() -> None:
    bind = op.get_bind()
    _drop_paper_references(bind)

    # identity keys and Study links name whose record they mean
    with op.batch_alter_table("paper_keys") as batch:
        batch.add_column(sa.Column("owner", sa.String(64), nullable=True))
    op.execute("UPDATE paper_keys SET owner = (SELECT p.owner FROM papers p WHERE p.id = paper_id)")
    op.execute("DELETE FROM paper_keys WHERE owner IS NULL")  # a key of no record
    with op.batch_alter_table("study_papers") as batch:
        batch.add_column(sa.Column("paper_owner", sa.String(64), nullable=True))
    op.execute(
        "UPDATE study_papers SET paper_owner = (SELECT p.owner FROM papers p WHERE p.id = paper_id)"
    )
    op.execute("DELETE FROM study_papers WHERE paper_owner IS NULL")

    # the records keyed by (owner, id), the keys by (owner, key): new tables, rows copied
    _new_papers()
    op.execute(
        "INSERT INTO papers_new (owner, id, data, status, created_at, updated_at)"
        " SELECT owner, id, data, status, created_at, updated_at FROM papers"
    )
    # each account that saved another's record gets its own copy, with its keys
    op.execute(
        "INSERT INTO papers_new (owner, id, data, status, created_at, updated_at)"
        " SELECT s.account_id, p.id, p.data, s.status, p.created_at, p.updated_at"
        " FROM paper_savers s JOIN papers p ON p.id = s.paper_id"
        " WHERE s.account_id <> p.owner"
    )
    op.execute(
        "INSERT INTO paper_keys_new (owner, key, paper_id)"
        " SELECT owner, key, paper_id FROM paper_keys"
    )
    op.execute(
        "INSERT INTO paper_keys_new (owner, key, paper_id)"
        " SELECT s.account_id, k.key, k.paper_id"
        " FROM paper_savers s JOIN papers p ON p.id = s.paper_id"
        " JOIN paper_keys k ON k.paper_id = p.id AND k.owner = p.owner"
        " WHERE s.account_id <> p.owner"
    )
    op.drop_table("paper_keys")
    op.drop_table("papers")
    op.rename_table("papers_new", "papers")
    op.rename_table("paper_keys_new", "paper_keys")
    op.create_index("ix_papers_id", "papers", ["id"])
    op.create_index("ix_paper_keys_paper", "paper_keys", ["owner", "paper_id"])
    with op.batch_alter_table("paper_keys") as batch:
        batch.create_foreign_key(
            "fk_paper_keys_paper",
            "papers",
            ["owner", "paper_id"],
            ["owner", "id"],
            ondelete="CASCADE",
        )

    with op.batch_alter_table("study_papers") as batch:
        batch.alter_column("paper_owner", existing_type=sa.String(64), nullable=False)
        batch.create_foreign_key(
            "fk_study_papers_paper",
            "papers",
            ["paper_owner", "paper_id"],
            ["owner", "id"],
            ondelete="CASCADE",
        )


#: the references to ``papers.id`` before this revision, put back by the downgrade
_REFERENCES = {
    "study_papers": "paper_id",
    "notes": "paper_id",
    "evidence": "paper_id",
    "paper_savers": "paper_id",
    "assist_drafts": "paper_id",
    "study_pdf_links": "paper_id",
    "study_fulltext_checks": "paper_id",
}


def downgrade() -> None:
    """One shared record per id again: the oldest (its creator's; the copies go, as do
    changes an account made to its own copy), each key naming that id."""
    bind = op.get_bind()
    op.drop_index("ix_paper_keys_paper", table_name="paper_keys")
    with op.batch_alter_table("study_papers") as batch:
        batch.drop_constraint("fk_study_papers_paper", type_="foreignkey")
        batch.drop_column("paper_owner")
    op.create_table(
        "papers_old",
        sa.Column("id", sa.String(130), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False, server_default="local"),
    )
    op.execute(
        "INSERT INTO papers_old (id, data, status, created_at, updated_at, owner)"
        " SELECT p.id, p.data, p.status, p.created_at, p.updated_at, p.owner FROM papers p"
        " WHERE NOT EXISTS (SELECT 1 FROM papers q WHERE q.id = p.id AND"
        " (q.created_at < p.created_at OR (q.created_at = p.created_at AND q.owner < p.owner)))"
    )
    op.create_table(
        "paper_keys_old",
        sa.Column("key", sa.String(600), primary_key=True),
        sa.Column("paper_id", sa.String(130), nullable=False),
    )
    op.execute(
        "INSERT INTO paper_keys_old (key, paper_id)"
        " SELECT key, min(paper_id) FROM paper_keys GROUP BY key"
    )
    if bind.dialect.name != "sqlite":
        op.drop_constraint("fk_paper_keys_paper", "paper_keys", type_="foreignkey")
    op.drop_table("paper_keys")
    op.drop_table("papers")
    op.rename_table("papers_old", "papers")
    op.rename_table("paper_keys_old", "paper_keys")
    op.create_index("ix_papers_owner", "papers", ["owner"])
    op.create_index("ix_paper_keys_paper_id", "paper_keys", ["paper_id"])
    tables = set(sa.inspect(bind).get_table_names())
    for table, column in {"paper_keys": "paper_id", **_REFERENCES}.items():
        if table not in tables:
            continue
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(
                f"fk_{table}_{column}_papers", "papers", [column], ["id"], ondelete="CASCADE"
            )
