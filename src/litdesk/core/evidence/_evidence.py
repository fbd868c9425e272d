"""Quotes, anchors, annotations and evidence records: validation rules (pure).

Every stored shape here is version 1 and validated on construction and on read.
Passages are checked against their source: the paper's abstract (after whitespace
normalisation), a stored full-text paragraph whose PMCID must be the paper's, a page
of the paper's PDF (the strict PDF matcher of :mod:`._pdf_match`; the record keeps
the PDF's SHA-256 and the page), or an external source with a required location
(labelled for verification).
Anchors must reproduce their quoted text exactly from the stored snapshot.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from litdesk._errors import InputError, IntegrityError, RefusedError
from litdesk.core.forms import FieldValue, value_text
from litdesk.core.records import Paper, normalize_pmcid, safe_https_url
from litdesk.core.words import plural

from ._pdf_match import find_pdf_passage, nearest_pdf_text, pages_holding

__all__ = [
    "ANNOTATION_VERSION",
    "EVIDENCE_FIELDS",
    "EVIDENCE_VERSION",
    "MAX_ANCHOR_CHARS",
    "MAX_COMMENT_CHARS",
    "MAX_FIELD_CHARS",
    "MAX_LOCATION_CHARS",
    "MAX_PASSAGE_CHARS",
    "Anchor",
    "Annotation",
    "Evidence",
    "EvidenceInvalid",
    "EvidenceRefused",
    "FullTextContext",
    "PdfPage",
    "StoredShapeInvalid",
    "check_anchor",
    "check_context_identity",
    "check_evidence",
    "check_pdf_passage",
    "europe_pmc_url",
    "evidence_headline",
    "evidence_source_label",
    "evidence_values",
    "find_occurrences",
    "make_anchor",
    "make_annotation",
    "make_evidence",
    "normalize_ws",
    "paper_pmcid",
    "passage_in",
    "read_annotation",
    "read_evidence",
    "revise_evidence",
    "revise_values",
    "text_digest",
]

ANNOTATION_VERSION: Final = 1
EVIDENCE_VERSION: Final = 1
MAX_ANCHOR_CHARS: Final = 8_000
MAX_PASSAGE_CHARS: Final = 8_000
MAX_FIELD_CHARS: Final = 4_000
MAX_COMMENT_CHARS: Final = 4_000
MAX_LOCATION_CHARS: Final = 500
MAX_PARAGRAPH_CHARS: Final = 240_000
MAX_OCCURRENCES: Final = 100

#: The six evidence fields (name, label); ``finding`` is required.
EVIDENCE_FIELDS: Final = (
    ("question", "Research question"),
    ("population", "Species, cell line or population"),
    ("method", "Method or assay"),
    ("intervention", "Intervention, concentration and exposure"),
    ("finding", "Finding"),
    ("limitations", "Limitations"),
)

_PMC_URL = re.compile(r"^https://europepmc\.org/articles/(PMC[1-9][0-9]{0,9})$")


class EvidenceInvalid(InputError):
    """An annotation or evidence record breaks a field rule (length, required field)."""

    default_code = "evidence_invalid"


class EvidenceRefused(RefusedError):
    """A passage or anchor does not match its source, or its source is not the paper's."""

    default_code = "evidence_refused"


class StoredShapeInvalid(IntegrityError):
    """A stored annotation or evidence record failed validation on read."""

    default_code = "stored_shape_invalid"


def normalize_ws(text: str) -> str:
    """Collapse every run of (Unicode) whitespace to one space and strip the ends."""
    return " ".join(text.split())


