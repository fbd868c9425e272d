"""A Study's records and working set as the studies area shows and exports them: the
numbers (records identified per source, duplicates removed, studies), the records list and
the working set list with each group's members and rule (titles, not ids)."""

from __future__ import annotations

from litdesk.adapters.store import Store, StudyRecordRow, repo, study_records
from litdesk.core.records import Paper
from litdesk.services.dedup import (
    PENDING_RULE,
    StepChecks,
    WorkingGroup,
    identification,
    working_groups,
    working_page,
)

from ._requests import WORKING_PAGE
from ._views import GroupRow, MemberRow, RecordRow, RecordsView, StudyCounts, WorkingSetView

__all__ = ["records_view", "study_counts", "working_set_papers", "working_set_view"]


def study_counts(store: Store, study_id: str, checks: StepChecks | None = None) -> StudyCounts:
    """The Study's numbers (the same PRISMA reports); ``checks``: see
    :func:`~litdesk.services.dedup.identification`."""
    ident = identification(store, study_id, checks=checks)
    return StudyCounts(
        ident.identified,
        ident.per_source,
        ident.identified - ident.after_dedup,
        ident.after_dedup,
        ident.pending,
    )


def _title(row: StudyRecordRow) -> tuple[str, int | None, str | None]:
    paper = row.data.get("paper")
    if not isinstance(paper, dict):
        return "", None, None
    year = paper.get("year")
    doi = paper.get("doi")
    return (
        str(paper.get("title") or ""),
        year if isinstance(year, int) else None,
        str(doi) if doi else None,
    )


def _pages(total: int, page: int) -> tuple[int, int]:
    pages = max(1, -(-total // WORKING_PAGE))
    return min(page, pages), pages


def records_view(
    store: Store, study: repo.StudyRow, page: int, checks: StepChecks | None = None
) -> RecordsView:
    counts = study_counts(store, study.id, checks)
    page, pages = _pages(counts.identified, page)
    with store.read() as conn:
        rows = study_records.list_records(
            conn, study.id, limit=WORKING_PAGE, offset=(page - 1) * WORKING_PAGE
        )
    out: list[RecordRow] = []
    for r in rows:
        title, year, doi = _title(r)
        out.append(
            {
                "key": r.key,
                "title": title,
                "year": year,
                "doi": doi,
                "source_kind": r.source_kind,
                "source_id": r.source_id,
                "source": str(r.data.get("label") or r.source_id),
                "database": r.database,
                "rank": r.rank,
                "group": r.grp,
                "rule": r.rule if r.grp else PENDING_RULE,
            }
        )
    return RecordsView(study.id, study.name, counts, out, page, pages)


def _group_row(g: WorkingGroup) -> GroupRow:
    members: list[MemberRow] = []
    for r in g.members:
        title, year, _doi = _title(r)
        members.append(
            {
                "key": r.key,
                "title": title,
                "year": year,
                "source": str(r.data.get("label") or r.source_id),
                "database": r.database,
                "rank": r.rank,
                "rule": (r.rule or "") if not g.pending else PENDING_RULE,
            }
        )
    p = g.paper
    return {
        "key": g.key,
        "title": p.title,
        "authors": list(p.authors[:6]),
        "year": p.year,
        "journal": p.journal,
        "doi": p.doi,
        "pending": g.pending,
        "members": members,
    }


def working_set_view(
    store: Store, study: repo.StudyRow, page: int, checks: StepChecks | None = None
) -> WorkingSetView:
    counts = study_counts(store, study.id, checks)
    page, pages = _pages(counts.studies, page)
    shown, total = working_page(store, study.id, (page - 1) * WORKING_PAGE, WORKING_PAGE)
    if total != counts.studies:  # records came meanwhile: the page as it is now
        page, pages = _pages(total, page)
    return WorkingSetView(study.id, study.name, counts, [_group_row(g) for g in shown], page, pages)


def working_set_papers(store: Store, study_id: str) -> list[Paper]:
    """The Study's working set: one merged record per study (what it exports and screens)."""
    return [g.paper for g in working_groups(store, study_id)]
