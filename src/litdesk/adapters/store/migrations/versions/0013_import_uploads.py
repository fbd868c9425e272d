"""Uploaded export files of a large web import, kept for its job (issue 17): any worker
of a team server runs the import; the rows (bytes and SHA-256 per file) are deleted when
the job records its import or ends.

Revision ID: 0013_import_uploads
Revises: 0012_study_names
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_import_uploads"
down_revision = "0012_study_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "import_uploads",
        sa.Column("job_id", sa.String(32), primary_key=True),
        sa.Column("no", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("import_uploads")
