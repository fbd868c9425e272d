"""Edit, delete (into a trash), restore and the history of a Study's work (issue 27): notes
and highlights, evidence, a paper's membership, an import and the Study itself; the trash
pages (a Study's, the account's own) and the Study's history; with ``/api/v1`` twins.

Without JavaScript: a deletion posts a form and lands on the trash page naming what was
deleted with its "Restore" button (undo right after); deleting a Study and emptying a trash
first show a confirmation page (a form to post, nothing inline)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Annotated, Final
from urllib.parse import quote

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.reader import EvidenceUpdateRequest
from litdesk.services.studies import (
    ChangeView,
    EmptyTrashRequest,
    ImportSourceRequest,
    NoteEditRequest,
)

from ..._words import plural
from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import PaperId, StudyRef

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["edit, delete and the trash"])

_ID: Final = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
NoteId = Annotated[str, Path(pattern=_ID, description="A note's (highlight's, comment's) id.")]
EvidenceId = Annotated[str, Path(pattern=_ID, description="An evidence record's id.")]
ImportId = Annotated[str, Path(pattern=_ID, description="An import's id.")]
SearchRunId = Annotated[str, Path(pattern=_ID, description="A search run's id.")]
ItemId = Annotated[str, Path(pattern=_ID, description="A trash item's id.")]
MAX_FIELD = 4_000


class NoteBody(BaseModel):
    comment: str = Field("", max_length=MAX_FIELD)


FieldValue = Annotated[str, Field(max_length=MAX_FIELD)] | int | float | bool


class EvidenceEditBody(BaseModel):
    """The fields to change (absent: unchanged; '' clears an optional one): the six
    default fields, or ``values`` by the key of a field of the record's Study form."""

    finding: str | None = Field(None, min_length=1, max_length=MAX_FIELD)
    passage: str | None = Field(None, max_length=8_000)
    location: str | None = Field(None, max_length=500)
    question: str | None = Field(None, max_length=MAX_FIELD)
    population: str | None = Field(None, max_length=MAX_FIELD)
    method: str | None = Field(None, max_length=MAX_FIELD)
    intervention: str | None = Field(None, max_length=MAX_FIELD)
    limitations: str | None = Field(None, max_length=MAX_FIELD)

    values: dict[str, FieldValue] = Field(
        default_factory=dict,
        max_length=60,
        description="New values by the key of a field of the record's Study form ('' clears).",
    )

    def request(
        self, evidence_id: str, values: Mapping[str, object] | None = None
    ) -> EvidenceUpdateRequest:
        given = self.model_dump(exclude_unset=True, exclude={"values"})
        changes = {k: v for k, v in given.items() if v is not None}
        return EvidenceUpdateRequest(evidence_id, changes, dict(values or self.values))


class ConfirmBody(BaseModel):
    confirm: bool = Field(False, description="true: delete the trash's items for good.")


def _to_trash(view: ChangeView) -> RedirectResponse:
    """After a deletion: the trash that holds it, naming it, with its Restore button."""
    where = f"/study/{quote(view.study_id, safe='')}/trash" if view.study_id else "/trash"
    if view.kind == "study":
        where = "/trash"
    return RedirectResponse(f"{where}?deleted={quote(view.trash_id or '')}", status_code=303)


# --- notes and evidence -----------------------------------------------------------------------


@api.post("/notes/{note_id}/edit", summary="Change a note's comment (a highlight stays)")
def note_edit_api(
    app: AppDep, owner: OwnerDep, note_id: NoteId, body: NoteBody
) -> dict[str, object]:
    view = app.studies.edit_note(NoteEditRequest(note_id, body.comment), owner=owner)
    return dict(view.to_dict())


@pages.post("/note/{note_id}/edit")
def note_edit_form(
    app: AppDep,
    owner: OwnerDep,
    note_id: NoteId,
    comment: Annotated[str, Form(max_length=MAX_FIELD)] = "",
) -> Response:
    view = app.studies.edit_note(NoteEditRequest(note_id, comment), owner=owner)
    study = f"?study={quote(view.study_id)}" if view.study_id else ""
    return RedirectResponse(f"/paper/{view.annotation.paper_id}{study}#notes", status_code=303)


