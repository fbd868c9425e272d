"""A Study's extraction form: the page (choose a template; add, edit, remove and reorder
fields) and its ``/api/v1`` twins. Only the Study's owner changes the form."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.studies import FormFieldRequest, SetFormRequest

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import StudyRef

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["extraction forms"])

Action = Literal["add", "update", "remove", "up", "down"]
FieldType = Literal["text", "number", "choice", "yesno"]
TemplateName = Literal["default", "pico", "rob2"]


class FieldBody(BaseModel):
    """One change to a form's fields (``options``: one per line for a choice)."""

    action: Action
    key: str = Field(min_length=1, max_length=40)
    label: str = Field("", max_length=200)
    type: FieldType = "text"
    options: str = Field("", max_length=8_000, description="A choice's options, one per line.")
    help: str = Field("", max_length=1_000)
    required: bool = False
    max_length: int | None = Field(None, ge=1, le=4_000)

    def request(self, ref: str) -> FormFieldRequest:
        return FormFieldRequest(
            ref,
            self.action,
            self.key,
            label=self.label,
            type=self.type,
            options=tuple(self.options.splitlines()),
            help=self.help,
            required=self.required,
            max_length=self.max_length,
        )


@pages.get("/study/{ref}/form", response_class=HTMLResponse)
def form_page(request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    data = app.studies.form(ref, owner=owner).to_dict()
    return page(request, "form.html", data, title="Extraction form")


@api.get("/studies/{ref}/form", summary="A Study's extraction form (default: six fields)")
def form_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    return app.studies.form(ref, owner=owner).to_dict()


class FieldSpec(BaseModel):
    """One field of a form (as ``GET …/form`` shows it)."""

    key: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    label: str = Field(min_length=1, max_length=200)
    type: FieldType = "text"
    options: list[str] = Field(default_factory=list, max_length=30)
    help: str = Field("", max_length=1_000)
    required: bool = False
    max_length: int = Field(4_000, ge=1, le=4_000)


class FormBody(BaseModel):
    """A form of the reviewers' own: its name and ordered fields."""

    name: str = Field("Custom form", min_length=1, max_length=200)
    fields: list[FieldSpec] = Field(min_length=1, max_length=60)


class TemplateBody(BaseModel):
    template: TemplateName


@api.put(
    "/studies/{ref}/form",
    summary="Set a Study's form to one of your own (ordered fields: key, label, type, "
    "options, help, required, max_length); the Study's owner only",
)
def form_set_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: FormBody) -> dict[str, object]:
    request = SetFormRequest.from_json(ref, body.model_dump())
    return app.studies.set_form(request, owner=owner).to_dict()


@api.post(
    "/studies/{ref}/form/template",
    summary="Set a Study's form to a ready template (default, pico, rob2); the owner only",
)
def form_template_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: TemplateBody
) -> dict[str, object]:
    request = SetFormRequest(ref, template=body.template)
    return app.studies.set_form(request, owner=owner).to_dict()


@pages.post("/study/{ref}/form/template")
def form_template_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    template: Annotated[TemplateName, Form()],
) -> Response:
    view = app.studies.set_form(SetFormRequest(ref, template=template), owner=owner)
    return RedirectResponse(f"/study/{view.study_id}/form", status_code=303)


@api.post(
    "/studies/{ref}/form/fields",
    summary="Add, edit, remove or move one field of a Study's form (the owner only)",
)
def form_field_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: FieldBody
) -> dict[str, object]:
    return app.studies.change_form_field(body.request(ref), owner=owner).to_dict()


@pages.post("/study/{ref}/form/fields")
def form_field_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: Annotated[FieldBody, Form()]
) -> Response:
    view = app.studies.change_form_field(body.request(ref), owner=owner)
    anchor = f"#field-{body.key}" if body.action != "remove" else "#fields"
    return RedirectResponse(f"/study/{view.study_id}/form{anchor}", status_code=303)
