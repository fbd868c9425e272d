"""The Study's ZIP and its screening decisions: what the studies area needs of the
screening area (the app passes it) and how a recovered Study's decisions are recorded."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from litdesk._errors import LitdeskError

__all__ = ["ScreeningZip", "ZipScreening", "record_decisions"]

#: the settings (the Study's reasons) first, then title/abstract, then full text
_ORDER: Final = {"settings": 0, "title_abstract": 1, "full_text": 2}
#: the members of the whole history (recorded together, instead of the stages' CSVs)
_HISTORY: Final = ("history", "review")


class _Recorded(Protocol):
    @property
    def recorded(self) -> int: ...
    @property
    def unchanged(self) -> int: ...
    @property
    def skipped(self) -> tuple[int, ...]: ...
    @property
    def unmatched(self) -> tuple[dict[str, object], ...]: ...
    @property
    def refused(self) -> tuple[dict[str, object], ...]: ...


class _History(Protocol):
    @property
    def stages(self) -> dict[str, dict[str, int]]: ...
    @property
    def reviewers(self) -> tuple[dict[str, object], ...]: ...
    @property
    def events(self) -> int: ...
    @property
    def recorded(self) -> int: ...
    @property
    def unmatched(self) -> int: ...
    @property
    def skipped(self) -> int: ...
    @property
    def review(self) -> dict[str, object]: ...


class _Retrieval(Protocol):
    @property
    def recorded(self) -> int: ...
    @property
    def unmatched(self) -> int: ...


class ScreeningZip(Protocol):
    """What the studies area needs of the screening area: for the ZIP, each stage's
    decisions and the whole history out, and into a recovered Study; for the PRISMA report,
    the PRISMA 2020 flow (the app passes its screening area)."""

    def zip_members(self, study: str, *, owner: str) -> dict[str, bytes]: ...

    def record_zip_members(
        self, study: str, members: Mapping[str, bytes], *, owner: str
    ) -> Mapping[str, _Recorded]: ...

    def record_zip_history(
        self, study: str, members: Mapping[str, bytes], *, owner: str
    ) -> _History: ...

    def record_zip_retrieval(self, study: str, member: bytes, *, owner: str) -> _Retrieval: ...

    def report_flow(self, study: str, *, owner: str, svg: bool) -> str: ...


@dataclass(frozen=True, slots=True)
class ZipScreening:
    """What recovery recorded of the ZIP's screening: per part (``settings``, a stage,
    ``history``) its counts or ``error`` (full text: its retrieval notes too), and the history's reviewers (empty: the ZIP had
    no history, or it was refused and the stages' outcomes were recorded as yours)."""

    decisions: dict[str, dict[str, int | str]] = field(default_factory=dict)
    reviewers: tuple[dict[str, object], ...] = ()


def record_decisions(
    link: ScreeningZip | None, study_id: str, members: Mapping[str, bytes], owner: str
) -> ZipScreening:
    """The ZIP's screening recorded into the recovered Study: its settings, then its whole
    history with who decided what (a ZIP made before the history, or a history refused:
    each stage's outcomes as the recovering account's). A part refused is said beside the
    Study, which is stored (its records, notes and evidence are not lost for it)."""
    if link is None:
        return ZipScreening()
    out: dict[str, dict[str, int | str]] = {}
    stages = {k: v for k, v in members.items() if k not in _HISTORY}
    if all(h in members for h in _HISTORY):
        _record_stages(link, study_id, {k: v for k, v in stages.items() if k == "settings"},
                       owner, out)  # fmt: skip
        try:
            made = link.record_zip_history(study_id, {h: members[h] for h in _HISTORY}, owner=owner)
        except LitdeskError as exc:
            out["history"] = {"error": exc.message}
        else:
            out["history"] = {"events": made.events, "recorded": made.recorded,
                              "unmatched": made.unmatched, "skipped": made.skipped,
                              **_mode(made.review)}  # fmt: skip
            for stage, counts in made.stages.items():
                out[stage] = {"recorded": counts["recorded"], "unchanged": 0, "skipped": 0,
                              "unmatched": counts["unmatched"], "refused": 0, "history": 1}  # fmt: skip
            _record_retrieval(link, study_id, members, owner, out)
            return ZipScreening(out, made.reviewers)
        stages = {k: v for k, v in stages.items() if k != "settings"}  # recorded above
    _record_stages(link, study_id, stages, owner, out)
    _record_retrieval(link, study_id, members, owner, out)
    return ZipScreening(out)


def _record_retrieval(
    link: ScreeningZip,
    study_id: str,
    members: Mapping[str, bytes],
    owner: str,
    out: dict[str, dict[str, int | str]],
) -> None:
    """The full-text file's retrieval notes (its reports not retrieved: PRISMA's), said
    beside the stage's decisions as ``retrieval`` (notes recorded) and
    ``retrieval_unmatched``, or ``retrieval_error``."""
    if "full_text" not in members:
        return
    try:
        made = link.record_zip_retrieval(study_id, members["full_text"], owner=owner)
    except LitdeskError as exc:
        out.setdefault("full_text", {"recorded": 0})["retrieval_error"] = exc.message
        return
    if made.recorded or made.unmatched:
        said = out.setdefault("full_text", {"recorded": 0})
        said["retrieval"] = made.recorded
        said["retrieval_unmatched"] = made.unmatched


def _mode(review: Mapping[str, object]) -> dict[str, str]:
    """The review mode as the report says it: the stages reviewed in pairs, those revealed
    and whether "maybe" is a conflict (``yes`` / ``no``)."""
    out: dict[str, str] = {}
    for flag in ("dual_review", "revealed"):
        stages = review.get(flag)
        on = [s for s, v in stages.items() if v] if isinstance(stages, dict) else []
        out[flag] = ", ".join(on)
    out["maybe_is_conflict"] = "yes" if review.get("maybe_is_conflict") is True else "no"
    partial = review.get("partial")
    out["partial"] = ", ".join(str(p) for p in partial) if isinstance(partial, list) else ""
    return out


def _record_stages(
    link: ScreeningZip,
    study_id: str,
    members: Mapping[str, bytes],
    owner: str,
    out: dict[str, dict[str, int | str]],
) -> None:
    """Each stage's outcomes as the recovering account's (the settings first)."""
    for stage in sorted(members, key=lambda s: _ORDER.get(s, len(_ORDER))):
        try:
            made = link.record_zip_members(study_id, {stage: members[stage]}, owner=owner)
        except LitdeskError as exc:
            out[stage] = {"error": exc.message}
            continue
        for name, v in made.items():
            out[name] = {"recorded": v.recorded, "unchanged": v.unchanged,
                         "skipped": len(v.skipped), "unmatched": len(v.unmatched),
                         "refused": len(v.refused)}  # fmt: skip
