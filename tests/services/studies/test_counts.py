"""The header's live counts (``app.studies.counts``, issue 33), on SQLite and PostgreSQL:
saved papers as the saved list counts them and review notes as the notebook lists them, per
account (one account's work never shows in another's counts), following saves, deletions
and restores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.studies import NotebookRequest, SavedRequest
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema", "store_url"]

ABSTRACT = "Aspirin lowered the risk of stroke in older adults over five years."


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def _pages(app: App, owner: str) -> tuple[int, int]:
    """What the saved list and the notebook say (the counts must agree with them)."""
    saved = app.studies.saved(SavedRequest(), owner=owner).total_saved
    notes = app.studies.notebook(NotebookRequest(), owner=owner).total
    return saved, notes


def _counts(app: App, owner: str) -> tuple[int, int]:
    view = app.studies.counts(owner=owner)
    assert view.to_dict() == {"saved": view.saved, "notes": view.notes}
    assert (view.saved, view.notes) == _pages(app, owner)
    return view.saved, view.notes


def test_counts_follow_the_work_and_stay_per_account(app: App) -> None:
    ana = app.workspace("acct_ana")
    assert _counts(app, "acct_ana") == (0, 0)
    one = ana.save_paper(make_paper(pmid="1", title="One", abstract=ABSTRACT)).paper
    ana.save_paper(make_paper(pmid="2", title="Two"))
    ana.save_paper(make_paper(pmid="1", title="One", abstract=ABSTRACT))  # saved again: one
    assert _counts(app, "acct_ana") == (2, 0)
    study = ana.create_study("Aspirin")
    ana.add_to_study(study.id, one.id)
    ana.add_note(one.id, highlight="lowered the risk of stroke", study=study.id)
    comment = ana.add_note(one.id, comment="Check the dose")
    assert _counts(app, "acct_ana") == (2, 2)

    # another account sees none of it, until it is made a member of the Study
    assert _counts(app, "acct_bob") == (0, 0)
    bob = app.workspace("acct_bob")
    bob.save_paper(make_paper(pmid="3", title="Bob's own"))
    assert _counts(app, "acct_bob") == (1, 0)
    assert _counts(app, "acct_ana") == (2, 2)
    with app.store.write() as conn:
        access.set_member(conn, study.id, "acct_bob", "viewer", "acct_ana", now_iso())
    assert _counts(app, "acct_bob") == (2, 1)  # the Study's paper and its highlight

    # a deletion goes into the trash and out of the count; a restore brings it back
    gone = app.studies.delete_note(comment.id, owner="acct_ana")
    assert _counts(app, "acct_ana") == (2, 1)
    app.studies.restore(gone.trash_id or "", owner="acct_ana")
    assert _counts(app, "acct_ana") == (2, 2)


def test_local_owner_counts_everything(app: App) -> None:
    ws = app.workspace()
    paper = ws.save_paper(make_paper(pmid="9", title="Nine", abstract=ABSTRACT)).paper
    ws.add_note(paper.id, comment="first")
    ws.add_note(paper.id, comment="second")
    assert _counts(app, app.owner) == (1, 2)
