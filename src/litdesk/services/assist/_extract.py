"""Evidence extraction with a model (issue 16, feature 1).

1. :meth:`EvidenceAssistant.preview` — litdesk fetches the text itself (the saved
   abstract, or a full-text section through ``services/fulltext``), bounds it (whole
   paragraphs, ≤ 48,000 characters, paragraphs over 20,000 skipped, disclosed) and shows
   what would be sent, where, and the consent token bound to exactly that.
2. :meth:`EvidenceAssistant.suggest` — with that token: one guarded model call; the
   answer is checked strictly and every field's quote verified in the block it names;
   the result is a stored *draft* (nothing is evidence yet).
3. :meth:`EvidenceAssistant.save` — after the person's review (``reviewed=True``, values
   possibly edited): the evidence record and its assistance provenance, in one
   transaction. :meth:`EvidenceAssistant.provenance` re-checks every stored quote on read.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, IntegrityError, NotFoundError, RefusedError
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import (
    assist_get_draft,
    assist_get_provenance,
    assist_insert_draft,
    assist_insert_provenance,
    assist_mark_draft_saved,
    repo,
)
from litdesk.core.assist import (
    EXTRACTION_MAX_ANSWER_CHARS,
    EXTRACTION_MAX_TOKENS,
    EXTRACTION_SYSTEM,
    FIELD_NAMES,
    AskedForm,
    BoundedSource,
    ConsentNotice,
    SourceBlock,
    bound_source,
    extraction_message,
    extraction_schema,
    form_extraction_message,
    parse_extraction,
    parse_form_extraction,
    quote_in,
)
from litdesk.core.evidence import (
    EVIDENCE_FIELDS,
    make_evidence,
    paper_pmcid,
    text_digest,
)
from litdesk.core.records import Paper
from litdesk.core.words import plural
from litdesk.services.workspace import Workspace

from ._call import Assistant, ModelCall
from ._form_extract import (
    form_call,
    form_draft_data,
    fulltext_context,
    provenance_head,
    save_form_draft,
    study_form,
)

if TYPE_CHECKING:
    from litdesk.services.providers import Providers

__all__ = [
    "DRAFT_VERSION",
    "AssistedEvidence",
    "EvidenceAssistant",
    "ExtractionPreview",
    "ExtractionSource",
    "ProvenanceView",
    "SuggestionDraft",
]

ExtractionSource = Literal["abstract", "fulltext"]
DRAFT_VERSION: Final = 1
FEATURE: Final = "extract"
_LABELS: Final = dict(EVIDENCE_FIELDS)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _new_id(prefix: str) -> str:
    return f"{prefix}-{time.time_ns():016x}{secrets.token_hex(4)}"


@dataclass(frozen=True, slots=True)
class ExtractionPreview:
    """What would be sent (bounded, disclosed), to which host and model, and its token."""

    paper: Paper
    source: ExtractionSource
    section: str | None
    bounded: BoundedSource
    notice: ConsentNotice
    sections: tuple[str, ...] = ()
    fulltext: dict[str, str | None] | None = None
    #: the Study the suggestion is made in, and its own form's fields asked (``None``: the
    #: six standard fields)
    study_id: str | None = None
    form: AskedForm | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "paper_id": self.paper.id,
            "title": self.paper.title,
            "source": self.source,
            "section": self.section,
            "sections": list(self.sections),
            "bounded": self.bounded.to_dict(),
            "consent": self.notice.to_dict(),
            "study_id": self.study_id,
            "form": self.form.to_dict() if self.form is not None else None,
        }


@dataclass(frozen=True, slots=True)
class SuggestionDraft:
    """A stored draft: the verified suggestions waiting for review."""

    id: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        d = self.data
        form = d.get("form")
        return {
            "draft_id": self.id,
            "paper_id": d["paper_id"],
            "source": d["source"],
            "section": d["section"],
            "fields": d["fields"],
            "labels": _LABELS if form is None else {"finding": _LABELS["finding"]},
            "study_id": d.get("study_id"),
            "form": form,
            "form_fields": d.get("form_fields"),
            "warnings": d["warnings"],
            "dropped": d["dropped"],
            "disclosure": d["disclosure"],
            "truncated": d["truncated"],
            "call": d["call"],
            "review": "Review every field against its quote, edit as needed, then save; "
            "nothing is evidence until you do.",
        }


@dataclass(frozen=True, slots=True)
class ProvenanceView:
    """How an evidence record was assisted, each stored quote re-checked now."""

    evidence_id: str
    data: dict[str, Any]
    checks: dict[str, str]

    @property
    def ok(self) -> bool:
        return all(v == "ok" for v in self.checks.values())

    def to_dict(self) -> dict[str, Any]:
        d = self.data
        return {
            "evidence_id": self.evidence_id,
            "draft_id": d.get("draft_id"),
            "call": d.get("call"),
            "source": d.get("source"),
            "section": d.get("section"),
            "reviewed_at": d.get("reviewed_at"),
            "fields": d.get("fields"),
            "checks": dict(self.checks),
            "ok": self.ok,
        }


@dataclass(frozen=True, slots=True)
class AssistedEvidence:
    """The saved evidence record and its provenance."""

    evidence_id: str
    evidence: dict[str, Any]
    provenance: ProvenanceView
    study_id: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "evidence_id": self.evidence_id,
            "evidence": self.evidence,
            "study_id": self.study_id,
            "provenance": self.provenance.to_dict(),
        }


def _section_blocks(
    blocks: tuple[SourceBlock, ...], section: str | None
) -> tuple[SourceBlock, ...]:
    if section is None or not section.strip():
        return blocks
    want = " ".join(section.split()).casefold()
    out = tuple(
        b
        for b in blocks
        if b.section.casefold() == want
        or b.section.casefold().startswith(want + " ›")
        or b.section.casefold().split(" › ")[-1] == want
    )
    if not out:
        tops = sorted({b.section.split(" › ")[0] for b in blocks})
        raise InputError(
            f"no section {section[:80]!r} in this full text; sections: "
            + ", ".join(t[:60] for t in tops[:30]),
            code="no_section",
        )
    return out


class EvidenceAssistant:
    """The extraction use cases for one owner over the app's providers."""

    def __init__(
        self,
        providers: Providers,
        *,
        owner: str = "local",
        assistant: Assistant | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``clock``: what the allowance of the assistant made here reads."""
        self.providers = providers
        self.owner = owner
        self._own = assistant is None
        self.assistant = assistant or Assistant(providers.store, providers.settings, clock=clock)

    def close(self) -> None:
        if self._own:
            self.assistant.close()

    # -- the text litdesk sends ---------------------------------------------------------

    def _paper(self, paper_ref: str, need: access.Need = "read") -> Paper:
        """The saved paper as the owner may see it; ``need="write"`` for suggestions (they
        are drafts of evidence to write: a Study's viewer reads, an editor writes)."""
        try:
            paper = Workspace(self.providers.store, owner=self.owner).paper(paper_ref).paper
        except NotFoundError:
            raise NotFoundError(
                f"paper {paper_ref[:120]!r} is not saved: save it first (evidence belongs "
                "to saved papers)",
                code="paper_not_found",
            ) from None
        if need != "read":
            with self.providers.store.read() as conn:
                access.require_paper(conn, self.owner, paper.id, need)
        return paper

    async def preview(
        self,
        paper_ref: str,
        *,
        source: ExtractionSource = "abstract",
        section: str | None = None,
        study: str | None = None,
    ) -> ExtractionPreview:
        """The bounded text, the host and model, and the consent token (no model call).
        In a ``study`` with its own form, the form's fields are asked besides the finding."""
        if source not in ("abstract", "fulltext"):
            raise InputError("the source is 'abstract' or 'fulltext'", code="bad_source")
        paper = self._paper(paper_ref, "write")
        study_id: str | None = None
        asked: AskedForm | None = None
        if study is not None:
            with self.providers.store.read() as conn:
                study_id, asked = study_form(conn, self.owner, study)
        meta: dict[str, str | None] | None = None
        sections: tuple[str, ...] = ()
        if source == "abstract":
            if section:
                raise InputError("--section applies to the full text only", code="bad_section")
            blocks: tuple[SourceBlock, ...] = (
                SourceBlock("abstract", "Abstract", paper.abstract or ""),
            )
        else:
            # the PMCID when the paper has one (no lookup); else the id is resolved
            result = await self.providers.fulltext(paper_pmcid(paper) or paper.id, owner=self.owner)
            ft = result.fulltext
            if not ft.readable or not ft.pmcid:
                raise RefusedError(
                    "the full text cannot be used: " + (ft.reason or "not readable"),
                    code="fulltext_unreadable",
                )
            mine = paper_pmcid(paper)
            if mine is None or mine != ft.pmcid:
                raise RefusedError(
                    f"the full text ({ft.pmcid}) cannot be attributed to {paper.id}",
                    code="identity_mismatch",
                )
            all_blocks = tuple(SourceBlock(b.id, b.section, b.text) for b in ft.blocks)
            sections = tuple(dict.fromkeys(b.section.split(" › ")[0] for b in all_blocks))
            blocks = _section_blocks(all_blocks, section)
            meta = {
                "pmcid": ft.pmcid,
                "licence": ft.licence,
                "licence_url": ft.licence_url,
                "retrieved_at": result.retrieved_at,
            }
        bounded = bound_source(blocks)
        coverage = "abstract" if source == "abstract" else f"full text, {section or 'all sections'}"
        if bounded.truncated:
            coverage += " (partial: " + "; ".join(bounded.disclosure()) + ")"
        if asked is not None:
            message = form_extraction_message(paper.title or "", bounded, asked, coverage=coverage)
        else:
            message = extraction_message(paper.title or "", bounded, coverage=coverage)
        notice = self.assistant.notice(message)
        return ExtractionPreview(
            paper, source, section, bounded, notice, sections, meta, study_id, asked
        )

    # -- the model call -----------------------------------------------------------------

    async def suggest(
        self,
        paper_ref: str,
        *,
        consent: str | None,
        source: ExtractionSource = "abstract",
        section: str | None = None,
        key: str | None = None,
        draft_id: str | None = None,
        study: str | None = None,
    ) -> SuggestionDraft:
        """One guarded call with the consent token of the current preview; a verified
        draft is stored for review (nothing else is saved). ``key``: the allowance key of
        the call (a job's id); ``draft_id``: the draft's id (a job's own); ``study``: the
        Study whose own form the suggestion fills (its fields checked against the form)."""
        prev = await self.preview(paper_ref, source=source, section=section, study=study)
        if prev.form is not None and prev.study_id is not None:
            return await self._suggest_form(prev, consent=consent, key=key, draft_id=draft_id)
        call = ModelCall(
            feature=FEATURE,
            system=EXTRACTION_SYSTEM,
            user=prev.notice.text,
            schema=extraction_schema(),
            schema_name="evidence_extraction",
            max_tokens=EXTRACTION_MAX_TOKENS,
            max_answer_chars=EXTRACTION_MAX_ANSWER_CHARS,
        )
        answer = await self.assistant.call(call, owner=self.owner, consent=consent, key=key)
        draft = parse_extraction(answer.text, prev.bounded)
        quoted = {s.block for s in draft.fields.values()}
        data: dict[str, Any] = {
            "study_id": prev.study_id,
            "version": DRAFT_VERSION,
            "paper_id": prev.paper.id,
            "source": source,
            "section": section,
            "fields": {k: v.to_dict() for k, v in draft.fields.items()},
            "warnings": list(draft.warnings),
            "dropped": list(draft.dropped),
            "blocks": [b.to_dict() for b in prev.bounded.blocks if b.id in quoted],
            "characters": prev.bounded.characters,
            "truncated": prev.bounded.truncated,
            "disclosure": prev.bounded.disclosure(),
            "fulltext": prev.fulltext,
            "consent": prev.notice.token,
            "call": answer.record.to_dict(),
        }
        return self._store_draft(prev, data, draft_id)

    async def _suggest_form(
        self, prev: ExtractionPreview, *, consent: str | None, key: str | None,
        draft_id: str | None,
    ) -> SuggestionDraft:  # fmt: skip
        assert prev.form is not None and prev.study_id is not None
        call = form_call(prev.form, prev.notice.text)
        answer = await self.assistant.call(call, owner=self.owner, consent=consent, key=key)
        draft = parse_form_extraction(answer.text, prev.bounded, prev.form)
        data: dict[str, Any] = {
            "version": DRAFT_VERSION,
            "paper_id": prev.paper.id,
            "source": prev.source,
            "section": prev.section,
            "characters": prev.bounded.characters,
            "truncated": prev.bounded.truncated,
            "fulltext": prev.fulltext,
            "consent": prev.notice.token,
            "call": answer.record.to_dict(),
        } | form_draft_data(prev.study_id, prev.form, draft, prev.bounded)
        return self._store_draft(prev, data, draft_id)

    def _store_draft(
        self, prev: ExtractionPreview, data: dict[str, Any], draft_id: str | None
    ) -> SuggestionDraft:
        draft_id = draft_id or _new_id("ad")
        with self.providers.store.write() as conn:
            assist_insert_draft(
                conn,
                draft_id,
                owner=self.owner,
                feature=FEATURE,
                paper_id=prev.paper.id,
                data=data,
                created_at=_now(),
            )
        return SuggestionDraft(draft_id, data)

    def draft(self, draft_id: str) -> SuggestionDraft:
        with self.providers.store.read() as conn:
            row = assist_get_draft(conn, draft_id, owner=self.owner)
        return SuggestionDraft(row.id, _draft_data(row.data))

    # -- review and save ----------------------------------------------------------------

    def save(
        self,
        draft_id: str,
        *,
        reviewed: bool,
        values: Mapping[str, str | None] | None = None,
        study: str | None = None,
    ) -> AssistedEvidence:
        """Save a reviewed draft as evidence (values as the person edited them; a blank
        value leaves the field out). The passage is the finding's verified quote."""
        if not reviewed:
            raise RefusedError(
                "review the draft first: confirm that you checked every field against its "
                "quote", code="review_required"
            )  # fmt: skip
        unknown = set(values or {}) - set(FIELD_NAMES)
        if unknown:
            raise InputError(
                f"{plural(len(unknown), 'unknown evidence field')}: {', '.join(sorted(unknown))}"
            )
        now = _now()
        with self.providers.store.write() as conn:
            row = assist_get_draft(conn, draft_id, owner=self.owner)
            data = _draft_data(row.data)
            if row.saved_as is not None:
                raise RefusedError(
                    f"this draft was already saved as evidence {row.saved_as}", code="draft_saved"
                )
            if data.get("form") is not None:
                raise InputError(
                    "this draft fills the Study's own form: accept it with its form's values "
                    "(extract-save --form, or the reader's form)", code="form_draft",
                )  # fmt: skip
            access.require_paper(conn, self.owner, data["paper_id"], "write")
            paper = repo.get_paper(conn, data["paper_id"], viewer=self.owner).paper
            suggested: dict[str, dict[str, str]] = data["fields"]
            final: dict[str, str | None] = {
                n: suggested.get(n, {}).get("value") for n in FIELD_NAMES
            }
            for name, value in (values or {}).items():
                final[name] = value.strip() if value and value.strip() else None
            finding = final.get("finding")
            if not finding:
                raise InputError("the finding is required", code="finding_required")
            quote = suggested["finding"]["quote"]
            blocks = {b["id"]: b for b in data["blocks"]}
            context = None
            if data["source"] == "fulltext":
                context = fulltext_context(data, blocks[suggested["finding"]["block"]])
            ev = make_evidence(
                paper,
                finding=finding,
                passage=quote,
                source=data["source"],
                context=context,
                created_at=now,
                question=final.get("question"),
                population=final.get("population"),
                method=final.get("method"),
                intervention=final.get("intervention"),
                limitations=final.get("limitations"),
            )
            study_id = None
            if study:
                study_row, _ = repo.study_with_role(conn, study, account=self.owner, need="write")
                study_id = study_row.id
            ev_id = _new_id("ev")
            repo.insert_document(
                conn,
                "evidence",
                ev_id,
                ev.model_dump(mode="json"),
                now,
                paper_id=paper.id,
                study_id=study_id,
                owner=self.owner,
            )
            if study_id:
                holder = repo.record_owners(conn, [paper.id], viewer=self.owner)[paper.id]
                repo.add_study_paper(conn, study_id, paper.id, now, paper_owner=holder)
                access.add_history(conn, study_id, self.owner, "evidence_added", ev_id, now)
            provenance = _provenance(draft_id, data, final, blocks, now)
            assist_insert_provenance(
                conn, ev_id, draft_id=draft_id, data=provenance, created_at=now
            )
            if not assist_mark_draft_saved(conn, draft_id, ev_id):
                raise RefusedError("this draft was saved meanwhile", code="draft_saved")
        view = ProvenanceView(ev_id, provenance, _recheck(provenance, paper))
        return AssistedEvidence(ev_id, ev.model_dump(mode="json"), view, study_id)

    def save_form(
        self, draft_id: str, *, reviewed: bool, values: Mapping[str, object] | None = None
    ) -> AssistedEvidence:
        """Record a reviewed form draft in its Study: the suggested values, as the person
        edited them (``values`` by form key; blank clears one), checked again against the
        Study's form; the passage is the finding's verified quote."""
        ws = Workspace(self.providers.store, owner=self.owner)
        ev_id, evidence, record, study_id = save_form_draft(
            ws, draft_id, reviewed=reviewed, values=values or {}, now=_now()
        )
        with self.providers.store.read() as conn:
            paper = repo.get_paper(conn, evidence["paper_id"], viewer=self.owner).paper
        view = ProvenanceView(ev_id, record, _recheck(record, paper))
        return AssistedEvidence(ev_id, evidence, view, study_id)

    def provenance(self, evidence_id: str) -> ProvenanceView:
        """The assistance provenance of an evidence record, every quote re-checked."""
        with self.providers.store.read() as conn:
            data = assist_get_provenance(conn, evidence_id)
            if data is None:
                raise NotFoundError(
                    f"evidence {evidence_id[:80]!r} has no assistance provenance",
                    code="no_provenance",
                )
            row = repo.get_document(conn, "evidence", evidence_id)
            access.require_document(conn, self.owner, row.owner, row.study_id, "read")
            paper = repo.get_paper(
                conn, row.paper_id or "", viewer=self.owner, study_id=row.study_id
            ).paper
        if not isinstance(data, dict) or data.get("version") != 1:
            raise IntegrityError("stored assistance provenance has an unknown shape")
        return ProvenanceView(evidence_id, data, _recheck(data, paper))

    def paper_provenance(self, paper_ref: str) -> list[ProvenanceView]:
        """Provenance of every assisted evidence record of a paper."""
        paper = self._paper(paper_ref)
        with self.providers.store.read() as conn:
            rows = repo.list_documents(
                conn, "evidence", paper_ids=[paper.id], visible_to=self.owner
            )
            ids = [r.id for r in rows]
        out: list[ProvenanceView] = []
        for ev_id in ids:
            try:
                out.append(self.provenance(ev_id))
            except NotFoundError:
                continue  # recorded by hand: no assistance to show
        return out


def _draft_data(data: object) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("version") != DRAFT_VERSION:
        raise IntegrityError("a stored assistance draft has an unknown shape")
    for key in ("paper_id", "source", "fields", "blocks", "call"):
        if key not in data:
            raise IntegrityError(f"a stored assistance draft lacks {key}")
    if "finding" not in data["fields"]:
        raise IntegrityError("a stored assistance draft has no finding")
    return data


def _provenance(
    draft_id: str,
    data: dict[str, Any],
    final: dict[str, str | None],
    blocks: dict[str, dict[str, str]],
    now: str,
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, s in data["fields"].items():
        fields[name] = {
            "suggestion": s["value"],
            "quote": s["quote"],
            "block": s["block"],
            "final": final.get(name),
            "edited": final.get(name) != s["value"],
        }
    return provenance_head(draft_id, data, FEATURE, now) | {
        "fields": fields,
        "blocks": [
            {**b, "sha256": text_digest(b["text"])}
            for b in blocks.values()
            if any(f["block"] == b["id"] for f in fields.values())
        ],
    }


def _recheck(data: dict[str, Any], paper: Paper) -> dict[str, str]:
    """Each stored quote against its stored block (unaltered) and, for the abstract, the
    paper's abstract as stored now."""
    blocks = {b.get("id"): b for b in data.get("blocks", []) if isinstance(b, dict)}
    out: dict[str, str] = {}
    for name, f in (data.get("fields") or {}).items():
        block = blocks.get(f.get("block"))
        quote = str(f.get("quote") or "")
        if block is None:
            out[name] = "the quoted block is missing from the record"
        elif text_digest(str(block.get("text", ""))) != block.get("sha256"):
            out[name] = "the stored block was altered"
        elif not quote_in(quote, str(block["text"])):
            out[name] = "the quote does not occur in its block"
        elif data.get("source") == "abstract" and not quote_in(quote, paper.abstract or ""):
            out[name] = "the quote no longer occurs in the paper's abstract"
        else:
            out[name] = "ok"
    return out
