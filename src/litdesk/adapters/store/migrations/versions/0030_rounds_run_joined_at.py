"""When a search run joined a Study (branch rounds).

A kept search run belongs to the round of a living review in force when it joined the
Study (``litdesk.core.runs.StudyRounds.round_of``), but the link kept no time, so the run's
own execution time stood in: a run executed before an update and kept after it counted in
the initial round, an earlier, possibly published, column grown after the fact.
``study_search_runs.added_at`` keeps when the link was made.

Links made before this migration keep the time that stood in until now (the run's
``executed_at``), so no Study's flow changes by the upgrade.

Revision ID: 0030_rounds_run_joined_at
Revises: 0029_zipreview_study_zotero
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030_rounds_run_joined_at"
down_revision = "0029_zipreview_study_zotero"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("study_search_runs", sa.Column("added_at", sa.String(40), nullable=True))
    op.execute(
        "UPDATE study_search_runs SET added_at = (SELECT r.executed_at FROM search_runs r "
        "WHERE r.id = study_search_runs.run_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("study_search_runs") as batch:
        batch.drop_column("added_at")