def text_digest(text: str) -> str:
    """``sha256:<hex>`` of ``text`` (UTF-8): the identity of a source snapshot."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def passage_in(passage: str, source: str) -> bool:
    """True when ``passage`` occurs in ``source`` after whitespace normalisation and in
    the same Unicode form (NFC: ``ç`` typed or pasted decomposed, as macOS does, is the
    source's ``ç``; canonically equivalent text only, nothing else is ignored)."""
    needle = normalize_ws(unicodedata.normalize("NFC", passage))
    return bool(needle) and needle in normalize_ws(unicodedata.normalize("NFC", source))


def find_occurrences(text: str, quote: str, limit: int = MAX_OCCURRENCES) -> list[int]:
    """Start offsets of the exact occurrences of ``quote`` in ``text`` (at most ``limit``)."""
    out: list[int] = []
    if not quote:
        return out
    start = text.find(quote)
    while start != -1 and len(out) < limit:
        out.append(start)
        start = text.find(quote, start + 1)
    return out


def europe_pmc_url(pmcid: str) -> str:
    """The only accepted source URL of a full-text paragraph."""
    return f"https://europepmc.org/articles/{pmcid}"


def paper_pmcid(paper: Paper) -> str | None:
    """The paper's PMCID: its ``pmcid`` field, or the PMC- primary id when it has none."""
    if paper.pmcid:
        return paper.pmcid
    if paper.id.startswith("PMC-"):
        return normalize_pmcid(paper.id[4:])
    return None


def _when(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"not an ISO 8601 time: {value[:40]!r}") from exc
    return value


_Frozen = ConfigDict(frozen=True, extra="forbid")


class FullTextContext(BaseModel):
    """The stored snapshot of one licensed full-text paragraph (Europe PMC)."""

    model_config = _Frozen

    pmcid: StrictStr
    url: StrictStr
    block_id: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    section: Annotated[StrictStr, Field(max_length=500)] | None = None
    text: Annotated[StrictStr, Field(min_length=1, max_length=MAX_PARAGRAPH_CHARS)]
    licence: Annotated[StrictStr, Field(max_length=2_000)] | None = None
    licence_url: StrictStr | None = None
    retrieved_at: StrictStr | None = None

    @field_validator("pmcid")
    @classmethod
    def _pmcid(cls, v: str) -> str:
        norm = normalize_pmcid(v)
        if norm is None:
            raise ValueError(f"malformed PMCID: {v[:40]!r}")
        return norm

    @field_validator("licence_url")
    @classmethod
    def _licence_url(cls, v: str | None) -> str | None:
        return safe_https_url(v)

    @field_validator("retrieved_at")
    @classmethod
    def _retrieved(cls, v: str | None) -> str | None:
        return _when(v)

    @model_validator(mode="after")
    def _url_names_pmcid(self) -> FullTextContext:
        m = _PMC_URL.match(self.url)
        if m is None or m.group(1) != self.pmcid:
            raise ValueError(
                f"full-text source URL must be {europe_pmc_url(self.pmcid)}, not {self.url[:100]!r}"
            )
        return self


class PdfPage(BaseModel):
    """Where a passage checked on a PDF is: the PDF's identity (the SHA-256 of the bytes
    whose text was read), its file name then, and the 1-based page."""

    model_config = _Frozen

    sha256: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]
    file: Annotated[StrictStr, Field(min_length=1, max_length=260)]
    page: Annotated[StrictInt, Field(ge=1, le=100_000)]

    def label(self) -> str:
        """``From the PDF, page N (checked)``: how exports and pages name the source."""
        return f"From the PDF, page {self.page} (checked)"


class Anchor(BaseModel):
    """Where a highlight sits: exact offsets into a stored snapshot of its source."""

    model_config = _Frozen

    source: Literal["abstract", "fulltext"]
    text: Annotated[StrictStr, Field(min_length=1, max_length=MAX_ANCHOR_CHARS)]
    start: Annotated[StrictInt, Field(ge=0)]
    end: Annotated[StrictInt, Field(ge=1)]
    section: Annotated[StrictStr, Field(max_length=500)] | None = None
    snapshot_sha256: StrictStr
    context: FullTextContext | None = None
    retrieved_at: StrictStr | None = None

    @field_validator("retrieved_at")
    @classmethod
    def _retrieved(cls, v: str | None) -> str | None:
        return _when(v)

    @model_validator(mode="after")
    def _shape(self) -> Anchor:
        if self.end - self.start != len(self.text):
            raise ValueError("anchor offsets do not span the quoted text")
        if self.source == "fulltext":
            if self.context is None:
                raise ValueError("a full-text anchor needs its paragraph context")
            if self.snapshot_sha256 != text_digest(self.context.text):
                raise ValueError("anchor snapshot digest does not match its paragraph")
            if self.context.text[self.start : self.end] != self.text:
                raise ValueError("anchor offsets do not reproduce the quoted text")
        elif self.context is not None:
            raise ValueError("an abstract anchor carries no full-text context")
        return self

    @property
    def block_id(self) -> str | None:
        return self.context.block_id if self.context else None


