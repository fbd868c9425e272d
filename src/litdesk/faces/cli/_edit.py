"""Edit, delete, the trash and the history of a Study (issue 27): ``litdesk note
edit/delete``, ``litdesk evidence delete``, ``litdesk study remove-paper / remove-import / import-source / remove-search /
delete / trash / restore / empty-trash / history``. Deletion is soft: each deleted item
goes into a trash (its Study's, or the account's own) and ``study restore`` puts it back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from .._words import plural
from ._context import sync_app
from ._evidence import evidence_app
from ._output import command, console, emit_json
from ._workspace import JsonOpt, study_app

if TYPE_CHECKING:
    from litdesk.services.studies import ChangeView

__all__ = ["register"]

note_app = typer.Typer(help="Notes and highlights: edit and delete.", no_args_is_help=True)


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _changed(view: ChangeView, as_json: bool) -> None:
    if as_json:
        emit_json(view.to_dict())
        return
    where = f" in {view.study_name}" if view.study_name else ""
    if view.action == "deleted":
        _say(f"Deleted{where}: {view.label}")
        _say(f"Undo with: litdesk study restore {view.trash_id}")
    elif view.action == "restored":
        _say(f"Restored{where}: {view.label}")
    elif view.count == 0:
        _say(f"The trash{where} is empty: there is nothing to empty.")
    else:
        _say(f"Emptied the trash{where}: {plural(view.count, 'item')} deleted for good")


@note_app.command("edit")
@command
def note_edit(
    note_id: Annotated[str, typer.Argument(help="The note's id (litdesk paper notes).")],
    comment: Annotated[str, typer.Argument(help="The new comment ('' clears a highlight's).")],
    as_json: JsonOpt = False,
) -> None:
    """Change a note's comment (a highlight's passage stays)."""
    from litdesk.services.studies import NoteEditRequest

    request = NoteEditRequest(note_id, comment)
    with sync_app() as app:
        view = app.studies.edit_note(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    else:
        _say(f"Note {view.id} changed")


@note_app.command("delete")
@command
def note_delete(
    note_id: Annotated[str, typer.Argument(help="The note's id.")],
    as_json: JsonOpt = False,
) -> None:
    """Delete a highlight or comment (into the trash: restorable)."""
    with sync_app() as app:
        _changed(app.studies.delete_note(note_id, owner=app.owner), as_json)


@evidence_app.command("delete")
@command
def evidence_delete(
    evidence_id: Annotated[str, typer.Argument(help="The evidence record's id.")],
    as_json: JsonOpt = False,
) -> None:
    """Delete an evidence record (into the trash: restorable)."""
    with sync_app() as app:
        _changed(app.studies.delete_evidence(evidence_id, owner=app.owner), as_json)


StudyArg = Annotated[str, typer.Argument(help="A Study (name or id).")]


@study_app.command("remove-paper")
@command
def study_remove_paper(
    study: StudyArg,
    paper_id: Annotated[str, typer.Argument(help="The paper's id in the Study.")],
    as_json: JsonOpt = False,
) -> None:
    """Take a paper out of a Study with its notes and evidence there (restorable)."""
    with sync_app() as app:
        _changed(app.studies.remove_paper(study, paper_id, owner=app.owner), as_json)


@study_app.command("remove-import")
@command
def study_remove_import(
    study: StudyArg,
    import_id: Annotated[str, typer.Argument(help="The import's id (litdesk study show).")],
    as_json: JsonOpt = False,
) -> None:
    """Take a whole import out of a Study: its trace and the papers only it brought
    (restorable)."""
    with sync_app() as app:
        _changed(app.studies.remove_import(study, import_id, owner=app.owner), as_json)


@study_app.command("import-source")
@command
def study_import_source(
    study: StudyArg,
    import_id: Annotated[str, typer.Argument(help="The import's id (litdesk study show).")],
    source: Annotated[
        str | None, typer.Option("--source", help="The source's name, e.g. Embase.")
    ] = None,
    source_kind: Annotated[
        str | None,
        typer.Option("--source-kind", help="database, register or other (citation searching…)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Name the source an import's records count under in PRISMA 2020 (its database,
    register or other method); screening and deduplication decisions stay."""
    from litdesk.services.studies import ImportSourceRequest

    request = ImportSourceRequest(study, import_id, source, source_kind)
    with sync_app() as app:
        view = app.studies.set_import_source(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
        return
    _say(
        f"{view.file} in {view.study_name}: counted as {view.name} ({view.kind}), "
        f"{plural(view.records, 'record')}"
    )


@study_app.command("remove-search")
@command
def study_remove_search(
    study: StudyArg,
    run_id: Annotated[str, typer.Argument(help="The search run's id (litdesk study show).")],
    as_json: JsonOpt = False,
) -> None:
    """Take a whole search run out of a Study: its records and the papers only it brought
    (restorable; the run itself is kept)."""
    with sync_app() as app:
        _changed(app.studies.remove_search_run(study, run_id, owner=app.owner), as_json)


@study_app.command("delete")
@command
def study_delete(study: StudyArg, as_json: JsonOpt = False) -> None:
    """Delete a Study (into your trash: restorable until you empty it)."""
    with sync_app() as app:
        _changed(app.studies.delete_study(study, owner=app.owner), as_json)


@study_app.command("trash")
@command
def study_trash(
    study: Annotated[
        str | None, typer.Argument(help="A Study; without it, your own trash.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List a Study's trash (or your own: work of no Study and deleted Studies)."""
    with sync_app() as app:
        view = app.studies.trash(study, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
        return
    _say(f"Trash of {view.study_name or 'yours'}: {plural(len(view.items), 'item')}")
    for item in view.items:
        _say(f"{item['id']}  {item['kind']:9}  {item['deleted_at']}  {item['label']}")


@study_app.command("restore")
@command
def study_restore(
    item: Annotated[str, typer.Argument(help="The trash item's id (litdesk study trash).")],
    as_json: JsonOpt = False,
) -> None:
    """Put an item of a trash back where it was."""
    with sync_app() as app:
        _changed(app.studies.restore(item, owner=app.owner), as_json)


@study_app.command("empty-trash")
@command
def study_empty_trash(
    study: Annotated[
        str | None, typer.Argument(help="A Study; without it, your own trash.")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: delete for good.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete a trash's items for good (asks first; --yes confirms)."""
    from litdesk.services.studies import EmptyTrashRequest

    with sync_app() as app:
        if not yes and not as_json and app.studies.trash(study, owner=app.owner).items:
            yes = typer.confirm("Delete the trash's items for good?", default=False)
        request = EmptyTrashRequest(study, confirm=yes)
        _changed(app.studies.empty_trash(request, owner=app.owner), as_json)


@study_app.command("history")
@command
def study_history(study: StudyArg, as_json: JsonOpt = False) -> None:
    """Who changed what in a Study, and when (newest first)."""
    with sync_app() as app:
        view = app.studies.history(study, owner=app.owner)
        me = app.owner
    if as_json:
        emit_json(view.to_dict())
        return
    for e in view.entries:  # who: only when not you (the local workspace's one person)
        who = "" if e["username"] in (me, "local") else f"  {e['username']}"
        _say(f"{e['at']}{who}  {e['what']}  {e['label'] or ''}")


def register(app: typer.Typer) -> None:
    """Add ``litdesk note``; the study and evidence commands join their groups."""
    app.add_typer(note_app, name="note")