@api.post("/notes/{note_id}/delete", summary="Delete a highlight or comment (into the trash)")
def note_delete_api(app: AppDep, owner: OwnerDep, note_id: NoteId) -> dict[str, object]:
    return app.studies.delete_note(note_id, owner=owner).to_dict()


@pages.post("/note/{note_id}/delete")
def note_delete_form(app: AppDep, owner: OwnerDep, note_id: NoteId) -> Response:
    return _to_trash(app.studies.delete_note(note_id, owner=owner))


@api.post("/evidence/{evidence_id}/edit", summary="Change an evidence record's fields")
def evidence_edit_api(
    app: AppDep, owner: OwnerDep, evidence_id: EvidenceId, body: EvidenceEditBody
) -> dict[str, object]:
    return app.reader.update_evidence(body.request(evidence_id), owner=owner).to_dict()


@pages.post("/evidence/{evidence_id}/edit")
async def evidence_edit_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    evidence_id: EvidenceId,
    body: Annotated[EvidenceEditBody, Form()],
) -> Response:
    posted = await request.form()  # a Study form's fields come as field.<key>
    values = {
        str(k)[6:]: v
        for k, v in posted.multi_items()
        if str(k).startswith("field.") and isinstance(v, str)
    }
    edit = body.request(evidence_id, values)
    view = (await asyncio.to_thread(app.reader.update_evidence, edit, owner=owner)).record
    study = f"?study={quote(view.study_id)}" if view.study_id else ""
    return RedirectResponse(f"/paper/{view.evidence.paper_id}{study}#evidence", status_code=303)


@api.post("/evidence/{evidence_id}/delete", summary="Delete an evidence record (into the trash)")
def evidence_delete_api(app: AppDep, owner: OwnerDep, evidence_id: EvidenceId) -> dict[str, object]:
    return app.studies.delete_evidence(evidence_id, owner=owner).to_dict()


@pages.post("/evidence/{evidence_id}/delete")
def evidence_delete_form(app: AppDep, owner: OwnerDep, evidence_id: EvidenceId) -> Response:
    return _to_trash(app.studies.delete_evidence(evidence_id, owner=owner))


# --- a Study's papers, imports, the Study ---------------------------------------------------


@api.post(
    "/studies/{ref}/papers/{paper_id}/remove",
    summary="Take a paper out of a Study with its work there (into the trash)",
)
def remove_paper_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, paper_id: PaperId
) -> dict[str, object]:
    return app.studies.remove_paper(ref, paper_id, owner=owner).to_dict()


@pages.post("/study/{ref}/papers/{paper_id}/remove")
def remove_paper_form(app: AppDep, owner: OwnerDep, ref: StudyRef, paper_id: PaperId) -> Response:
    return _to_trash(app.studies.remove_paper(ref, paper_id, owner=owner))


@api.post(
    "/studies/{ref}/imports/{import_id}/remove",
    summary="Take a whole import out of a Study with the papers only it brought (into the trash)",
)
def remove_import_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, import_id: ImportId
) -> dict[str, object]:
    return app.studies.remove_import(ref, import_id, owner=owner).to_dict()


@pages.post("/study/{ref}/imports/{import_id}/remove")
def remove_import_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, import_id: ImportId
) -> Response:
    return _to_trash(app.studies.remove_import(ref, import_id, owner=owner))


class ImportSourceBody(BaseModel):
    name: str | None = Field(default=None, max_length=1000)
    kind: str | None = Field(default=None, max_length=40)


@api.post(
    "/studies/{ref}/imports/{import_id}/source",
    summary="Name the source (database, register or other method) an import's records "
    "count under in PRISMA 2020",
)
def import_source_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, import_id: ImportId, body: ImportSourceBody
) -> dict[str, object]:
    request = ImportSourceRequest(ref, import_id, body.name, body.kind)
    return app.studies.set_import_source(request, owner=owner).to_dict()


