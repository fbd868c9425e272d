"""A Study's sentence-encoder rows for screening, and the name of the model that made a
stage's scores (issue 28, the hand-over model).

``screening_vectors`` keeps one embedding row per Study, embedder and text (the SHA-256 of
what the model reads of a record: title and abstract), so that the rows survive regroupings
and a killed embedding job resumes with the texts still missing. ``screening_models.model``
names the model whose scores are stored (no value: ``litdesk-svm-2``, the model before it).

Revision ID: 0028_screening_vectors
Revises: 0027_paper_keys_key
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028_screening_vectors"
down_revision = "0027_paper_keys_key"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "screening_vectors",
        sa.Column(
            "study_id",
            sa.String(64),
            sa.ForeignKey("studies.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("embedder", sa.String(32), primary_key=True),
        sa.Column("text_sha", sa.String(64), primary_key=True),
        sa.Column("vector", sa.LargeBinary, nullable=False),
    )
    op.add_column("screening_models", sa.Column("model", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("screening_models") as batch:
        batch.drop_column("model")
    op.drop_table("screening_vectors")
