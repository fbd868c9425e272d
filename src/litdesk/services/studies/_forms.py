"""A Study's extraction form (issue 27): show it, set it (a ready template or the
reviewers' own JSON) and change one field at a time (add, edit, remove, move) — only the
Study's owner configures it; every change is in the Study's history. Requests and views
of these use cases live here (one module, so that parallel work on the area meets
cleanly)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import (
    NotPermitted,
    Store,
    count_study_evidence,
    get_study_form,
    put_study_form,
    repo,
)
from litdesk.adapters.store import accounts as access
from litdesk.core.forms import (
    FIELD_TYPES,
    TEMPLATES,
    FieldType,
    Form,
    FormField,
    FormInvalid,
    default_form,
    form_from_json,
    form_to_json,
    template,
)
from litdesk.services.workspace import now_iso

__all__ = [
    "FIELD_ACTIONS",
    "FORM_NEED",
    "FieldAction",
    "FormFieldRequest",
    "FormView",
    "SetFormRequest",
    "change_field",
    "may_change_form",
    "set_form",
    "study_form",
]

FieldAction = Literal["add", "update", "remove", "up", "down"]
FIELD_ACTIONS: Final[tuple[FieldAction, ...]] = ("add", "update", "remove", "up", "down")
#: what a Study role needs to change the Study's form (its owner): the one rule, which
#: every change of the form requires and every page offering a change reads
#: (:func:`may_change_form`)
FORM_NEED: Final[access.Need] = "owner"


def may_change_form(role: str | None) -> bool:
    """Whether an account of Study role ``role`` (``None``: not a member) may change the
    Study's form — what a page asks before offering a change."""
    try:
        access.require_role(role, FORM_NEED)
    except (NotFoundError, NotPermitted):
        return False
    return True


class FormRequestInvalid(InputError):
    """A form request does not fit (neither or both of template and form, an action)."""

    default_code = "form_request"


@dataclass(frozen=True, slots=True)
class SetFormRequest:
    """Set a Study's form: a ready ``template`` (default, pico, rob2) or a ``form`` (the
    reviewers' own, e.g. read from a JSON file) — exactly one."""

    ref: str
    template: str | None = None
    form: Form | None = None

    def __post_init__(self) -> None:
        if (self.template is None) == (self.form is None):
            raise FormRequestInvalid("choose a template or give a form (one of them)")
        if self.template is not None:
            template(self.template)  # refuses an unknown name

    @classmethod
    def from_json(cls, ref: str, data: object) -> SetFormRequest:
        """A request from a JSON object: ``{"template": "pico"}`` or a form."""
        if isinstance(data, dict) and set(data) == {"template"}:
            name = data["template"]
            if not isinstance(name, str):
                raise FormRequestInvalid("a template is a name: default, pico or rob2")
            return cls(ref, template=name)
        return cls(ref, form=form_from_json(data))


@dataclass(frozen=True, slots=True)
class FormFieldRequest:
    """One change to a Study's form: ``add`` a field, ``update`` the field ``key`` (its
    label, type, options, help, required, maximum length; the key stays), ``remove`` it,
    or move it ``up``/``down``. ``options`` one per line for a choice."""

    ref: str
    action: str
    key: str
    label: str = ""
    type: str = "text"
    options: tuple[str, ...] = ()
    help: str = ""
    required: bool = False
    max_length: int | None = None

    def __post_init__(self) -> None:
        if self.action not in FIELD_ACTIONS:
            raise FormRequestInvalid(f"an action is one of {', '.join(FIELD_ACTIONS)}")
        if not self.key.strip():
            raise FormRequestInvalid("name the field (its key)", code="field_key")
        if self.action in ("add", "update"):
            self.field()  # validated here, once

    def field(self) -> FormField:
        """The field an ``add``/``update`` describes (validated)."""
        if self.type not in FIELD_TYPES:
            raise FormInvalid(f"type is one of {', '.join(FIELD_TYPES)}")
        kind: FieldType = self.type
        options = tuple(o.strip() for o in self.options if o.strip())
        return FormField(
            key=self.key.strip(),
            label=self.label.strip() or self.key.strip(),
            type=kind,
            options=options if kind == "choice" else (),
            help=self.help.strip(),
            required=self.required,
            max_length=self.max_length or 4_000,
        )


@dataclass(frozen=True, slots=True)
class FormView:
    """A Study's form with what a page needs: the Study's name, whether the caller may
    change it (the Study's owner), the ready templates and the field types."""

    study_id: str
    study_name: str
    form: Form
    stored: bool
    can_configure: bool
    evidence: int = 0
    templates: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "study": {"id": self.study_id, "name": self.study_name},
            "form": form_to_json(self.form),
            "chosen": self.stored,
            "can_configure": self.can_configure,
            "evidence": self.evidence,
            "templates": list(self.templates),
            "field_types": list(FIELD_TYPES),
        }


def _templates() -> list[dict[str, str]]:
    return [{"name": name, "label": make().name} for name, make in TEMPLATES.items()]


def study_form(store: Store, ref: str, owner: str) -> FormView:
    """The form of Study ``ref`` as ``owner`` may read it."""
    with store.read() as conn:
        row, role = repo.study_with_role(conn, ref, account=owner, need="read")
        stored = get_study_form(conn, row.id)
        count = count_study_evidence(conn, row.id)
    return FormView(
        row.id,
        row.name,
        stored or default_form(),
        stored is not None,
        may_change_form(role),
        count,
        _templates(),
    )


def _write(store: Store, ref: str, owner: str, make: Callable[[Form], Form], what: str) -> None:
    with store.write() as conn:
        row, _ = repo.study_with_role(conn, ref, account=owner, need=FORM_NEED)
        current = get_study_form(conn, row.id) or default_form()
        stored = put_study_form(conn, row.id, make(current), by=owner, now=now_iso())
        access.add_history(
            conn, row.id, owner, "form_changed", f"{what} (revision {stored.revision})", now_iso()
        )


def set_form(store: Store, request: SetFormRequest, owner: str) -> FormView:
    """Set the Study's form (its owner only); recorded values are never touched."""
    chosen = template(request.template) if request.template is not None else request.form
    assert chosen is not None
    label = f"template {request.template}" if request.template else "custom form"
    _write(store, request.ref, owner, lambda _current: chosen, label)
    return study_form(store, request.ref, owner)


def _changed(form: Form, request: FormFieldRequest) -> Form:
    fields = list(form.fields)
    keys = [f.key for f in fields]
    key = request.key.strip()
    if request.action == "add":
        fields.append(request.field())
    else:
        if key not in keys:
            raise FormInvalid(f"the form has no field {key[:40]!r}", code="field_key")
        at = keys.index(key)
        if request.action == "update":
            fields[at] = request.field()
        elif request.action == "remove":
            del fields[at]
        else:
            to = at - 1 if request.action == "up" else at + 1
            if 0 <= to < len(fields):
                fields[at], fields[to] = fields[to], fields[at]
    template_name = form.template if request.action in ("up", "down") else None
    name = form.name if template_name or form.template is None else f"{form.name} (changed)"
    return replace(form, fields=tuple(fields), template=template_name, name=name[:200])


def change_field(store: Store, request: FormFieldRequest, owner: str) -> FormView:
    """Add, edit, remove or move one field of the Study's form (its owner only)."""
    _write(
        store,
        request.ref,
        owner,
        lambda current: _changed(current, request),
        f"{request.action} field {request.key.strip()[:40]}",
    )
    return study_form(store, request.ref, owner)
