"""Evidence made with a Study's extraction form: which form applies, and a record's values
checked against it (the six default fields stay stored as they always were)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from sqlalchemy.engine import Connection

from litdesk.adapters.store import get_study_form
from litdesk.core.evidence import EVIDENCE_FIELDS, Evidence, evidence_values
from litdesk.core.forms import FieldValue, Form, check_values, default_form

__all__ = ["FormValues", "form_of", "new_values", "revised_values"]

_LEGACY: Final = frozenset(name for name, _ in EVIDENCE_FIELDS)
_PLACE: Final = frozenset({"passage", "location"})


def form_of(conn: Connection, study_id: str | None) -> Form:
    """The form evidence in ``study_id`` follows (no Study, or none chosen: the default)."""
    if study_id is None:
        return default_form()
    return get_study_form(conn, study_id) or default_form()


@dataclass(frozen=True, slots=True)
class FormValues:
    """Checked values and how to store them: as the six fields (``legacy``) or as the
    form's values with its revision."""

    values: dict[str, FieldValue]
    legacy: bool
    revision: int | None = None
    six: dict[str, str | None] = field(default_factory=dict)


def _storage(form: Form, values: dict[str, FieldValue]) -> FormValues:
    text_keys = {f.key for f in form.fields if f.type == "text"}
    if "finding" in values and set(values) <= (_LEGACY & text_keys):
        six = {name: (str(values[name]) if name in values else None) for name in _LEGACY}
        return FormValues(values, True, None, six)
    return FormValues(values, False, form.revision)


def new_values(form: Form, raw: Mapping[str, object]) -> FormValues:
    """A new record's values checked against ``form`` (each error names its field)."""
    return _storage(form, check_values(form, raw))


def revised_values(form: Form, evidence: Evidence, changes: Mapping[str, object]) -> FormValues:
    """A record's values with ``changes`` ('' clears one), checked against the current
    form; values of fields the form no longer has are kept unchanged."""
    old = evidence_values(evidence)
    raw: dict[str, object] = {k: v for k, v in old.items() if form.field(k) is not None}
    raw.update({k: v for k, v in changes.items() if k not in _PLACE})
    kept = {k: v for k, v in old.items() if form.field(k) is None}
    return _storage(form, check_values(form, raw, kept=kept))
