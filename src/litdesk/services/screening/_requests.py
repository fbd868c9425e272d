"""The requests of the screening area (issue 28), each validated once when made: a bad
value is a :class:`ScreeningRequestError` (CLI exit status 2, HTTP 422) naming the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from litdesk.core.screening import (
    MODEL_NAMES,
    STAGES,
    VERDICTS,
    ScreeningInputError,
    Stage,
    Verdict,
)

__all__ = [
    "DECISION_SOURCES",
    "ITEM_STATUSES",
    "MAX_KEYWORDS",
    "MAX_NOTE",
    "MAX_REASONS",
    "MAX_TEXT",
    "ORDERS",
    "PAGE_SIZE",
    "CardRequest",
    "ConfigureRequest",
    "DecideRequest",
    "HistoryRequest",
    "ItemStatus",
    "ItemsRequest",
    "NextRequest",
    "Order",
    "ProgressRequest",
    "RetrievalRequest",
    "ScreeningRequestError",
    "Source",
    "StudyScreenRequest",
    "StudyStageRequest",
    "UndoRequest",
    "parse_stage",
]

Order = Literal["ranked", "random", "original"]
ORDERS: Final[tuple[Order, ...]] = ("ranked", "random", "original")
Source = Literal["web", "cli", "api", "import:csv", "import:asreview", "import:rayyan"]
DECISION_SOURCES: Final[tuple[Source, ...]] = (
    "web",
    "cli",
    "api",
    "import:csv",
    "import:asreview",
    "import:rayyan",
)
ItemStatus = Literal[
    "all", "remaining", "screened", "included", "excluded", "maybe", "conflict", "mine"
]
ITEM_STATUSES: Final[tuple[ItemStatus, ...]] = (
    "all",
    "remaining",
    "screened",
    "included",
    "excluded",
    "maybe",
    "conflict",
    "mine",
)

MAX_REF: Final = 200
MAX_REASON: Final = 500
MAX_NOTE: Final = 20_000
MAX_TEXT: Final = 20_000  # eligibility criteria (each)
MAX_REASONS: Final = 50
MAX_KEYWORDS: Final = 200
MAX_KEYWORD: Final = 100
PAGE_SIZE: Final = 50
MAX_SEED: Final = 2**32 - 1
MAX_SKIP: Final = 20


class ScreeningRequestError(ScreeningInputError):
    """A screening request does not fit (an unknown stage, verdict or order; a note too
    long; an empty reason list)."""

    default_code = "screening_request"


def _ref(value: str, what: str) -> str:
    value = (value or "").strip()
    if not value or len(value) > MAX_REF:
        raise ScreeningRequestError(f"{what} is 1 to {MAX_REF} characters", code="bad_ref")
    return value


def parse_stage(value: str) -> Stage:
    """A stage by its name (``title_abstract``, ``full_text``; ``ta``/``ft`` too)."""
    name = {"ta": "title_abstract", "ft": "full_text"}.get(value.strip(), value.strip())
    for stage in STAGES:
        if stage == name:
            return stage
    raise ScreeningRequestError(
        f"stage must be one of {', '.join(STAGES)}, not {value[:40]!r}", code="bad_stage"
    )


def _verdict(value: str) -> Verdict:
    for verdict in VERDICTS:
        if verdict == value:
            return verdict
    raise ScreeningRequestError(
        f"verdict must be one of {', '.join(VERDICTS)}, not {value[:40]!r}", code="bad_verdict"
    )


def _text(value: str, limit: int, what: str) -> str:
    value = (value or "").strip()
    if len(value) > limit:
        raise ScreeningRequestError(f"{what} is at most {limit:,} characters", code="too_long")
    return value


def _words(values: Sequence[str], limit: int, size: int, what: str) -> tuple[str, ...]:
    if isinstance(values, str):
        raise ScreeningRequestError(f"{what} is a list", code="bad_list")
    out: list[str] = []
    seen: set[str] = set()
    for raw in values:
        word = " ".join(str(raw).split())
        if not word:
            continue
        if len(word) > size:
            raise ScreeningRequestError(
                f"each of {what} is at most {size} characters", code="too_long"
            )
        if word.casefold() not in seen:
            seen.add(word.casefold())
            out.append(word)
    if len(out) > limit:
        raise ScreeningRequestError(f"at most {limit} {what}", code="too_many")
    return tuple(out)


def _stage_flags(value: Mapping[str, bool] | None, what: str) -> dict[Stage, bool] | None:
    if value is None:
        return None
    out: dict[Stage, bool] = {}
    for name, flag in value.items():
        if not isinstance(flag, bool):
            raise ScreeningRequestError(f"{what} per stage is true or false", code="bad_flag")
        out[parse_stage(name)] = flag
    return out


def _order(value: str) -> Order:
    for order in ORDERS:
        if order == value:
            return order
    raise ScreeningRequestError(
        f"order must be one of {', '.join(ORDERS)}, not {value[:40]!r}", code="bad_order"
    )


@dataclass(frozen=True, slots=True)
class StudyScreenRequest:
    """A Study's screening (its settings)."""

    study: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))


