"""When a linked search run's hits became the Study's papers (branch keptrun, issue 28).

A whole search's hits become the Study's papers in its commit; a search run kept in a
Study (the web's "Keep this search", ``litdesk search --study``, ``study add --run``) was
only linked: its hits joined the working set and PRISMA 2020 counted them, but the Study
did not hold them as papers (its page said fewer papers than screening counted records; a
later update called them "new"). Now keeping a run adds its hits as the Study's papers in
the same transaction and notes when in ``study_search_runs.papers_at``.

Whole searches' links get their link time (their papers are there already). Runs kept
before this migration keep ``NULL``: the Study's next reconcile of its records (any write
that changes its sources, an update round before it counts "new", ``litdesk dedup
--study``) adds their hits as papers, owned by the run's owner, and notes it in the
Study's history. The migration itself writes no paper: that needs the identity rules of
the code that runs, not of this file.

Revision ID: 0031_keptrun_run_papers
Revises: 0030_rounds_run_joined_at
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031_keptrun_run_papers"
down_revision = "0030_rounds_run_joined_at"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("study_search_runs", sa.Column("papers_at", sa.String(40), nullable=True))
    op.execute(
        "UPDATE study_search_runs SET papers_at = COALESCE(added_at, '') "
        "WHERE EXISTS (SELECT 1 FROM study_search_rounds r "
        "WHERE r.study_id = study_search_runs.study_id AND r.run_id = study_search_runs.run_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("study_search_runs") as batch:
        batch.drop_column("papers_at")