@pages.post("/study/{ref}/imports/{import_id}/source")
def import_source_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    import_id: ImportId,
    name: Annotated[str, Form(max_length=1000)] = "",
    kind: Annotated[str, Form(max_length=40)] = "",
) -> Response:
    request = ImportSourceRequest(ref, import_id, name or None, kind or None)
    view = app.studies.set_import_source(request, owner=owner)
    return RedirectResponse(f"/study/{quote(view.study_id)}#imports", status_code=303)


@api.post(
    "/studies/{ref}/runs/{run_id}/remove",
    summary="Take a whole search run out of a Study with its records (into the trash)",
)
def remove_search_run_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, run_id: SearchRunId
) -> dict[str, object]:
    return app.studies.remove_search_run(ref, run_id, owner=owner).to_dict()


@pages.post("/study/{ref}/runs/{run_id}/remove")
def remove_search_run_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, run_id: SearchRunId
) -> Response:
    return _to_trash(app.studies.remove_search_run(ref, run_id, owner=owner))


@api.post("/studies/{ref}/delete", summary="Delete a Study (into its owner's trash)")
def study_delete_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    return app.studies.delete_study(ref, owner=owner).to_dict()


@pages.get("/study/{ref}/delete", response_class=HTMLResponse)
def study_delete_confirm(request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    study = app.studies.study(ref, owner=owner).to_dict()
    sid = quote(str(study["id"]), safe="")
    data = {
        "question": f"Delete the Study “{study['name']}”? It goes into your trash; "
        "you can restore it from there until you empty it.",
        "action": f"/study/{sid}/delete",
        "button": "Delete the Study",
        "back": f"/study/{sid}",
        "confirm": False,
    }
    return page(request, "confirm_action.html", data, title="Delete a Study")


@pages.post("/study/{ref}/delete")
def study_delete_form(app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    return _to_trash(app.studies.delete_study(ref, owner=owner))


# --- the trash and the history ---------------------------------------------------------------


def _trash_page(
    request: Request, data: dict[str, object], deleted: str | None, restored: str | None = None
) -> Response:
    data["deleted"] = next(
        (i for i in data["items"] if isinstance(i, dict) and i.get("id") == deleted),  # type: ignore[attr-defined]
        None,
    )
    data["restored"] = restored  # the label of what a restore from this page put back
    return page(request, "trash.html", data, title="Trash")


@api.get("/studies/{ref}/trash", summary="A Study's trash (deleted work, restorable)")
def study_trash_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    return app.studies.trash(ref, owner=owner).to_dict()


@pages.get("/study/{ref}/trash", response_class=HTMLResponse)
def study_trash_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    deleted: Annotated[str | None, Query(max_length=100)] = None,
    restored: Annotated[str | None, Query(max_length=300)] = None,
) -> Response:
    return _trash_page(request, app.studies.trash(ref, owner=owner).to_dict(), deleted, restored)


@api.get("/trash", summary="Your own trash: work of no Study and the Studies you deleted")
def own_trash_api(app: AppDep, owner: OwnerDep) -> dict[str, object]:
    return app.studies.trash(None, owner=owner).to_dict()


@pages.get("/trash", response_class=HTMLResponse)
def own_trash_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    deleted: Annotated[str | None, Query(max_length=100)] = None,
    restored: Annotated[str | None, Query(max_length=300)] = None,
) -> Response:
    return _trash_page(request, app.studies.trash(None, owner=owner).to_dict(), deleted, restored)


@api.post("/trash/{item_id}/restore", summary="Put a trash item back where it was")
def restore_api(app: AppDep, owner: OwnerDep, item_id: ItemId) -> dict[str, object]:
    return app.studies.restore(item_id, owner=owner).to_dict()


def _trash_back(back: str) -> str | None:
    """The trash page a restore came from (``/trash`` or ``/study/{id}/trash``), else None."""
    parts = back.split("/")
    if back == "/trash" or (
        len(parts) == 4
        and parts[0] == ""
        and parts[1] == "study"
        and parts[2]
        and parts[3] == "trash"
    ):
        return back
    return None