class Annotation(BaseModel):
    """A highlight (with an optional comment) or a paper-level comment (no anchor)."""

    model_config = _Frozen

    version: Literal[1] = 1
    paper_id: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    comment: Annotated[StrictStr, Field(max_length=MAX_COMMENT_CHARS)] | None = None
    anchor: Anchor | None = None
    created_at: StrictStr

    @field_validator("created_at")
    @classmethod
    def _created(cls, v: str) -> str:
        out = _when(v)
        assert out is not None
        return out

    @model_validator(mode="after")
    def _something(self) -> Annotation:
        if self.anchor is None and not (self.comment and self.comment.strip()):
            raise ValueError("a note needs a comment or a highlighted passage")
        return self

    @property
    def kind(self) -> str:
        return "highlight" if self.anchor is not None else "comment"


_Field = Annotated[StrictStr, Field(max_length=MAX_FIELD_CHARS)]
_Key = Annotated[StrictStr, Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
_Value = StrictBool | StrictInt | StrictFloat | _Field
#: The six fields of a record made with litdesk's default form.
_LEGACY: Final = tuple(name for name, _ in EVIDENCE_FIELDS)


class Evidence(BaseModel):
    """One structured finding with its supporting passage (version 1).

    A record made with litdesk's default form keeps its six fields (``finding``
    required); one made with a Study's own form keeps its ``values`` by field key (at
    most 60) and the form's ``form_revision``, and none of the six. :func:`evidence_values`
    reads either as one mapping. The stored shape of a default-form record is unchanged
    (``values`` and ``form_revision`` are written only when set)."""

    model_config = _Frozen

    version: Literal[1] = 1
    paper_id: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    question: _Field | None = None
    population: _Field | None = None
    method: _Field | None = None
    intervention: _Field | None = None
    finding: Annotated[StrictStr, Field(min_length=1, max_length=MAX_FIELD_CHARS)] | None = None
    limitations: _Field | None = None
    values: Annotated[dict[_Key, _Value], Field(max_length=60)] = Field(default_factory=dict)
    form_revision: Annotated[StrictInt, Field(ge=0)] | None = None
    passage: Annotated[StrictStr, Field(min_length=1, max_length=MAX_PASSAGE_CHARS)]
    source: Literal["abstract", "fulltext", "external", "pdf"]
    location: Annotated[StrictStr, Field(max_length=MAX_LOCATION_CHARS)] | None = None
    context: FullTextContext | None = None
    pdf: PdfPage | None = None
    verification: Literal["checked", "needs_verification"]
    created_at: StrictStr
    updated_at: StrictStr | None = None

    @field_validator("created_at")
    @classmethod
    def _created(cls, v: str) -> str:
        out = _when(v)
        assert out is not None
        return out

    @field_validator("updated_at")
    @classmethod
    def _updated(cls, v: str | None) -> str | None:
        return _when(v)

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        out: dict[str, object] = handler(self)
        if not self.values:
            out.pop("values", None)
        if self.form_revision is None:
            out.pop("form_revision", None)
        if self.pdf is None:  # the stored shape of every other source is unchanged
            out.pop("pdf", None)
        return out

    @model_validator(mode="after")
    def _shape(self) -> Evidence:
        if self.values:
            if any(getattr(self, name) is not None for name in _LEGACY):
                raise ValueError("a record keeps either its form's values or the six fields")
            if any(isinstance(v, float) and not math.isfinite(v) for v in self.values.values()):
                raise ValueError("a number value is finite")
        elif not (self.finding and self.finding.strip()):
            raise ValueError("finding is required")
        if not self.passage.strip():
            raise ValueError("passage is required")
        if self.source == "external":
            if not (self.location and self.location.strip()):
                raise ValueError("an external passage needs a location (page, section, figure)")
            if self.verification != "needs_verification":
                raise ValueError("an external passage is labelled for verification")
        elif self.verification != "checked":
            raise ValueError("abstract and full-text passages are checked")
        if self.source == "fulltext" and self.context is None:
            raise ValueError("a full-text passage needs its paragraph context")
        if self.source != "fulltext" and self.context is not None:
            raise ValueError("only a full-text passage carries a paragraph context")
        if self.source == "pdf" and self.pdf is None:
            raise ValueError("a PDF passage needs its PDF and page")
        if self.source != "pdf" and self.pdf is not None:
            raise ValueError("only a PDF passage carries a PDF and page")
        return self


def _messages(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors(include_input=False)[:5]:
        where = ".".join(str(p) for p in e["loc"])
        parts.append(f"{where}: {e['msg']}" if where else str(e["msg"]))
    return "; ".join(parts)


def check_context_identity(paper: Paper, context: FullTextContext) -> None:
    """Refuse a paragraph whose PMCID is not the paper's (or when the paper has none)."""
    mine = paper_pmcid(paper)
    if mine is None:
        raise EvidenceRefused(
            f"paper {paper.id} has no PMCID, so a full-text paragraph cannot be attributed to it",
            code="identity_unknown",
        )
    if context.pmcid != mine:
        raise EvidenceRefused(
            f"the paragraph comes from {context.pmcid}, not from {mine} ({paper.id})",
            code="identity_mismatch",
        )


def check_anchor(anchor: Anchor, paper: Paper) -> None:
    """Refuse an anchor that does not reproduce its quote from the paper's stored text."""
    if anchor.source == "abstract":
        snapshot = paper.abstract or ""
        if anchor.snapshot_sha256 != text_digest(snapshot):
            raise EvidenceRefused(
                "the abstract has changed since the passage was highlighted", code="stale_anchor"
            )
        if snapshot[anchor.start : anchor.end] != anchor.text:
            raise EvidenceRefused(
                "the offsets do not reproduce the quoted text", code="anchor_mismatch"
            )
        return
    assert anchor.context is not None
    check_context_identity(paper, anchor.context)


def make_anchor(
    paper: Paper,
    *,
    text: str,
    start: int | None = None,
    occurrence: int = 1,
    context: FullTextContext | None = None,
    section: str | None = None,
    retrieved_at: str | None = None,
) -> Anchor:
    """An anchor for ``text`` in the paper's abstract or in ``context`` (a paragraph).

    With ``start`` the offsets must reproduce ``text`` exactly; without it the
    ``occurrence``-th exact occurrence (1-based, at most 100) is used.
    """
    if context is not None:
        check_context_identity(paper, context)
        snapshot = context.text
        source: Literal["abstract", "fulltext"] = "fulltext"
        section = section if section is not None else context.section
        retrieved_at = retrieved_at or context.retrieved_at
    else:
        if not paper.abstract:
            raise EvidenceRefused(
                f"paper {paper.id} has no abstract to highlight", code="no_source"
            )
        snapshot = paper.abstract
        source = "abstract"
        retrieved_at = retrieved_at or paper.retrieved_at
    if not text or len(text) > MAX_ANCHOR_CHARS:
        raise EvidenceInvalid(f"a highlight is 1 to {MAX_ANCHOR_CHARS:,} characters")
    if start is None:
        found = find_occurrences(snapshot, text)
        if not found:
            raise EvidenceRefused(
                "the passage does not occur in the source", code="quote_not_found"
            )
        if not 1 <= occurrence <= len(found):
            raise EvidenceInvalid(
                f"occurrence {occurrence} requested; the passage occurs {plural(len(found), 'time')}"
            )
        start = found[occurrence - 1]
    if start < 0 or snapshot[start : start + len(text)] != text:
        raise EvidenceRefused(
            "the offsets do not reproduce the quoted text", code="anchor_mismatch"
        )
    try:
        return Anchor(
            source=source,
            text=text,
            start=start,
            end=start + len(text),
            section=section,
            snapshot_sha256=text_digest(snapshot),
            context=context,
            retrieved_at=retrieved_at,
        )
    except ValidationError as exc:
        raise EvidenceInvalid("invalid highlight: " + _messages(exc)) from None


def make_annotation(
    paper: Paper, *, comment: str | None, anchor: Anchor | None, created_at: str
) -> Annotation:
    """A validated annotation for ``paper`` (anchor checked against the paper)."""
    if anchor is not None:
        check_anchor(anchor, paper)
    try:
        return Annotation(paper_id=paper.id, comment=comment, anchor=anchor, created_at=created_at)
    except ValidationError as exc:
        raise EvidenceInvalid("invalid note: " + _messages(exc)) from None


def check_pdf_passage(pdf: PdfPage, passage: str, pages: Sequence[str]) -> None:
    """Refuse ``passage`` unless it is on page ``pdf.page`` of ``pages`` (the PDF's raw
    page texts, in order) by the strict PDF matcher. A passage found on other pages is
    refused with those pages named (``other_page``, ``found_on``); one found nowhere with
    the page's text nearest to it when some of it is there (``nearest``)."""
    where = f"page {pdf.page} of {pdf.file}"
    if not 1 <= pdf.page <= len(pages):
        raise EvidenceRefused(
            f"{pdf.file} has {plural(len(pages), 'page')}, so no page {pdf.page}",
            code="no_page",
            page=pdf.page,
            pages=len(pages),
        )
    raw = pages[pdf.page - 1]
    if find_pdf_passage(raw, passage) is not None:
        return
    others = [n for n in pages_holding(pages, passage) if n != pdf.page]
    if others:
        named = ", ".join(str(n) for n in others)
        raise EvidenceRefused(
            f"the passage is not on {where}; it is on page {named}: give that page",
            code="other_page",
            page=pdf.page,
            found_on=others,
        )
    nearest = nearest_pdf_text(raw, passage)
    said = f"; the nearest text there reads: \u201c{nearest}\u201d" if nearest else ""
    raise EvidenceRefused(
        f"the passage does not occur on {where} (nor on another page){said}",
        code="quote_not_found",
        page=pdf.page,
        nearest=nearest,
    )


def check_evidence(
    evidence: Evidence, paper: Paper, *, pdf_pages: Sequence[str] | None = None
) -> None:
    """Refuse evidence whose passage is not in its source or whose source is not the paper's
    (a PDF passage: against ``pdf_pages``, the text of the PDF's pages, when given; a
    stored or recovered one keeps the PDF's SHA-256, which its re-check compares with
    the paper's PDF now)."""
    if evidence.paper_id != paper.id:
        raise EvidenceRefused(
            f"evidence names paper {evidence.paper_id}, not {paper.id}", code="identity_mismatch"
        )
    if evidence.source == "abstract":
        if not passage_in(evidence.passage, paper.abstract or ""):
            raise EvidenceRefused(
                "the passage does not occur in the paper's abstract", code="quote_not_found"
            )
    elif evidence.source == "fulltext":
        assert evidence.context is not None
        check_context_identity(paper, evidence.context)
        if not passage_in(evidence.passage, evidence.context.text):
            raise EvidenceRefused(
                "the passage does not occur in the stored full-text paragraph",
                code="quote_not_found",
            )
    elif evidence.source == "pdf" and pdf_pages is not None:
        assert evidence.pdf is not None
        check_pdf_passage(evidence.pdf, evidence.passage, pdf_pages)


def evidence_values(evidence: Evidence) -> dict[str, FieldValue]:
    """A record's values by field key: its form's values, or its six fields (set ones)."""
    if evidence.values:
        return dict(evidence.values)
    out: dict[str, FieldValue] = {}
    for name in _LEGACY:
        value = getattr(evidence, name)
        if value is not None:
            out[name] = value
    return out


def evidence_source_label(evidence: Evidence) -> str:
    """Where a record's passage comes from, in words (pages, exports, reports)."""
    if evidence.pdf is not None:
        return evidence.pdf.label()
    return {
        "abstract": "From the abstract",
        "fulltext": "From the full text",
        "external": "From another source (to verify)",
    }.get(evidence.source, evidence.source)


def evidence_headline(evidence: Evidence) -> str:
    """One line naming a record: its finding (a form of one's own may have a ``finding``
    field too), else its form's values (``; ``-joined), else its passage."""
    if evidence.finding:
        return evidence.finding
    finding = " ".join(value_text(evidence.values.get("finding")).split())
    if finding:
        return finding
    texts = [value_text(v) for v in evidence.values.values()]
    joined = "; ".join(" ".join(t.split()) for t in texts if t.strip())
    return joined or evidence.passage


def make_evidence(
    paper: Paper,
    *,
    finding: str | None = None,
    passage: str,
    source: str,
    created_at: str,
    location: str | None = None,
    context: FullTextContext | None = None,
    values: Mapping[str, FieldValue] | None = None,
    form_revision: int | None = None,
    pdf: PdfPage | None = None,
    pdf_pages: Sequence[str] | None = None,
    **fields: str | None,
) -> Evidence:
    """Validated evidence for ``paper``: field limits, then the passage against its source.

    Either the six fields (``finding`` required) or ``values`` of a Study's form (already
    validated against that form) with its ``form_revision``. A passage from a PDF
    (``source="pdf"``) names the PDF and page (``pdf``) and is checked against
    ``pdf_pages``, the text of that PDF's pages (:func:`check_pdf_passage`)."""
    evidence = _evidence(
        paper,
        finding=finding,
        passage=passage,
        source=source,
        created_at=created_at,
        location=location,
        context=context,
        values=values,
        form_revision=form_revision,
        pdf=pdf,
        **fields,
    )
    if evidence.source == "pdf" and pdf_pages is None:
        raise EvidenceRefused(
            "a passage from a PDF is checked against the text of its page", code="pdf_unchecked"
        )
    check_evidence(evidence, paper, pdf_pages=pdf_pages)
    return evidence


def _evidence(
    paper: Paper,
    *,
    finding: str | None = None,
    passage: str,
    source: str,
    created_at: str,
    location: str | None = None,
    context: FullTextContext | None = None,
    values: Mapping[str, FieldValue] | None = None,
    form_revision: int | None = None,
    pdf: PdfPage | None = None,
    **fields: str | None,
) -> Evidence:
    """The record's validation without its passage check (see :func:`make_evidence`)."""
    allowed = {name for name, _ in EVIDENCE_FIELDS} - {"finding"}
    unknown = set(fields) - allowed
    if unknown:
        raise EvidenceInvalid(
            f"{plural(len(unknown), 'unknown evidence field')}: {', '.join(sorted(unknown))}"
        )
    if source not in ("abstract", "fulltext", "external", "pdf"):
        raise EvidenceInvalid(f"unknown passage source {source!r}")
    cleaned = {k: (v if v and v.strip() else None) for k, v in fields.items()}
    try:
        evidence = Evidence(
            paper_id=paper.id,
            finding=finding if finding and finding.strip() else (None if values else finding),
            values=dict(values or {}),
            form_revision=form_revision if values else None,
            passage=passage,
            source=source,  # type: ignore[arg-type]
            location=location if location and location.strip() else None,
            context=context,
            pdf=pdf,
            verification="needs_verification" if source == "external" else "checked",
            created_at=created_at,
            **cleaned,  # type: ignore[arg-type]
        )
    except ValidationError as exc:
        raise EvidenceInvalid("invalid evidence: " + _messages(exc)) from None
    return evidence


def _kept_pdf_passage(evidence: Evidence, passage: str | None) -> bool:
    """True for a PDF passage kept as checked (a revision changes its fields only); a
    changed passage is refused: it is checked on its page again by recording it anew."""
    if evidence.source != "pdf":
        return False
    if passage and normalize_ws(passage) != normalize_ws(evidence.passage):
        page = evidence.pdf.page if evidence.pdf else 0
        raise EvidenceRefused(
            f"a passage checked on page {page} of the paper's PDF is not edited here: "
            "record the new passage from the PDF (it is checked on its page)",
            code="pdf_passage_fixed",
        )
    return True


def revise_evidence(
    evidence: Evidence, paper: Paper, *, updated_at: str, **changes: str | None
) -> Evidence:
    """``evidence`` with some fields changed (the six fields, ``passage``, ``location``),
    validated and checked against its source again; source and paragraph stay."""
    allowed = {name for name, _ in EVIDENCE_FIELDS} | {"passage", "location"}
    unknown = set(changes) - allowed
    if unknown:
        raise EvidenceInvalid(f"cannot change: {', '.join(sorted(unknown))}")
    current = evidence.model_dump()
    fields = {name: current[name] for name, _ in EVIDENCE_FIELDS if name != "finding"}
    fields.update({k: v for k, v in changes.items() if k in fields})
    kept = _kept_pdf_passage(evidence, changes.get("passage"))
    revised = (_evidence if kept else make_evidence)(
        paper,
        finding=changes.get("finding") or evidence.finding,
        passage=changes.get("passage") or evidence.passage,
        source=evidence.source,
        location=changes.get("location", evidence.location),
        context=evidence.context,
        pdf=evidence.pdf,
        created_at=evidence.created_at,
        **fields,
    )
    return revised.model_copy(update={"updated_at": _when(updated_at)})


def _read(model: type[BaseModel], data: object, label: str) -> Any:
    if not isinstance(data, dict):
        raise StoredShapeInvalid(f"a stored {label} must be an object")
    if data.get("version") != 1:
        raise StoredShapeInvalid(f"unknown {label} version {data.get('version')!r}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise StoredShapeInvalid(f"invalid stored {label}: " + _messages(exc)) from None


def read_annotation(data: object) -> Annotation:
    """Validate untrusted stored data as an :class:`Annotation`."""
    out: Annotation = _read(Annotation, data, "annotation")
    return out


def read_evidence(data: object) -> Evidence:
    """Validate untrusted stored data as :class:`Evidence`."""
    out: Evidence = _read(Evidence, data, "evidence")
    return out


def revise_values(
    evidence: Evidence,
    paper: Paper,
    *,
    updated_at: str,
    values: Mapping[str, FieldValue],
    form_revision: int | None,
    place: Mapping[str, str | None] | None = None,
) -> Evidence:
    """``evidence`` keeping the new form ``values`` (validated against the Study's form,
    values of fields the form no longer has kept) instead of the six fields, with
    ``place`` changes (``passage``, ``location``); checked against its source again."""
    changes = dict(place or {})
    unknown = set(changes) - {"passage", "location"}
    if unknown:
        raise EvidenceInvalid(f"cannot change: {', '.join(sorted(unknown))}")
    kept = _kept_pdf_passage(evidence, changes.get("passage"))
    revised = (_evidence if kept else make_evidence)(
        paper,
        passage=changes.get("passage") or evidence.passage,
        source=evidence.source,
        location=changes.get("location", evidence.location),
        context=evidence.context,
        pdf=evidence.pdf,
        created_at=evidence.created_at,
        values=values,
        form_revision=form_revision,
    )
    return revised.model_copy(update={"updated_at": _when(updated_at)})
