"""A Study's extraction form: read and replace (the caller checks the account's role)."""

from __future__ import annotations

import json

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk.core.forms import Form, form_to_json, read_form

from ._schema import evidence, study_forms

__all__ = ["count_study_evidence", "get_study_form", "put_study_form"]


def get_study_form(conn: Connection, study_id: str) -> Form | None:
    """The Study's stored form (``None``: it uses the default six fields); a stored form
    that fails validation is an :class:`IntegrityError`."""
    row = conn.execute(
        sa.select(study_forms.c.data).where(study_forms.c.study_id == study_id)
    ).first()
    return read_form(row.data) if row is not None else None


def put_study_form(conn: Connection, study_id: str, form: Form, *, by: str, now: str) -> Form:
    """Store ``form`` as the Study's form with the next revision; returns it as stored."""
    current = conn.execute(
        sa.select(study_forms.c.revision).where(study_forms.c.study_id == study_id)
    ).scalar()
    stored = Form(form.fields, name=form.name, template=form.template, revision=(current or 0) + 1)
    data = json.dumps(form_to_json(stored), ensure_ascii=False, separators=(",", ":"))
    values = {"data": data, "revision": stored.revision, "updated_at": now, "updated_by": by}
    if current is None:
        conn.execute(sa.insert(study_forms).values(study_id=study_id, **values))
    else:
        conn.execute(
            sa.update(study_forms).where(study_forms.c.study_id == study_id).values(**values)
        )
    return stored


def count_study_evidence(conn: Connection, study_id: str) -> int:
    """How many evidence records the Study holds."""
    query = sa.select(sa.func.count()).select_from(evidence).where(evidence.c.study_id == study_id)
    return int(conn.execute(query).scalar() or 0)