@pages.post("/trash/{item_id}/restore")
def restore_form(
    app: AppDep,
    owner: OwnerDep,
    item_id: ItemId,
    back: Annotated[str, Form(max_length=300)] = "",
) -> Response:
    view = app.studies.restore(item_id, owner=owner)
    trash = _trash_back(back)
    if trash is not None:  # restoring from a trash page: it stays, saying what came back
        where = f"{trash}?restored={quote(view.label[:200], safe='')}"
        return RedirectResponse(where, status_code=303)
    if view.study_id is None:
        return RedirectResponse("/trash", status_code=303)
    return RedirectResponse(f"/study/{quote(view.study_id, safe='')}", status_code=303)


@api.post("/studies/{ref}/trash/empty", summary="Empty a Study's trash for good (confirm: true)")
def empty_study_trash_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: ConfirmBody
) -> dict[str, object]:
    request = EmptyTrashRequest(ref, confirm=body.confirm)
    return app.studies.empty_trash(request, owner=owner).to_dict()


@api.post("/trash/empty", summary="Empty your own trash for good (confirm: true)")
def empty_own_trash_api(app: AppDep, owner: OwnerDep, body: ConfirmBody) -> dict[str, object]:
    request = EmptyTrashRequest(None, confirm=body.confirm)
    return app.studies.empty_trash(request, owner=owner).to_dict()


def _nothing_to_empty(request: Request, back: str) -> Response:
    """``Empty the trash`` reached by its address with nothing in it: said, no button."""
    data = {
        "question": "The trash is empty: there is nothing to empty.",
        "back": back,
        "back_label": "Back to the trash",
    }
    return page(request, "confirm_action.html", data, title="Empty the trash")


@pages.get("/study/{ref}/trash/empty", response_class=HTMLResponse)
def empty_study_confirm(request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    trash = app.studies.trash(ref, owner=owner)
    back = f"/study/{quote(trash.study_id or '', safe='')}/trash"
    if not trash.items:
        return _nothing_to_empty(request, back)
    data = {
        "question": f"Delete the {plural(len(trash.items), 'item')} in the trash of "
        f"“{trash.study_name}” for good? This cannot be undone.",
        "action": f"/study/{quote(trash.study_id or '', safe='')}/trash/empty",
        "button": "Empty the trash",
        "back": back,
        "confirm": True,
    }
    return page(request, "confirm_action.html", data, title="Empty the trash")


@pages.get("/trash/empty", response_class=HTMLResponse)
def empty_own_confirm(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    trash = app.studies.trash(None, owner=owner)
    if not trash.items:
        return _nothing_to_empty(request, "/trash")
    data = {
        "question": f"Delete the {plural(len(trash.items), 'item')} in your trash for good "
        "(deleted Studies with everything in them)? This cannot be undone.",
        "action": "/trash/empty",
        "button": "Empty the trash",
        "back": "/trash",
        "confirm": True,
    }
    return page(request, "confirm_action.html", data, title="Empty the trash")


@pages.post("/study/{ref}/trash/empty")
def empty_study_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    confirm: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    view = app.studies.empty_trash(EmptyTrashRequest(ref, confirm=confirm == "yes"), owner=owner)
    return RedirectResponse(f"/study/{quote(view.target, safe='')}/trash", status_code=303)


@pages.post("/trash/empty")
def empty_own_form(
    app: AppDep, owner: OwnerDep, confirm: Annotated[str, Form(max_length=10)] = ""
) -> Response:
    app.studies.empty_trash(EmptyTrashRequest(None, confirm=confirm == "yes"), owner=owner)
    return RedirectResponse("/trash", status_code=303)


@api.get("/studies/{ref}/history", summary="Who changed what in a Study, and when")
def history_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    return app.studies.history(ref, owner=owner).to_dict()


@pages.get("/study/{ref}/history", response_class=HTMLResponse)
def history_page(request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    data = app.studies.history(ref, owner=owner).to_dict()
    # who made a change is news on a team server only: a single-user workspace has one
    # person (recorded as "local"), so its page has no Who column
    data["team"] = owner != app.owner
    return page(request, "history.html", data, title="Study history")