@dataclass(frozen=True, slots=True)
class StudyStageRequest:
    """A Study's screening at one stage (conflicts, reveal)."""

    study: str
    stage: Stage = "title_abstract"

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))


@dataclass(frozen=True, slots=True)
class ConfigureRequest:
    """Change a Study's screening settings (its owner only); ``None`` leaves a setting as
    it is. ``dual_review`` / ``revealed`` map a stage to a flag."""

    study: str
    reasons: Sequence[str] | None = None
    inclusion: str | None = None
    exclusion: str | None = None
    include_keywords: Sequence[str] | None = None
    exclude_keywords: Sequence[str] | None = None
    dual_review: Mapping[str, bool] | None = None
    maybe_is_conflict: bool | None = None
    revealed: Mapping[str, bool] | None = None
    default_order: str | None = None
    #: the prioritisation model (one of ``MODEL_NAMES``)
    model: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        if self.model is not None and self.model not in MODEL_NAMES:
            raise ScreeningRequestError(
                f"model must be among {', '.join(MODEL_NAMES)}", code="bad_model"
            )
        if self.reasons is not None:
            reasons = _words(self.reasons, MAX_REASONS, MAX_REASON, "exclusion reasons")
            if not reasons:
                raise ScreeningRequestError(
                    "a Study keeps at least one exclusion reason", code="no_reasons"
                )
            object.__setattr__(self, "reasons", reasons)
        for name in ("inclusion", "exclusion"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _text(value, MAX_TEXT, f"the {name} criteria"))
        for name in ("include_keywords", "exclude_keywords"):
            value = getattr(self, name)
            if value is not None:
                what = name.replace("_", " ")
                object.__setattr__(self, name, _words(value, MAX_KEYWORDS, MAX_KEYWORD, what))
        object.__setattr__(self, "dual_review", _stage_flags(self.dual_review, "dual review"))
        object.__setattr__(self, "revealed", _stage_flags(self.revealed, "revealed"))
        if self.maybe_is_conflict is not None and not isinstance(self.maybe_is_conflict, bool):
            raise ScreeningRequestError("maybe_is_conflict is true or false", code="bad_flag")
        if self.default_order is not None:
            object.__setattr__(self, "default_order", _order(self.default_order))


@dataclass(frozen=True, slots=True)
class NextRequest:
    """The next record for the acting reviewer at ``stage`` (``order`` None: the Study's
    default order; ``seed`` draws the random order)."""

    study: str
    stage: Stage = "title_abstract"
    order: Order | None = None
    seed: int = 1
    #: records passed over this time (the one on screen, those whose decisions are on their
    #: way): the web page fetches the record after the current one before it is decided
    skip: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        if self.order is not None:
            object.__setattr__(self, "order", _order(self.order))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ScreeningRequestError("the seed is a whole number", code="bad_seed")
        if not 0 <= self.seed <= MAX_SEED:
            raise ScreeningRequestError(f"the seed is 0 to {MAX_SEED}", code="bad_seed")
        if isinstance(self.skip, str) or len(self.skip) > MAX_SKIP:
            raise ScreeningRequestError(f"at most {MAX_SKIP} records skipped", code="bad_skip")
        object.__setattr__(self, "skip", tuple(_ref(k, "a record key") for k in self.skip))


