"""Edit, delete (into a trash), restore and the history of a Study: the use cases behind
``app.studies.edit_note`` … ``history``. Every write is one transaction, checked as the
acting account (team mode: an editor edits and deletes, a viewer does not; the Study's
owner deletes the Study and empties its trash). Every change is in the Study's history
with who and when; work of no Study is kept in the account's own trash."""

from __future__ import annotations

import re
import secrets
import time
from typing import Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import IntegrityError, NotFoundError
from litdesk.adapters.store import LOCAL_OWNER, Store, repo, study_records, trash
from litdesk.adapters.store import accounts as access
from litdesk.core.evidence import make_annotation, read_annotation, read_evidence
from litdesk.core.imports import ImportSourceKind, ImportTrace, kind_of_name
from litdesk.core.words import day, import_label, plural
from litdesk.services.workspace import NoteView, import_source_row, now_iso, read_import_row

from ._edit_requests import EditInputError, EmptyTrashRequest, NoteEditRequest
from ._edit_views import ChangeView, HistoryItem, HistoryView, TrashItem, TrashView
from ._views import ImportRow

__all__ = [
    "delete_evidence",
    "delete_note",
    "delete_study",
    "edit_note",
    "empty_trash",
    "history",
    "counted_as",
    "import_rows",
    "remove_import",
    "remove_paper",
    "remove_search_run",
    "restore",
    "show_trash",
]

_QUOTE: Final = 80


def _new_id() -> str:
    return f"trash-{time.time_ns():016x}{secrets.token_hex(4)}"


