"""A Study's papers with their PDFs and licensed full text (issue 27): one PDF link per
Study paper (which library PDF, by content hash, how it was found, who linked it and
whether a person still has to confirm it) and the latest full-text check per Study paper
(whether Europe PMC has its open licensed full text, when it was checked). Migration
0016_study_fulltext creates both tables; a Study's or paper's deletion deletes its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._schema import metadata, study_papers

__all__ = [
    "LINK_STATES",
    "FulltextCheckRow",
    "LinkState",
    "PdfLinkRow",
    "drop_pdf_link",
    "fulltext_checks",
    "pdf_links",
    "put_fulltext_check",
    "put_pdf_link",
    "read_state",
    "retrieval_counts",
    "study_fulltext_checks",
    "study_pdf_links",
    "study_retrieval",
]

_ID: Final = 64
_WHEN: Final = 40

#: ``linked``: the PDF is the paper's (an identifier, an upload, or a person confirmed
#: it); ``suggested``: a verified title match waiting for a person; ``rejected``: a person
#: undid the link (matching never suggests that PDF for that paper again).
LinkState = Literal["linked", "suggested", "rejected"]
LINK_STATES: Final[tuple[LinkState, ...]] = ("linked", "suggested", "rejected")

study_pdf_links = sa.Table(
    "study_pdf_links",
    metadata,
    sa.Column(
        "study_id", sa.String(_ID), sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("paper_id", sa.String(130), primary_key=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("file", sa.String(260), nullable=False),
    sa.Column("how", sa.String(16), nullable=False),
    sa.Column("detail", sa.String(300), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("by", sa.String(_ID), nullable=False),
    sa.Column("at", sa.String(_WHEN), nullable=False),
)  # fmt: skip

study_fulltext_checks = sa.Table(
    "study_fulltext_checks",
    metadata,
    sa.Column(
        "study_id", sa.String(_ID), sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("paper_id", sa.String(130), primary_key=True),
    sa.Column("available", sa.Boolean, nullable=False),
    sa.Column("pmcid", sa.String(20), nullable=True),
    sa.Column("licence", sa.String(200), nullable=True),
    sa.Column("source_url", sa.String(300), nullable=True),
    sa.Column("reason", sa.String(300), nullable=True),
    sa.Column("by", sa.String(_ID), nullable=False),
    sa.Column("checked_at", sa.String(_WHEN), nullable=False),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PdfLinkRow:
    """One Study paper's PDF link."""

    study_id: str
    paper_id: str
    sha256: str
    file: str
    how: str  # doi | arxiv | pmid | pmcid | title | upload | person
    detail: str
    state: LinkState
    by: str
    at: str


@dataclass(frozen=True, slots=True)
class FulltextCheckRow:
    """One Study paper's latest full-text check."""

    study_id: str
    paper_id: str
    available: bool
    pmcid: str | None
    licence: str | None
    source_url: str | None
    reason: str | None
    by: str
    checked_at: str


def read_state(value: str) -> LinkState:
    for state in LINK_STATES:
        if value == state:
            return state
    return "rejected"  # an unknown state never counts as a link


def pdf_links(conn: Connection, study_id: str) -> dict[str, PdfLinkRow]:
    """The Study's PDF links by paper id."""
    rows = conn.execute(sa.select(study_pdf_links).where(study_pdf_links.c.study_id == study_id))
    return {
        r.paper_id: PdfLinkRow(
            r.study_id,
            r.paper_id,
            r.sha256,
            r.file,
            r.how,
            r.detail,
            read_state(r.state),
            r.by,
            r.at,
        )
        for r in rows
    }


def put_pdf_link(conn: Connection, row: PdfLinkRow) -> None:
    """Keep ``row`` as the paper's link in the Study (replacing an earlier one)."""
    t = study_pdf_links
    conn.execute(sa.delete(t).where(t.c.study_id == row.study_id, t.c.paper_id == row.paper_id))
    conn.execute(
        sa.insert(t).values(
            study_id=row.study_id, paper_id=row.paper_id, sha256=row.sha256,
            file=row.file[:260], how=row.how[:16], detail=row.detail[:300], state=row.state,
            by=row.by, at=row.at,
        )
    )  # fmt: skip


def drop_pdf_link(conn: Connection, study_id: str, paper_id: str) -> bool:
    """Forget the paper's link in the Study; whether there was one."""
    t = study_pdf_links
    done = conn.execute(sa.delete(t).where(t.c.study_id == study_id, t.c.paper_id == paper_id))
    return bool(done.rowcount)


def fulltext_checks(conn: Connection, study_id: str) -> dict[str, FulltextCheckRow]:
    """The Study's latest full-text checks by paper id."""
    t = study_fulltext_checks
    rows = conn.execute(sa.select(t).where(t.c.study_id == study_id))
    return {
        r.paper_id: FulltextCheckRow(
            r.study_id, r.paper_id, bool(r.available), r.pmcid, r.licence, r.source_url,
            r.reason, r.by, r.checked_at,
        )
        for r in rows
    }  # fmt: skip


