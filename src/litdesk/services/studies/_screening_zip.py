"""The Study's ZIP and its screening decisions: what the studies area needs of the
screening area (the app passes it) and how a recovered Study's decisions are recorded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

from litdesk._errors import LitdeskError

__all__ = ["ScreeningZip", "record_decisions"]

#: the settings (the Study's reasons) first, then title/abstract, then full text
_ORDER: Final = {"settings": 0, "title_abstract": 1, "full_text": 2}


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


class ScreeningZip(Protocol):
    """What the Study's ZIP needs of the screening area: each stage's decisions out, and
    into a recovered Study (the app passes its screening area)."""

    def zip_members(self, study: str, *, owner: str) -> dict[str, bytes]: ...

    def record_zip_members(
        self, study: str, members: Mapping[str, bytes], *, owner: str
    ) -> Mapping[str, _Recorded]: ...


def record_decisions(
    link: ScreeningZip | None, study_id: str, members: Mapping[str, bytes], owner: str
) -> dict[str, dict[str, int | str]]:
    """The ZIP's decisions recorded as the recovering account's, stage by stage; a stage's
    file refused is said beside the Study, which is stored (its records, notes and
    evidence are not lost for it)."""
    if link is None:
        return {}
    out: dict[str, dict[str, int | str]] = {}
    # the settings (its reasons) first, then title/abstract, then full text
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
    return out
