"""The "version of" relation (issue 30): two records of one work that are not one record.

* ``preprint`` — a preprint or working paper and its published version;
* ``abstract`` — a meeting (conference) abstract and the full paper published elsewhere;
* ``correction`` — a correction notice (erratum) and the article it corrects (rule E).

Both records are kept, linked as versions; never a silent merge. The *primary* record is
the one screened by default (the published version, the full paper, the article); the
other is shown as its version. A reviewer may still merge a pair waiting for review (a
correction with ``--merge-corrections``): records in one group are no longer versions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

__all__ = ["Relation", "Version", "meeting_abstract", "version_relation", "versions_of"]

Relation = Literal["preprint", "abstract", "correction"]

_ABSTRACT_TYPES: Final = ("conference abstract", "meeting abstract", "abstract", "congress")
_MEETING_VENUES: Final = (
    "conference",
    "congress",
    "meeting",
    "symposium",
    "abstracts",
    "annual scientific",
)
#: the year gap allowed between a preprint or an abstract and the full paper
MAX_VERSION_GAP: Final = 3


class _Record(Protocol):
    @property
    def preprint(self) -> bool: ...
    @property
    def abstract_only(self) -> bool: ...
    @property
    def kind(self) -> str: ...
    @property
    def pages(self) -> tuple[int, int] | None: ...


@dataclass(frozen=True, slots=True)
class Version:
    """Records ``primary`` and ``version`` (input indices) are versions of one work."""

    primary: int  # the record screened by default (published version, full paper, article)
    version: int  # the preprint, the meeting abstract, the correction notice
    relation: Relation
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "primary": self.primary,
            "version": self.version,
            "relation": self.relation,
            "reason": self.reason,
        }


def meeting_abstract(types: str, venue: str, issue: str | None, volume: str | None) -> bool:
    """A meeting abstract: by its type (``types``: lower-case, joined), its venue (a
    congress or meeting named; ``venue`` lower-case) or a supplement issue or volume."""
    if any(t in types for t in _ABSTRACT_TYPES):
        return True
    if any(v in venue for v in _MEETING_VENUES):
        return True
    return any("suppl" in (x or "").lower() for x in (issue, volume))


def version_relation(
    a: _Record, b: _Record, ev: dict[str, Any], decision: str | None
) -> dict[str, str] | None:
    """The pair's version relation with which of the two (``"a"``/``"b"``) is primary,
    or None. ``decision`` is the rules' decision on the pair (before the vetoes)."""
    kinds = ev.get("kinds") or ()
    if a.preprint != b.preprint and decision == "linked":
        return {"relation": "preprint", "primary": "a" if b.preprint else "b"}
    if decision in ("review", "merge") and any(str(k).startswith("correction") for k in kinds):
        if a.kind == "correction" or b.kind == "correction":
            return {"relation": "correction", "primary": "b" if a.kind == "correction" else "a"}
        one_page = a.pages is not None and a.pages[0] == a.pages[1]
        return {"relation": "correction", "primary": "b" if one_page else "a"}
    gap = ev.get("year_gap")
    if (
        a.abstract_only != b.abstract_only
        and not a.preprint
        and not b.preprint
        and a.kind == b.kind == "article"
        and ev.get("journal") is False
        and ev.get("author") is not False
        and float(ev.get("title", 0.0)) >= 0.85
        and (gap is None or gap <= MAX_VERSION_GAP)
        and decision in (None, "review")
    ):
        return {"relation": "abstract", "primary": "b" if a.abstract_only else "a"}
    return None


def versions_of(
    links: Sequence[tuple[int, int, Relation, str]], group_of: Sequence[int]
) -> list[Version]:
    """The version links ``(primary, version, relation, reason)`` (input indices) whose
    records ended in different groups (``group_of``: each record's group), one per pair
    of groups."""
    out: list[Version] = []
    seen: set[tuple[int, int]] = set()
    for primary, other, relation, reason in links:
        ga, gb = group_of[primary], group_of[other]
        if ga == gb or (min(ga, gb), max(ga, gb)) in seen:
            continue
        seen.add((min(ga, gb), max(ga, gb)))
        out.append(Version(primary, other, relation, reason))
    return out