def _retrieval_join() -> sa.Join:
    sp, lk, ck = study_papers.c, study_pdf_links, study_fulltext_checks
    return study_papers.outerjoin(
        lk, sa.and_(lk.c.study_id == sp.study_id, lk.c.paper_id == sp.paper_id)
    ).outerjoin(ck, sa.and_(ck.c.study_id == sp.study_id, ck.c.paper_id == sp.paper_id))


def _retrieval_counts() -> sa.Select[Any]:
    lk, ck = study_pdf_links.c, study_fulltext_checks.c
    linked = lk.state == "linked"
    available = ck.available.is_(True)

    def n(cond: sa.ColumnElement[bool]) -> sa.ColumnElement[Any]:
        return sa.func.coalesce(sa.func.sum(sa.case((cond, 1), else_=0)), 0)

    return (
        sa.select(
            sa.func.count(),
            n(linked),
            n(lk.state == "suggested"),
            n(available),
            sa.func.count(ck.paper_id),
            n(sa.or_(linked, available)),
        )
        .select_from(_retrieval_join())
        .where(study_papers.c.study_id == sa.bindparam("sid"))
    )


_COUNTS: Final = _retrieval_counts()


def retrieval_counts(conn: Connection, study_id: str) -> tuple[int, int, int, int, int, int]:
    """Over the Study's papers, in one aggregate row (no paper's row read): how many
    papers, with a linked PDF, with a suggested one, with licensed full text, checked for
    it, and with neither a linked PDF nor licensed full text — the counts
    :func:`study_retrieval`'s rows give (a 5,000-paper Study's page built and counted
    5,000 rows for them)."""
    row = conn.execute(_COUNTS, {"sid": study_id}).one()
    papers, pdf, suggested, text, checked, either = (int(v or 0) for v in row)
    return papers, pdf, suggested, text, checked, papers - either


def study_retrieval(
    conn: Connection, study_id: str, paper_ids: Sequence[str] | None = None
) -> tuple[set[str], dict[str, PdfLinkRow], dict[str, FulltextCheckRow]]:
    """The ids of the Study's papers (``paper_ids`` of them when given) with the PDF link
    and latest full-text check of each that has one — what ``study_paper_ids``,
    :func:`pdf_links` and :func:`fulltext_checks` answer for the Study's papers, in one
    statement (one per 500 of ``paper_ids``)."""
    if paper_ids is not None:
        ids: set[str] = set()
        pdfs: dict[str, PdfLinkRow] = {}
        checks: dict[str, FulltextCheckRow] = {}
        wanted = list(dict.fromkeys(paper_ids))
        for start in range(0, len(wanted), 500):  # bounded IN lists
            part = _retrieval_rows(conn, study_id, wanted[start : start + 500])
            ids |= part[0]
            pdfs |= part[1]
            checks |= part[2]
        return ids, pdfs, checks
    return _retrieval_rows(conn, study_id, None)


def _retrieval_rows(
    conn: Connection, study_id: str, paper_ids: Sequence[str] | None
) -> tuple[set[str], dict[str, PdfLinkRow], dict[str, FulltextCheckRow]]:
    sp, lk, ck = study_papers.c, study_pdf_links, study_fulltext_checks
    query = (
        sa.select(
            sp.paper_id.label("pid"),
            *(c.label(f"l_{c.name}") for c in lk.c if c.name not in ("study_id", "paper_id")),
            lk.c.paper_id.label("l_paper_id"),
            *(c.label(f"c_{c.name}") for c in ck.c if c.name not in ("study_id", "paper_id")),
            ck.c.paper_id.label("c_paper_id"),
        )
        .select_from(_retrieval_join())
        .where(sp.study_id == study_id)
    )
    if paper_ids is not None:
        query = query.where(sp.paper_id.in_(paper_ids))
    ids: set[str] = set()
    pdfs: dict[str, PdfLinkRow] = {}
    checks: dict[str, FulltextCheckRow] = {}
    for r in conn.execute(query):
        ids.add(r.pid)
        if r.l_paper_id is not None:
            pdfs[r.pid] = PdfLinkRow(
                study_id, r.pid, r.l_sha256, r.l_file, r.l_how, r.l_detail,
                read_state(r.l_state), r.l_by, r.l_at,
            )  # fmt: skip
        if r.c_paper_id is not None:
            checks[r.pid] = FulltextCheckRow(
                study_id, r.pid, bool(r.c_available), r.c_pmcid, r.c_licence,
                r.c_source_url, r.c_reason, r.c_by, r.c_checked_at,
            )  # fmt: skip
    return ids, pdfs, checks


def put_fulltext_check(conn: Connection, row: FulltextCheckRow) -> None:
    """Keep ``row`` as the paper's latest check in the Study."""
    t = study_fulltext_checks
    conn.execute(sa.delete(t).where(t.c.study_id == row.study_id, t.c.paper_id == row.paper_id))
    conn.execute(
        sa.insert(t).values(
            study_id=row.study_id, paper_id=row.paper_id, available=row.available,
            pmcid=row.pmcid, licence=(row.licence or None) and row.licence[:200],
            source_url=(row.source_url or None) and row.source_url[:300],
            reason=(row.reason or None) and row.reason[:300], by=row.by,
            checked_at=row.checked_at,
        )
    )  # fmt: skip
