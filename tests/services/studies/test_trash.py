"""Edit, delete (soft), restore, empty and the history of a Study (issue 27), on SQLite and
PostgreSQL: every piece of work belongs to its Study, a deletion goes into the Study's
trash and comes back as it was, roles decide who may do what, and two accounts never see
each other's trash."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import NotPermitted
from litdesk.adapters.store import accounts as access
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.studies import (
    EmptyTrashRequest,
    NotebookExportRequest,
    NoteEditRequest,
)
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema", "store_url"]

ABSTRACT = "Aspirin lowered the risk of stroke in older adults over five years."


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def _work(app: App) -> tuple[str, str, str, str, str]:
    """A Study with a paper, a highlight, a comment and evidence made in it."""
    ws = app.workspace()
    study = ws.create_study("Aspirin review")
    paper = ws.save_paper(make_paper(pmid="101", title="Aspirin trial", abstract=ABSTRACT)).paper
    ws.add_to_study(study.id, paper.id)
    hl = ws.add_note(paper.id, highlight="lowered the risk of stroke", study=study.id)
    comment = ws.add_note(paper.id, comment="Check the dose", study=study.id)
    ev = ws.add_evidence(
        paper.id,
        finding="Fewer strokes",
        passage="lowered the risk",
        source="abstract",
        study=study.id,
    )
    return study.id, paper.id, hl.id, comment.id, ev.id


def _counts(app: App, study: str) -> tuple[int, int, int]:
    view = app.studies.study(study, owner="local").to_dict()
    return len(view["papers"]), int(view["notes"]), int(view["evidence"])  # type: ignore[arg-type]


def test_delete_restore_and_history(app: App) -> None:
    study, paper, hl, comment, ev = _work(app)
    assert _counts(app, study) == (1, 2, 1)
    book = app.studies.export_notebook(NotebookExportRequest(study), owner="local")
    assert book.notes == 2 and book.evidence == 1

    edited = app.studies.edit_note(
        NoteEditRequest(comment, "Check the dose: 100 mg"), owner="local"
    )
    assert edited.annotation.comment == "Check the dose: 100 mg"
    with pytest.raises(InputError):
        app.studies.edit_note(NoteEditRequest(comment, "  "), owner="local")

    gone = app.studies.delete_note(hl, owner="local")
    assert gone.kind == "highlight" and "Aspirin trial" in gone.label and gone.trash_id
    assert _counts(app, study) == (1, 1, 1)
    app.studies.delete_evidence(ev, owner="local")
    assert _counts(app, study) == (1, 1, 0)
    trash = app.studies.trash(study, owner="local").to_dict()
    assert [i["kind"] for i in trash["items"]] == ["evidence", "highlight"]  # type: ignore[index]

    app.studies.restore(gone.trash_id or "", owner="local")
    assert _counts(app, study) == (1, 2, 0)
    assert len(app.studies.trash(study, owner="local").items) == 1
    with pytest.raises(NotFoundError):  # restored once: no longer in the trash
        app.studies.restore(gone.trash_id or "", owner="local")

    # a paper leaves with its work there, and comes back with it
    out = app.studies.remove_paper(study, paper, owner="local")
    assert _counts(app, study) == (0, 0, 0)
    app.studies.restore(out.trash_id or "", owner="local")
    assert _counts(app, study) == (1, 2, 0)

    actions = [r["action"] for r in app.studies.history(study, owner="local").entries]
    for action in (
        "comment_edited",
        "highlight_deleted",
        "evidence_deleted",
        "highlight_restored",
        "paper_removed",
        "paper_restored",
    ):
        assert action in actions
    assert all(r["username"] for r in app.studies.history(study, owner="local").entries)

    with pytest.raises(InputError):  # not confirmed
        app.studies.empty_trash(EmptyTrashRequest(study), owner="local")
    emptied = app.studies.empty_trash(EmptyTrashRequest(study, confirm=True), owner="local")
    assert emptied.count == 1 and not app.studies.trash(study, owner="local").items


def test_remove_import_and_delete_study(app: App, tmp_path: Path) -> None:
    ws = app.workspace()
    study = ws.create_study("Imports")
    ris = tmp_path / "a.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - One\nDO  - 10.1/one\nER  - \nTY  - JOUR\nTI  - Two\nDO  - 10.1/two\nER  - \n"
    )
    ris2 = tmp_path / "b.ris"
    ris2.write_text("TY  - JOUR\nTI  - Two\nDO  - 10.1/two\nER  - \n")
    first = ws.save_file(ris, study=study.id)
    ws.save_file(ris2, study=study.id)
    assert _counts(app, study.id)[0] == 2
    out = app.studies.remove_import(study.id, first.import_id, owner="local")
    assert out.count == 1  # "Two" came by the other import too
    view = app.studies.study(study.id, owner="local").to_dict()
    assert [p["title"] for p in view["papers"]] == ["Two"]  # type: ignore[index]
    assert len(view["imports"]) == 1  # type: ignore[arg-type]
    app.studies.restore(out.trash_id or "", owner="local")
    assert _counts(app, study.id)[0] == 2

    deleted = app.studies.delete_study(study.id, owner="local")
    assert all(r["id"] != study.id for r in app.studies.studies(owner="local").studies)
    with pytest.raises(NotFoundError):
        app.studies.study(study.id, owner="local")
    mine = app.studies.trash(None, owner="local")
    assert [i["kind"] for i in mine.items] == ["study"]
    app.studies.restore(deleted.trash_id or "", owner="local")
    assert _counts(app, study.id)[0] == 2
    app.studies.delete_study(study.id, owner="local")
    app.studies.empty_trash(EmptyTrashRequest(None, confirm=True), owner="local")
    assert not app.studies.trash(None, owner="local").items
    with pytest.raises(NotFoundError):
        app.studies.restore(deleted.trash_id or "", owner="local")


def test_roles_and_separate_trashes(app: App) -> None:
    """A viewer reads a Study's trash but neither deletes nor restores; an editor does; an
    outsider sees nothing; work of no Study is each account's own."""
    ana = app.workspace("acct_ana")
    study = ana.create_study("Shared")
    paper = ana.save_paper(make_paper(pmid="7", title="Seven", abstract=ABSTRACT)).paper
    ana.add_to_study(study.id, paper.id)
    note = ana.add_note(paper.id, comment="mine", study=study.id)
    with app.store.write() as conn:
        access.set_member(conn, study.id, "acct_vic", "viewer", "acct_ana", now_iso())
        access.set_member(conn, study.id, "acct_ed", "editor", "acct_ana", now_iso())
    with pytest.raises(NotPermitted):
        app.studies.delete_note(note.id, owner="acct_vic")
    with pytest.raises(NotFoundError):
        app.studies.delete_note(note.id, owner="acct_eve")
    with pytest.raises(NotPermitted):
        app.studies.remove_paper(study.id, paper.id, owner="acct_vic")
    gone = app.studies.delete_note(note.id, owner="acct_ed")
    assert len(app.studies.trash(study.id, owner="acct_vic").items) == 1
    with pytest.raises(NotFoundError):
        app.studies.trash(study.id, owner="acct_eve")
    with pytest.raises(NotPermitted):
        app.studies.restore(gone.trash_id or "", owner="acct_vic")
    with pytest.raises(NotFoundError):
        app.studies.restore(gone.trash_id or "", owner="acct_eve")
    with pytest.raises(NotPermitted):
        app.studies.delete_study(study.id, owner="acct_ed")  # the owner's only
    with pytest.raises(NotPermitted):
        app.studies.empty_trash(EmptyTrashRequest(study.id, confirm=True), owner="acct_ed")
    app.studies.restore(gone.trash_id or "", owner="acct_ed")
    who = {r["account_id"] for r in app.studies.history(study.id, owner="acct_ana").entries}
    assert "acct_ed" in who

    # work of no Study: in its author's own trash only
    loose = ana.add_note(paper.id, comment="of no Study")
    out = app.studies.delete_note(loose.id, owner="acct_ana")
    assert out.study_id is None
    assert [i["id"] for i in app.studies.trash(None, owner="acct_ana").items] == [out.trash_id]
    assert app.studies.trash(None, owner="acct_ed").items == []
    with pytest.raises(NotFoundError):
        app.studies.restore(out.trash_id or "", owner="acct_ed")
