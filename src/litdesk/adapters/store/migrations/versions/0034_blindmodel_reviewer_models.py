"""A reviewer's own prioritisation model in a blind stage (issue 28, branch blindmodel):
``screening_models.reviewer``.

While a stage has dual review and is not revealed, each reviewer's queue is ranked by a
model trained on their own decisions only (the shared model learnt every reviewer's, and
its scores told a blind reviewer the others' verdicts). ``reviewer`` is part of the key:
``''`` is the shared model (every existing row), an account id that reviewer's model.

Revision ID: 0034_blindmodel_reviewer_models
Revises: 0033_clijobs_job_bound
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034_blindmodel_reviewer_models"
down_revision = "0033_clijobs_job_bound"
branch_labels = None
depends_on = None

_KEY = ["study_id", "stage"]
_COLUMNS = "study_id, stage, version, trained_on, scores, trained_at, model"


def _sqlite_copy(key: list[str], *, reviewer: bool) -> None:
    """SQLite changes a key only by copying the table: a new one with ``key``, the rows
    copied (``reviewer``: the new table has the column, every copied row the shared model)."""
    extra = [sa.Column("reviewer", sa.String(64), nullable=False, server_default="")]
    op.create_table(
        "screening_models_new",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("trained_on", sa.Integer, nullable=False),
        sa.Column("scores", sa.Text, nullable=False),
        sa.Column("trained_at", sa.String(40), nullable=False),
        sa.Column("model", sa.String(64), nullable=True),
        *(extra if reviewer else ()),
        sa.PrimaryKeyConstraint(*key),
    )
    op.execute(
        sa.text(
            f"INSERT INTO screening_models_new ({_COLUMNS}) SELECT {_COLUMNS} FROM screening_models"
        )
    )
    op.drop_table("screening_models")
    op.rename_table("screening_models_new", "screening_models")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy([*_KEY, "reviewer"], reviewer=True)
        return
    column = sa.Column("reviewer", sa.String(64), nullable=False, server_default="")
    op.add_column("screening_models", column)
    op.drop_constraint("screening_models_pkey", "screening_models", type_="primary")
    op.create_primary_key("screening_models_pkey", "screening_models", [*_KEY, "reviewer"])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM screening_models WHERE reviewer <> ''"))
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(_KEY, reviewer=False)
        return
    op.drop_constraint("screening_models_pkey", "screening_models", type_="primary")
    op.drop_column("screening_models", "reviewer")
    op.create_primary_key("screening_models_pkey", "screening_models", _KEY)
