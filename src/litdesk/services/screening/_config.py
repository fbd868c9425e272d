"""A Study's screening settings: exclusion reasons, eligibility criteria, highlighted
keywords, dual review and reveal per stage, whether "maybe" conflicts, the default order,
the prioritisation model.
Stored as one JSON document (``screening_settings``); a Study without one has the
defaults. A stored document is read field by field: an unknown or broken value falls back
to its default, so one bad field never hides the others."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypedDict

from litdesk.core.screening import DEFAULT_MODEL, MODEL_NAMES, STAGES, ConflictPolicy, Stage

from ._requests import ORDERS, ConfigureRequest, Order, ScreeningRequestError, parse_stage

__all__ = [
    "DEFAULT_REASONS",
    "ScreeningConfig",
    "SettingsCriteria",
    "SettingsDocument",
    "SettingsKeywords",
]

DEFAULT_REASONS: Final = (
    "wrong population",
    "wrong intervention",
    "wrong comparator",
    "wrong outcome",
    "wrong study design",
    "wrong publication type",
    "duplicate",
    "not in English",
    "full text not available",
)


def _flags(value: object) -> dict[Stage, bool]:
    out: dict[Stage, bool] = dict.fromkeys(STAGES, False)
    if isinstance(value, dict):
        for stage in STAGES:
            flag = value.get(stage)
            if isinstance(flag, bool):
                out[stage] = flag
    return out


def _merged(flags: dict[Stage, bool], changes: Mapping[str, bool]) -> dict[Stage, bool]:
    out = dict(flags)
    for name, flag in changes.items():
        out[parse_stage(name)] = flag
    return out


def _strings(value: object, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    if not isinstance(value, list):
        return default
    return tuple(str(v) for v in value if isinstance(v, str) and v.strip())


class SettingsCriteria(TypedDict):
    inclusion: str
    exclusion: str


class SettingsKeywords(TypedDict):
    include: list[str]
    exclude: list[str]


class SettingsDocument(TypedDict):
    """A Study's screening settings as stored and as the JSON API shows them."""

    reasons: list[str]
    criteria: SettingsCriteria
    keywords: SettingsKeywords
    dual_review: dict[str, bool]
    maybe_is_conflict: bool
    revealed: dict[str, bool]
    default_order: str
    model: str


class ReasonNotListed(ScreeningRequestError):
    """A full-text exclusion without a reason, or with one not in the Study's list (the
    message lists the Study's reasons)."""

    default_code = "reason_not_listed"


@dataclass(frozen=True, slots=True)
class ScreeningConfig:
    """The settings in force (see the module docstring)."""

    reasons: tuple[str, ...] = DEFAULT_REASONS
    inclusion: str = ""
    exclusion: str = ""
    include_keywords: tuple[str, ...] = ()
    exclude_keywords: tuple[str, ...] = ()
    dual_review: dict[Stage, bool] = field(default_factory=lambda: dict.fromkeys(STAGES, False))
    maybe_is_conflict: bool = False
    revealed: dict[Stage, bool] = field(default_factory=lambda: dict.fromkeys(STAGES, False))
    default_order: Order = "ranked"
    #: the prioritisation model of the ranked order (``litdesk-handover`` reads USE-m3 rows
    #: the embedding job stores; until every record has one, the default model ranks)
    model: str = DEFAULT_MODEL

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ScreeningConfig:
        if not data:
            return cls()
        criteria = data.get("criteria") if isinstance(data.get("criteria"), dict) else {}
        keywords = data.get("keywords") if isinstance(data.get("keywords"), dict) else {}
        assert isinstance(criteria, dict) and isinstance(keywords, dict)
        order = data.get("default_order")
        return cls(
            reasons=_strings(data.get("reasons"), DEFAULT_REASONS) or DEFAULT_REASONS,
            inclusion=str(criteria.get("inclusion") or ""),
            exclusion=str(criteria.get("exclusion") or ""),
            include_keywords=_strings(keywords.get("include")),
            exclude_keywords=_strings(keywords.get("exclude")),
            dual_review=_flags(data.get("dual_review")),
            maybe_is_conflict=data.get("maybe_is_conflict") is True,
            revealed=_flags(data.get("revealed")),
            default_order=next((o for o in ORDERS if o == order), "ranked"),
            model=next((m for m in MODEL_NAMES if m == data.get("model")), DEFAULT_MODEL),
        )

    def to_json(self) -> SettingsDocument:
        return {
            "reasons": list(self.reasons),
            "criteria": {"inclusion": self.inclusion, "exclusion": self.exclusion},
            "keywords": {
                "include": list(self.include_keywords),
                "exclude": list(self.exclude_keywords),
            },
            "dual_review": {s: self.dual_review[s] for s in STAGES},
            "maybe_is_conflict": self.maybe_is_conflict,
            "revealed": {s: self.revealed[s] for s in STAGES},
            "default_order": self.default_order,
            "model": self.model,
        }

    def changed(self, request: ConfigureRequest) -> ScreeningConfig:
        """These settings with the request's changes (``None``: unchanged)."""
        out = self
        for name in (
            "reasons",
            "inclusion",
            "exclusion",
            "include_keywords",
            "exclude_keywords",
            "maybe_is_conflict",
            "default_order",
            "model",
        ):
            value = getattr(request, name)
            if value is not None:
                out = replace(out, **{name: value})
        if request.dual_review is not None:
            out = replace(out, dual_review=_merged(out.dual_review, request.dual_review))
        if request.revealed is not None:
            out = replace(out, revealed=_merged(out.revealed, request.revealed))
        return out

    def policy(self, stage: Stage) -> ConflictPolicy:
        """How many reviewers a record needs at ``stage``, whether "maybe" conflicts, and
        (at full text, where PRISMA counts each excluded report under one reason) whether
        two exclusions giving different reasons do."""
        return ConflictPolicy(
            2 if self.dual_review[stage] else 1,
            self.maybe_is_conflict,
            reason_conflicts=stage == "full_text",
        )

    def blind(self, stage: Stage) -> bool:
        """Reviewers see only their own decisions at ``stage`` (dual review, not revealed)."""
        return self.dual_review[stage] and not self.revealed[stage]

    def exclusion_reason(self, reason: str) -> str:
        """The Study's reason a full-text exclusion gives (its own spelling); without one,
        or with one not in the list, :class:`ReasonNotListed` lists the Study's reasons."""
        listed = self.reason_in_list(reason) if reason else None
        if listed is not None:
            return listed
        reasons = "; ".join(self.reasons)
        if not reason:
            raise ReasonNotListed(
                f"excluding a record at full text needs one of the Study's exclusion reasons: "
                f"{reasons}",
                code="reason_required",
            )
        raise ReasonNotListed(
            f"{reason[:80]!r} is not one of the Study's exclusion reasons: {reasons}"
        )

    def reason_in_list(self, reason: str) -> str | None:
        """The Study's reason matching ``reason`` (case-insensitively), else ``None``."""
        folded = reason.casefold()
        return next((r for r in self.reasons if r.casefold() == folded), None)
