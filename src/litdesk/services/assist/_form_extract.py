"""Suggestions that fill a Study's own extraction form (the form's fields besides the
finding; see :mod:`litdesk.core.assist._form_extraction`).

* :func:`study_form` — the Study's form when the suggestion is made in a Study that chose
  one (the default six fields: ``None``, the standard suggestion applies).
* :func:`form_call` / :func:`form_draft_data` — the model call and what its draft stores.
* :func:`save_form_draft` — the reviewed values (the suggestions, as edited) recorded
  through the workspace's form-values use case (checked again against the Study's form as
  it is now), with the assistance provenance, in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, RefusedError
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import (
    assist_get_draft,
    assist_insert_provenance,
    assist_mark_draft_saved,
    get_study_form,
    repo,
)
from litdesk.core.assist import (
    FINDING_KEY,
    FORM_EXTRACTION_SYSTEM,
    AskedForm,
    BoundedSource,
    FormDraft,
    ask_form,
    form_answer_chars,
    form_extraction_schema,
    form_max_tokens,
)
from litdesk.core.evidence import (
    FullTextContext,
    europe_pmc_url,
    evidence_values,
    text_digest,
)
from litdesk.core.forms import Form, value_text
from litdesk.services.workspace import Workspace

from ._call import ModelCall

__all__ = [
    "FORM_FEATURE",
    "form_call",
    "form_draft_data",
    "fulltext_context",
    "provenance_head",
    "save_form_draft",
    "study_form",
]

#: The allowance and provenance feature (the same as the standard suggestion's).
FORM_FEATURE: Final = "extract"


class FormDraftRefused(RefusedError):
    """A form draft cannot be saved as it is (the Study's form changed meanwhile)."""

    default_code = "form_changed"


def study_form(conn: Connection, owner: str, study: str) -> tuple[str, AskedForm | None]:
    """The Study's id and the form its suggestions fill (``None``: the default six fields);
    the owner must be able to write evidence in the Study."""
    row, _ = repo.study_with_role(conn, study, account=owner, need="write")
    form = get_study_form(conn, row.id)
    if form is None or form.template == "default":
        return row.id, None
    return row.id, ask_form(form)


def form_call(asked: AskedForm, user: str) -> ModelCall:
    """The model call of a form suggestion (bounded by the form's asked fields)."""
    return ModelCall(
        feature=FORM_FEATURE,
        system=FORM_EXTRACTION_SYSTEM,
        user=user,
        schema=form_extraction_schema(asked),
        schema_name="form_extraction",
        max_tokens=form_max_tokens(asked),
        max_answer_chars=form_answer_chars(asked),
    )


def form_draft_data(
    study_id: str, asked: AskedForm, draft: FormDraft, bounded: BoundedSource
) -> dict[str, Any]:
    """What a form draft stores besides the standard draft's keys (``fields`` holds the
    finding only: its quote is the record's passage)."""
    quoted = {draft.finding.block} | {s.block for s in draft.fields.values()}
    return {
        "study_id": study_id,
        "form": asked.to_dict(),
        "fields": {FINDING_KEY: draft.finding.to_dict()},
        "form_fields": {k: v.to_dict() for k, v in draft.fields.items()},
        "warnings": list(draft.warnings),
        "dropped": list(draft.dropped),
        "blocks": [b.to_dict() for b in bounded.blocks if b.id in quoted],
        "disclosure": bounded.disclosure() + asked.disclosure(),
    }


def _suggested(data: dict[str, Any], form: Form) -> dict[str, object]:
    """The suggestions by form key (the finding fills a text field keyed ``finding``)."""
    out: dict[str, object] = {k: v["value"] for k, v in data["form_fields"].items()}
    finding = form.field(FINDING_KEY)
    if finding is not None and finding.type == "text":
        out[FINDING_KEY] = data["fields"][FINDING_KEY]["value"]
    return out


def fulltext_context(data: dict[str, Any], block: dict[str, str]) -> FullTextContext:
    """The full-text context of a draft's quoted block (its article, licence, retrieval)."""
    meta = data.get("fulltext") or {}
    pmcid = str(meta.get("pmcid") or "")
    return FullTextContext(
        pmcid=pmcid,
        url=europe_pmc_url(pmcid),
        block_id=block["id"],
        section=block.get("section") or None,
        text=block["text"],
        licence=meta.get("licence"),
        licence_url=meta.get("licence_url"),
        retrieved_at=meta.get("retrieved_at"),
    )


def save_form_draft(
    ws: Workspace,
    draft_id: str,
    *,
    reviewed: bool,
    values: Mapping[str, object],
    now: str,
) -> tuple[str, dict[str, Any], dict[str, Any], str]:
    """Record the reviewed form draft as evidence in its Study: each form field's value is
    the suggestion unless ``values`` gives another ('' or None clears it); the values are
    checked against the Study's form (its revision must be the one suggested for). One
    transaction with the provenance; returns (evidence id, evidence, provenance, Study)."""
    if not reviewed:
        raise RefusedError(
            "review the suggestions first: confirm that you checked every value against "
            "its quote", code="review_required"
        )  # fmt: skip
    with ws.store.write() as conn:
        row = assist_get_draft(conn, draft_id, owner=ws.owner)
        data = row.data
        if not isinstance(data, dict) or "form_fields" not in data:
            raise InputError(
                "this draft suggests the six standard fields: save it with extract-save",
                code="not_a_form_draft",
            )
        if row.saved_as is not None:
            raise RefusedError(
                f"this draft was already saved as evidence {row.saved_as}", code="draft_saved"
            )
        study_id = str(data["study_id"])
        access.require_paper(conn, ws.owner, data["paper_id"], "write")
        access.require_study(conn, ws.owner, study_id, "write")
        form = get_study_form(conn, study_id)
        suggested_rev = data["form"]["revision"]
        if form is None or form.revision != suggested_rev:
            now_rev = form.revision if form is not None else 0
            raise FormDraftRefused(
                f"the Study's form changed since these suggestions (revision {suggested_rev} "
                f"→ {now_rev}); ask for suggestions again"
            )
        raw = _suggested(data, form)
        for key, value in values.items():
            raw[key] = value if not (isinstance(value, str) and not value.strip()) else None
        anchor = data["fields"][FINDING_KEY]
        blocks = {b["id"]: b for b in data["blocks"]}
        fulltext = data["source"] == "fulltext"
        ctx = fulltext_context(data, blocks[anchor["block"]]) if fulltext else None
        view = ws.record_evidence(
            conn, data["paper_id"], raw, passage=anchor["quote"], source=data["source"],
            context=ctx, study=study_id,
        )  # fmt: skip
        final = {k: value_text(v) or None for k, v in evidence_values(view.evidence).items()}
        record = _form_provenance(draft_id, data, final, form, now)
        assist_insert_provenance(conn, view.id, draft_id=draft_id, data=record, created_at=now)
        if not assist_mark_draft_saved(conn, draft_id, view.id):
            raise RefusedError("this draft was saved meanwhile", code="draft_saved")
    return view.id, view.evidence.model_dump(mode="json"), record, study_id


def _form_provenance(
    draft_id: str, data: dict[str, Any], final: dict[str, str | None], form: Form, now: str
) -> dict[str, Any]:
    """The provenance document (as the standard draft's) with one entry per suggested
    form field (its
    suggestion and quote, the value recorded, whether the reviewer changed it); the
    finding's entry is the passage's anchor (its final value: the form's finding field,
    when the form has one)."""
    fields: dict[str, Any] = {}
    anchor = data["fields"][FINDING_KEY]
    finding_final = final.get(FINDING_KEY) if form.field(FINDING_KEY) is not None else None
    fields[FINDING_KEY] = {
        "suggestion": anchor["value"],
        "quote": anchor["quote"],
        "block": anchor["block"],
        "final": finding_final,
        "edited": form.field(FINDING_KEY) is not None and finding_final != anchor["value"],
    }
    for key, s in data["form_fields"].items():
        fields[key] = {
            "suggestion": s["text"],
            "quote": s["quote"],
            "block": s["block"],
            "final": final.get(key),
            "edited": final.get(key) != s["text"],
        }
    quoted = {f["block"] for f in fields.values()}
    blocks = [{**b, "sha256": text_digest(b["text"])} for b in data["blocks"] if b["id"] in quoted]
    return provenance_head(draft_id, data, FORM_FEATURE, now) | {
        "fields": fields,
        "blocks": blocks,
        "study_id": data["study_id"],
        "form": {"name": data["form"]["name"], "revision": data["form"]["revision"]},
    }


def provenance_head(
    draft_id: str, data: Mapping[str, Any], feature: str, now: str
) -> dict[str, Any]:
    """What every reviewed draft's provenance records first, whatever was suggested: the
    call, the source read, its disclosures and warnings, when it was reviewed."""
    return {
        "version": 1,
        "feature": feature,
        "draft_id": draft_id,
        "call": data["call"],
        "source": data["source"],
        "section": data.get("section"),
        "truncated": data.get("truncated", False),
        "disclosure": data.get("disclosure", []),
        "warnings": data.get("warnings", []),
        "reviewed_at": now,
    }
