"""The records behind a number of the PRISMA 2020 flow, as listed (issue 28): every number
opens as its records. The screening boxes list studies of the working set (one per group,
with the reason a report was excluded); "Records identified" and "Duplicate records removed"
list source records, before deduplication — each record a source brought in, counted under
each source that brought it, as the flow counts them — with the source, the study it is in,
and for a duplicate removed the record it duplicates (the one kept to screen)."""

from __future__ import annotations

from collections.abc import Sequence

from litdesk.core.screening import PrismaRound

from ._items import ScreenSet
from ._prisma import Identified
from ._team_requests import PrismaRecordsRequest

__all__ = ["StudyItem", "record_row", "source_list", "study_list"]

#: a study behind a screening box: its group key and, for a report excluded, the reason
StudyItem = tuple[str, str]


def study_list(chosen: Sequence[PrismaRound], request: PrismaRecordsRequest) -> list[StudyItem]:
    """The studies behind a screening box in the rounds ``chosen`` (narrowed to a reason)."""
    reason = {k: why for r in chosen for why, keys in r.excluded_reports for k in keys}
    keys = [k for r in chosen for k in r.records(request.box)]
    if request.reason is not None:
        keys = [k for k in keys if reason.get(k) == request.reason]
    return [(k, reason.get(k, "")) for k in keys]


def source_list(
    chosen: Sequence[Sequence[Identified]], request: PrismaRecordsRequest
) -> list[Identified]:
    """The source records behind "Records identified" or (the box ``removed_duplicates``)
    the duplicates removed, in the rounds ``chosen``, narrowed to a kind of source and to
    one source (by its name as the flow's line shows it)."""
    source = None if request.source is None else request.source.strip()
    return [
        f
        for found in chosen
        for f in found
        if (request.box != "removed_duplicates" or f.duplicate_of is not None)
        and (request.kind is None or f.kind == request.kind)
        and (source is None or f.source.strip() == source)
    ]


def _paper(data: object) -> tuple[str, int | None]:
    paper = data.get("paper") if isinstance(data, dict) else None
    if not isinstance(paper, dict):
        return "", None
    year = paper.get("year")
    return str(paper.get("title") or ""), year if isinstance(year, int) else None


def record_row(screen: ScreenSet, item: StudyItem | Identified) -> dict[str, object]:
    """One listed record: a study (its merged record's title and year, the reason) or a
    source record (its own title and year as its source gave them, the source and its kind,
    the study it is in, why it is there, and the record kept that it duplicates)."""
    if isinstance(item, tuple):
        key, reason = item
        group = screen.group(key)
        return {
            "record_key": key,
            "title": group.paper.title if group else "",
            "year": group.paper.year if group else None,
            "reason": reason,
        }
    title, year = _paper(item.row.data)
    out: dict[str, object] = {
        "record_key": item.row.key,
        "title": title,
        "year": year,
        "reason": "",
        "source": item.source,
        "kind": item.kind,
        "group_key": item.group,
        "rule": item.row.rule or "",
        "duplicate_of": item.duplicate_of,
        "duplicate_of_title": "",
        "duplicate_of_source": "",
    }
    if item.duplicate_of is not None:
        group = screen.group(item.group)
        kept = (
            next((m for m in group.members if m.key == item.duplicate_of), None) if group else None
        )
        if kept is not None:  # its title and source: two records often share a title
            out["duplicate_of_title"] = _paper(kept.data)[0]
            out["duplicate_of_source"] = kept.database or "unnamed source"
    return out