def _short(text: str, n: int = _QUOTE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _title(conn: Connection, paper_id: str | None, viewer: str, study_id: str | None) -> str:
    """The title of the record ``viewer`` reads (the Study's, when given)."""
    if not paper_id:
        return "a paper"
    try:
        paper = repo.get_paper(conn, paper_id, viewer=viewer, study_id=study_id).paper
        return paper.title or paper_id
    except NotFoundError:
        return paper_id


def _study_name(conn: Connection, study_id: str | None) -> str | None:
    if study_id is None:
        return None
    return repo.get_study(conn, study_id, account=LOCAL_OWNER).name


def _history(conn: Connection, study_id: str | None, owner: str, action: str, label: str) -> None:
    if study_id is not None:
        access.add_history(conn, study_id, owner, action, label, now_iso())


def _into_trash(
    conn: Connection,
    study_id: str | None,
    owner: str,
    kind: str,
    target: str,
    label: str,
    data: dict[str, list[dict[str, Any]]],
    *,
    action: str,
    said: str,
) -> str:
    """Put what was taken into the Study's trash and say so in its history; the entry's id."""
    entry = _new_id()
    trash.add_trash(
        conn,
        entry,
        study_id=study_id,
        owner=owner,
        kind=kind,
        target=target,
        label=label,
        data=data,
        now=now_iso(),
    )
    _history(conn, study_id, owner, action, said)
    return entry


def _study(conn: Connection, ref: str, owner: str, need: access.Need) -> repo.StudyRow:
    row, _ = repo.study_with_role(conn, ref, account=owner, need=need)
    return row


# --- notes and evidence ---------------------------------------------------------------------


def _note_label(conn: Connection, row: repo.DocumentRow) -> tuple[str, str]:
    """``(kind, label)`` of a stored note: ``highlight`` or ``comment``, with its paper's
    title and the quote or comment."""
    try:
        note = read_annotation(row.json())
    except IntegrityError:
        return "note", f"Note on {_title(conn, row.paper_id, row.owner, row.study_id)}"
    title = _title(conn, row.paper_id, row.owner, row.study_id)
    if note.anchor is not None:
        return "highlight", f"Highlight on {title}: “{_short(note.anchor.text)}”"
    return "comment", f"Comment on {title}: “{_short(note.comment or '')}”"


def _evidence_label(conn: Connection, row: repo.DocumentRow) -> str:
    """A stored evidence record for a person: its paper's title and its finding."""
    try:
        finding = read_evidence(row.json()).finding
    except IntegrityError:
        finding = ""
    return f"Evidence on {_title(conn, row.paper_id, row.owner, row.study_id)}: “{_short(finding or '')}”"


def edit_note(store: Store, request: NoteEditRequest, owner: str) -> NoteView:
    """A note's new comment (its highlight stays as it was)."""
    with store.write() as conn:
        row = repo.get_document(conn, "notes", request.note_id)
        access.require_document(conn, owner, row.owner, row.study_id, "write")
        note = read_annotation(row.json())
        if note.anchor is None and not request.comment:
            raise EditInputError(
                "a comment cannot be blank: delete it instead", code="empty_comment"
            )
        paper = repo.get_paper(conn, note.paper_id, viewer=row.owner, study_id=row.study_id).paper
        revised = make_annotation(
            paper, comment=request.comment or None, anchor=note.anchor, created_at=note.created_at
        )
        repo.replace_document(conn, "notes", row.id, revised.model_dump(mode="json"))
        kind, label = _note_label(conn, row)
        _history(conn, row.study_id, owner, f"{kind}_edited", label)
    return NoteView(row.id, revised, row.study_id)


def _delete_document(store: Store, kind: str, doc_id: str, owner: str) -> ChangeView:
    with store.write() as conn:
        row = repo.get_document(conn, kind, doc_id)
        access.require_document(conn, owner, row.owner, row.study_id, "write")
        if kind == "notes":
            what, label = _note_label(conn, row)
        else:
            what, label = "evidence", _evidence_label(conn, row)
        data = trash.take_document(conn, kind, doc_id)
        entry = _into_trash(
            conn,
            row.study_id,
            owner,
            what,
            doc_id,
            label,
            data,
            action=f"{what}_deleted",
            said=label,
        )
        name = _study_name(conn, row.study_id)
    return ChangeView("deleted", what, doc_id, label, row.study_id, name, entry)


def delete_note(store: Store, note_id: str, owner: str) -> ChangeView:
    """A highlight or comment into the trash (its Study's, or the account's own)."""
    return _delete_document(store, "notes", note_id, owner)


def delete_evidence(store: Store, evidence_id: str, owner: str) -> ChangeView:
    """An evidence record into the trash."""
    return _delete_document(store, "evidence", evidence_id, owner)


# --- a Study's papers and imports -----------------------------------------------------------


def remove_paper(store: Store, study: str, paper_id: str, owner: str) -> ChangeView:
    """A paper out of a Study, with the notes and evidence made on it there (into the
    Study's trash; the saved paper itself stays)."""
    with store.write() as conn:
        row = _study(conn, study, owner, "write")
        title = _title(conn, paper_id, owner, row.id)
        data = trash.take_study_paper(conn, row.id, paper_id)
        if not data["study_papers"]:
            raise NotFoundError(
                f"paper {paper_id[:120]!r} is not in this Study", code="paper_not_found"
            )
        extra = len(data["notes"]) + len(data["evidence"])
        label = title + (
            f" (with {plural(extra, 'note or evidence record', 'notes and evidence records')})"
            if extra
            else ""
        )
        entry = _into_trash(
            conn,
            row.id,
            owner,
            "paper",
            paper_id,
            label,
            data,
            action="paper_removed",
            said=title,
        )
    return ChangeView("deleted", "paper", paper_id, label, row.id, row.name, entry)


def _import_papers(conn: Connection, import_id: str, study_id: str) -> list[str]:
    """The papers only this import brought into the Study (not another of its imports)."""
    doc = repo.get_document(conn, "imports", import_id)
    _, ids = read_import_row(doc)
    mine = {i for i in ids if i}
    for other in repo.list_documents(conn, "imports", study_id=study_id, limit=100_000):
        if other.id == import_id:
            continue
        try:
            _, theirs = read_import_row(other)
        except IntegrityError:
            continue
        mine -= {i for i in theirs if i}
    return sorted(mine)


def remove_import(store: Store, study: str, import_id: str, owner: str) -> ChangeView:
    """A whole import out of a Study: its trace and the papers only it brought, with their
    work in the Study (into the Study's trash)."""
    with store.write() as conn:
        row = _study(conn, study, owner, "write")
        doc = repo.get_document(conn, "imports", import_id)
        if doc.study_id != row.id:
            raise NotFoundError(
                f"no import {import_id[:80]} in this Study", code="record_not_found"
            )
        trace, _ = read_import_row(doc)
        papers = _import_papers(conn, import_id, row.id)
        data = trash.take_import(conn, import_id, row.id, papers)
        source = trace.source.path.rsplit("/", 1)[-1] or import_id
        label = f"Import {source} ({plural(len(data.get('study_papers', [])), 'paper')})"
        entry = _into_trash(
            conn,
            row.id,
            owner,
            "import",
            import_id,
            label,
            data,
            action="import_removed",
            said=label,
        )
    return ChangeView(
        "deleted", "import", import_id, label, row.id, row.name, entry, len(data["study_papers"])
    )


def _run_label(conn: Connection, run_id: str) -> str:
    """A linked run for a person: its query and when it ran."""
    doc = study_records.run_document(conn, run_id)
    if isinstance(doc, dict):
        definition = doc.get("definition")
        query = definition.get("query") if isinstance(definition, dict) else None
        when = str(doc.get("executed_at") or "")[:10]
        if isinstance(query, str) and query:
            return f"search “{_short(query)}”" + (f" ({when})" if when else "")
    return f"search run {run_id[:80]}"


def remove_search_run(store: Store, study: str, run_id: str, owner: str) -> ChangeView:
    """A whole search run out of a Study: its link (the run itself stays, the search's
    record) and the papers only it brought, with their work in the Study (into the Study's
    trash; its records leave the working set with it)."""
    with store.write() as conn:
        row = _study(conn, study, owner, "write")
        if run_id not in repo.study_run_ids(conn, row.id):
            raise NotFoundError(
                f"no search run {run_id[:80]} in this Study", code="record_not_found"
            )
        brought = study_records.source_papers(conn, row.id)
        mine = set(brought.get(run_id, set()))
        for source_id, theirs in brought.items():
            if source_id != run_id:
                mine -= theirs
        records = study_records.record_sources(conn, row.id).get(run_id, 0)
        data = trash.take_search_run(conn, run_id, row.id, sorted(mine))
        papers = len(data.get("study_papers", []))
        what = _run_label(conn, run_id)
        label = (
            f"{what[:1].upper()}{what[1:]}: {plural(records, 'record')}, {plural(papers, 'paper')}"
        )
        entry = _into_trash(
            conn,
            row.id,
            owner,
            "run",
            run_id,
            label,
            data,
            action="search_removed",
            said=label,
        )
    return ChangeView("deleted", "run", run_id, label, row.id, row.name, entry, papers)


def delete_study(store: Store, ref: str, owner: str) -> ChangeView:
    """A Study into its owner's trash (hidden until restored; emptying deletes it)."""
    with store.write() as conn:
        row = _study(conn, ref, owner, "owner")
        entry = _into_trash(
            conn,
            row.id,
            owner,
            "study",
            row.id,
            row.name,
            {},
            action="study_deleted",
            said=row.name,
        )
    return ChangeView("deleted", "study", row.id, row.name, row.id, row.name, entry)


# --- the trash ------------------------------------------------------------------------------


def _item(r: trash.TrashRow, usernames: dict[str, str]) -> TrashItem:
    return {
        "id": r.id,
        "kind": r.kind,
        "target": r.target,
        "label": r.label,
        "study_id": r.study_id,
        "deleted_by": usernames.get(r.owner, r.owner),
        "deleted_at": r.deleted_at,
        "rows": sum(len(v) for v in r.data.values()),
    }


def _usernames(conn: Connection, rows: list[trash.TrashRow]) -> dict[str, str]:
    out: dict[str, str] = {}
    for owner in {r.owner for r in rows}:
        if owner == LOCAL_OWNER:
            continue
        try:
            out[owner] = access.get_account(conn, owner).username
        except NotFoundError:
            continue
    return out


def _own_rows(conn: Connection, owner: str) -> list[trash.TrashRow]:
    """The account's own trash: its work of no Study and the Studies it may restore."""
    rows = trash.list_trash(conn, owner=owner)
    for r in trash.deleted_study_entries(conn):
        if r.study_id is not None and access.study_role(conn, owner, r.study_id) == "owner":
            rows.append(r)
    return rows


def show_trash(store: Store, ref: str | None, owner: str) -> TrashView:
    """A Study's trash (its members read it), or with ``ref`` None the account's own."""
    with store.read() as conn:
        if ref is None:
            rows = _own_rows(conn, owner)
            return TrashView(None, None, [_item(r, _usernames(conn, rows)) for r in rows])
        row = _study(conn, ref, owner, "read")
        rows = [r for r in trash.list_trash(conn, study_id=row.id) if r.kind != "study"]
        role = access.study_role(conn, owner, row.id)
        return TrashView(
            row.id,
            row.name,
            [_item(r, _usernames(conn, rows)) for r in rows],
            can_restore=role in ("owner", "editor"),
        )


def _may_restore(conn: Connection, r: trash.TrashRow, owner: str) -> None:
    if r.study_id is None:
        if owner not in (r.owner, LOCAL_OWNER):
            raise NotFoundError("no such item in the trash", code="trash_not_found")
        return
    need: access.Need = "owner" if r.kind == "study" else "write"
    try:
        access.require_study(conn, owner, r.study_id, need)
    except NotFoundError:
        raise NotFoundError("no such item in the trash", code="trash_not_found") from None
    if r.kind != "study" and trash.study_deleted(conn, r.study_id):
        raise NotFoundError("no such item in the trash", code="trash_not_found")


def restore(store: Store, item_id: str, owner: str) -> ChangeView:
    """Put a trash item back as it was (rows whose place is taken again are left)."""
    with store.write() as conn:
        r = trash.get_trash(conn, item_id)
        _may_restore(conn, r, owner)
        count = trash.put_back(conn, r.data) if r.data else 1
        trash.drop_trash(conn, r.id)
        _history(conn, r.study_id, owner, f"{r.kind}_restored", r.label)
        name = _study_name(conn, r.study_id)
    return ChangeView("restored", r.kind, r.target, r.label, r.study_id, name, None, count)


def empty_trash(store: Store, request: EmptyTrashRequest, owner: str) -> ChangeView:
    """Delete a trash's items for good (a Study's: its owner; the account's own: deleted
    Studies go with all their rows). An empty trash has nothing to empty: the answer says
    so (``count`` 0) without asking for a confirmation or recording anything."""
    with store.write() as conn:
        if request.study is None:
            rows = _own_rows(conn, owner)
            if rows:
                request.confirmed()
            for r in rows:
                if r.kind == "study" and r.study_id is not None:
                    trash.purge_study(conn, r.study_id)
                else:
                    trash.drop_trash(conn, r.id)
            return ChangeView("emptied", "trash", owner, "your trash", None, None, None, len(rows))
        row = _study(conn, request.study, owner, "owner")
        rows = [r for r in trash.list_trash(conn, study_id=row.id) if r.kind != "study"]
        if rows:
            request.confirmed()
            for r in rows:
                trash.drop_trash(conn, r.id)
            _history(conn, row.id, owner, "trash_emptied", plural(len(rows), "item"))
    return ChangeView("emptied", "trash", row.id, row.name, row.id, row.name, None, len(rows))


def history(store: Store, ref: str, owner: str, *, limit: int = 500) -> HistoryView:
    """Who changed what in a Study, and when (newest first; with its deduplication
    decisions), each change said in words (``what``) and its target named for a person
    (``label``: a paper's, note's or evidence record's title, a search's query…; never a
    raw id)."""
    from litdesk.services.accounts import Sharing

    view = Sharing(store, owner).history(ref, limit=limit)
    with store.read() as conn:
        name = _study_name(conn, view.study_id) or view.study_id
        entries: list[HistoryItem] = [
            {
                "at": str(e["at"]),
                "account_id": str(e["account_id"]),
                "username": str(e["username"]),
                "action": str(e["action"]),
                "what": what_happened(str(e["action"])),
                "target": e["target"],
                "label": _readable(conn, str(e["action"]), e["target"], owner, view.study_id),
            }
            for e in view.entries
        ]
    return HistoryView(view.study_id, name, entries)


#: a history entry's action in words (past tense; the Study's own changes)
_ACTIONS: Final = {
    "study_created": "Created the Study",
    "study_renamed": "Renamed the Study",
    "study_deleted": "Deleted the Study",
    "paper_added": "Added a paper",
    "paper_removed": "Removed a paper",
    "note_added": "Added a note",
    "evidence_added": "Added an evidence record",
    "run_saved": "Kept a search",
    "search_removed": "Removed a search",
    "search_added": "Added a whole search",
    "study_updated": "Updated the Study's searches",
    "round_begun": "Began an update round",
    "imported": "Imported a file",
    "import_source_set": "Named an import's source",
    "import_removed": "Removed an import",
    "pdf_attached": "Attached a PDF",
    "pdf_confirmed": "Confirmed a PDF",
    "pdf_unlinked": "Unlinked a PDF",
    "pdfs_matched": "Matched library PDFs",
    "report_saved": "Saved a report",
    "form_changed": "Changed the extraction form",
    "screening_configured": "Changed the screening settings",
    "screening_imported": "Imported screening decisions",
    "trash_emptied": "Emptied the trash",
    "member_removed": "Removed a member",
}
#: the things an edit, deletion or restore is about
_KINDS: Final = {
    "paper": "a paper",
    "run": "a search",
    "search": "a search",
    "import": "an import",
    "note": "a note",
    "highlight": "a highlight",
    "comment": "a comment",
    "evidence": "an evidence record",
    "study": "the Study",
}
_VERBS: Final = {"edited": "Edited", "deleted": "Deleted", "restored": "Restored"}


def what_happened(action: str) -> str:
    """A history entry's action for a person (``paper_added``: "Added a paper")."""
    if action in _ACTIONS:
        return _ACTIONS[action]
    if action.startswith("member_"):
        return f"Made a member {action.removeprefix('member_').replace('_', ' ')}"
    if action.startswith("dedup_"):
        return "Deduplication: " + action.removeprefix("dedup_").replace("_", " ")
    kind, _, verb = action.rpartition("_")
    if verb in _VERBS and kind in _KINDS:
        return f"{_VERBS[verb]} {_KINDS[kind]}"
    return action.replace("_", " ").capitalize()


def _readable(
    conn: Connection, action: str, target: str | None, viewer: str, study_id: str
) -> str | None:
    """A history target for a person: a paper's title for its id, a note's or evidence
    record's paper and text, a kept search's query, a PDF's paper and file (older entries
    name ids; one that is gone is said so, not shown)."""
    if target is None:
        return None
    if action == "report_saved":  # its draft's title is not kept with the entry
        return "a Study report"
    if target.startswith("#") and target[1:].isdigit():  # a deduplication step
        return f"step {target[1:]}"
    head, sep, file = target.partition(": ")
    if sep and " " not in head:  # "<paper id>: <file>" (a PDF attached or confirmed)
        return f"{_title(conn, head, viewer, study_id)} ({file})"
    if " " in target:  # already words (a title, a label, a count)
        return target
    for kind in ("notes", "evidence"):
        try:
            row = repo.get_document(conn, kind, target)
        except NotFoundError:
            continue
        if row.study_id != study_id:  # another Study's (or nobody's here): not shown
            break
        return _note_label(conn, row)[1] if kind == "notes" else _evidence_label(conn, row)
    try:
        paper = repo.get_paper(conn, target, viewer=viewer, study_id=study_id).paper
        return paper.title or "a paper without a title"
    except NotFoundError:
        pass
    if study_records.run_document(conn, target) is not None:
        return _run_label(conn, target)
    if _RAW_ID.match(target):
        return "a record no longer here (deleted)"
    return target


#: an id as the store makes them (``ev-…``, ``note-…``, ``run-…``): never shown as such
_RAW_ID: Final = re.compile(r"[a-z]{2,12}[-_][0-9a-f]{16,40}")


def import_rows(store: Store, study_id: str) -> list[ImportRow]:
    """A Study's imports for a person: the file's name, its format, records and when."""
    out: list[ImportRow] = []
    with store.read() as conn:  # the Study page's summary read them in its snapshot
        for doc in repo.study_imports(conn, study_id, memo=store.snapshot_memo()):
            try:
                trace, ids = read_import_row(doc)
            except IntegrityError:
                out.append(
                    {
                        "id": doc.id,
                        "source": doc.id,
                        "label": f"an import that cannot be read ({day(doc.created_at)})",
                        "format": "",
                        "records": 0,
                        "created_at": doc.created_at,
                        "counted_as": "",
                        "prisma_kind": "",
                    }
                )
                continue
            name, kind = counted_as(doc, trace)
            out.append(
                {
                    "id": doc.id,
                    "source": trace.source.path.rsplit("/", 1)[-1] or doc.id,
                    # "psycinfo_64.ris, 64 records, 5 Dec 2026"
                    "label": import_label(trace.source.path or doc.id, len(ids), doc.created_at),
                    "format": trace.source.format,
                    "records": len(ids),
                    "created_at": doc.created_at,
                    "counted_as": name,
                    "prisma_kind": kind,
                }
            )
    return out


def counted_as(doc: repo.DocumentRow, trace: ImportTrace) -> tuple[str, ImportSourceKind]:
    """The source PRISMA counts an import's records under and its kind: the import's named
    source, else (an import made before sources were named) its file, a register by name."""
    source = import_source_row(doc)
    if source is not None:
        return source.name, source.kind
    name = f"Import: {trace.source.path.rsplit('/', 1)[-1]} ({trace.source.format})"
    return name, kind_of_name(name)