@dataclass(frozen=True, slots=True)
class CardRequest:
    """One record's card at a stage (any member record's key names its group)."""

    study: str
    stage: Stage
    record_key: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        object.__setattr__(self, "record_key", _ref(self.record_key, "a record key"))


@dataclass(frozen=True, slots=True)
class DecideRequest:
    """A reviewer's decision on a record at a stage. At full text an exclusion needs a
    reason from the Study's list (checked against the list by the area)."""

    study: str
    stage: Stage
    record_key: str
    verdict: Verdict
    reason: str = ""
    note: str = ""
    source: Source = "api"

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        object.__setattr__(self, "record_key", _ref(self.record_key, "a record key"))
        object.__setattr__(self, "verdict", _verdict(str(self.verdict).strip().lower()))
        object.__setattr__(
            self, "reason", " ".join(_text(self.reason, MAX_REASON, "a reason").split())
        )
        object.__setattr__(self, "note", _text(self.note, MAX_NOTE, "a note"))
        if self.source not in DECISION_SOURCES:
            raise ScreeningRequestError(
                f"source must be one of {', '.join(DECISION_SOURCES)}", code="bad_source"
            )


@dataclass(frozen=True, slots=True)
class UndoRequest:
    """Take back the acting reviewer's last decision at ``stage`` (on ``record_key`` when
    given): appended as an undo, the earlier decision stays in the history."""

    study: str
    stage: Stage = "title_abstract"
    record_key: str | None = None
    source: Source = "api"

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        if self.record_key is not None:
            object.__setattr__(self, "record_key", _ref(self.record_key, "a record key"))
        if self.source not in DECISION_SOURCES:
            raise ScreeningRequestError(
                f"source must be one of {', '.join(DECISION_SOURCES)}", code="bad_source"
            )


@dataclass(frozen=True, slots=True)
class RetrievalRequest:
    """Record whether a record's full text was retrieved (PRISMA: reports not retrieved)."""

    study: str
    record_key: str
    retrieved: bool
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "record_key", _ref(self.record_key, "a record key"))
        if not isinstance(self.retrieved, bool):
            raise ScreeningRequestError("retrieved is true or false", code="bad_flag")
        object.__setattr__(self, "note", _text(self.note, MAX_NOTE, "a note"))


@dataclass(frozen=True, slots=True)
class HistoryRequest:
    """Every decision on a record (both stages) the acting reviewer may see."""

    study: str
    record_key: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "record_key", _ref(self.record_key, "a record key"))


@dataclass(frozen=True, slots=True)
class ProgressRequest:
    """Progress and stopping guidance at a stage."""

    study: str
    stage: Stage = "title_abstract"

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))


@dataclass(frozen=True, slots=True)
class ItemsRequest:
    """One page of the records behind a number (``status``) at a stage."""

    study: str
    stage: Stage = "title_abstract"
    status: ItemStatus = "all"
    page: int = 1
    page_size: int = field(default=PAGE_SIZE)

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        if self.status not in ITEM_STATUSES:
            raise ScreeningRequestError(
                f"status must be one of {', '.join(ITEM_STATUSES)}", code="bad_status"
            )
        if isinstance(self.page, bool) or not isinstance(self.page, int) or self.page < 1:
            raise ScreeningRequestError("the page is a whole number from 1", code="bad_page")
        if not 1 <= self.page_size <= 500:
            raise ScreeningRequestError("a page holds 1 to 500 records", code="bad_page")
