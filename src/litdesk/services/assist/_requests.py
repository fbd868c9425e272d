"""The assist area's requests, validated once here for the CLI and the web alike (the
web's models only parse types)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from litdesk._errors import InputError
from litdesk.core.assist import FIELD_NAMES
from litdesk.core.forms import MAX_FIELDS, MAX_TEXT_CHARS
from litdesk.core.strategy import ConceptGroup, build_query, check_question
from litdesk.core.summary import FOCUSES, Focus, SummaryInputError

from ._extract import ExtractionSource

__all__ = [
    "BuildStrategy",
    "CheckModel",
    "EvidenceSource",
    "SaveEvidence",
    "SaveFormEvidence",
    "SaveSummaryReport",
    "StrategyRequest",
    "SuggestEvidence",
    "SummaryRequest",
]

_SOURCES: Final = ("abstract", "fulltext")
_ROLES: Final = ("chat", "generation")


class AssistInputError(InputError):
    """An assistance request that does not fit together."""

    default_code = "assist_input"


def _check_source(source: str, section: str | None) -> None:
    if source not in _SOURCES:
        raise AssistInputError("the source is 'abstract' or 'fulltext'", code="bad_source")
    if section is not None and source != "fulltext":
        raise AssistInputError(
            "--section applies to the full text only (--source fulltext)", code="bad_section"
        )


def _check_consent(consent: str | None) -> None:
    if consent is not None and not 0 < len(consent) <= 100:
        raise AssistInputError("the consent token is 1–100 characters", code="bad_consent")


def _check_study(study: str | None) -> None:
    if study is not None and not 0 < len(study.strip()) <= 200:
        raise AssistInputError("a Study is named by 1–200 characters", code="study")


@dataclass(frozen=True, slots=True)
class EvidenceSource:
    """What an evidence suggestion would send: a saved paper's abstract or a full-text
    section (``section`` only with ``source="fulltext"``); read in ``study`` (a Study with
    its own extraction form: the form's fields are asked too)."""

    paper: str
    source: ExtractionSource = "abstract"
    section: str | None = None
    study: str | None = None

    def __post_init__(self) -> None:
        if not self.paper.strip():
            raise AssistInputError("name a saved paper", code="paper")
        _check_source(self.source, self.section)
        _check_study(self.study)


@dataclass(frozen=True, slots=True)
class SuggestEvidence:
    """An evidence suggestion: the source and the consent token of its preview."""

    paper: str
    consent: str | None
    source: ExtractionSource = "abstract"
    section: str | None = None
    study: str | None = None

    def __post_init__(self) -> None:
        EvidenceSource(self.paper, self.source, self.section, self.study)
        _check_consent(self.consent)

    @property
    def what(self) -> EvidenceSource:
        return EvidenceSource(self.paper, self.source, self.section, self.study)


@dataclass(frozen=True, slots=True)
class SaveEvidence:
    """A reviewed draft saved as evidence: ``values`` edit fields (absent: keep the
    suggestion; blank: leave it out); ``study`` records it in that Study."""

    draft_id: str
    reviewed: bool
    values: Mapping[str, str | None] = field(default_factory=dict)
    study: str | None = None

    def __post_init__(self) -> None:
        unknown = [k for k in self.values if k not in FIELD_NAMES]
        if unknown:
            raise AssistInputError(
                f"no evidence field {unknown[0][:40]!r}; fields: {', '.join(FIELD_NAMES)}",
                code="field",
            )


@dataclass(frozen=True, slots=True)
class SaveFormEvidence:
    """A reviewed form draft recorded in its Study: ``values`` by form key change a
    suggested value (absent: keep the suggestion; blank: leave the field empty); the form
    checks them again (type, option, length, required)."""

    draft_id: str
    reviewed: bool
    values: Mapping[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.draft_id.strip():
            raise AssistInputError("name the draft", code="draft")
        if len(self.values) > MAX_FIELDS:
            raise AssistInputError(f"at most {MAX_FIELDS} values", code="field")
        for key, value in self.values.items():
            if not isinstance(key, str) or not 0 < len(key) <= 40:
                raise AssistInputError("a field key is 1–40 characters", code="field")
            if value is not None and len(value) > MAX_TEXT_CHARS:
                raise AssistInputError(
                    f"{key}: at most {MAX_TEXT_CHARS:,} characters", code="field"
                )


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """A Study's summary: the focus, the sources left out, and (to send it) the consent
    token of its notice."""

    study: str
    focus: str = "overview"
    deselected: tuple[str, ...] = ()
    consent: str | None = None

    def __post_init__(self) -> None:
        _focus(self.focus)
        if not self.study.strip():
            raise SummaryInputError("name a Study", code="study")
        _check_consent(self.consent)

    @property
    def chosen(self) -> Focus:
        """The focus (overview, evidence or handover)."""
        return _focus(self.focus)


def _focus(value: str) -> Focus:
    for focus in FOCUSES:
        if value == focus:
            return focus
    raise SummaryInputError(f"--focus is one of {', '.join(FOCUSES)}", code="focus")


@dataclass(frozen=True, slots=True)
class SaveSummaryReport:
    """A reviewed summary draft saved as a Study report, without the points in ``drop``
    (e.g. ``"findings:2"``)."""

    study: str
    draft_id: str
    reviewed: bool
    drop: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StrategyRequest:
    """A search-strategy suggestion for a research question (1–2,000 characters) and,
    to send it, the consent token of its notice."""

    question: str
    consent: str | None = None

    def __post_init__(self) -> None:
        check_question(self.question)
        _check_consent(self.consent)


@dataclass(frozen=True, slots=True)
class BuildStrategy:
    """Concept groups to build into one query (at most 6 groups, 8 terms each)."""

    groups: tuple[ConceptGroup, ...]

    def __post_init__(self) -> None:
        build_query(self.groups)  # raises StrategyInputError naming what does not fit


@dataclass(frozen=True, slots=True)
class CheckModel:
    """A live check of the configured backend of ``role``, with its notice's token."""

    role: str = "generation"
    consent: str | None = None

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise AssistInputError("the role is 'chat' or 'generation'", code="role")
        _check_consent(self.consent)
