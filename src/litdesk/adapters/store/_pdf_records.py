"""What a library PDF is, per account (issue 32): the description a person confirmed or
corrected (title, authors, year, venue, DOI, arXiv id) over what was read from the PDF's
first pages, and the saved paper the PDF is (one object: the paper with its PDF).

The library is one for every account; these rows are each account's own, so a
correction or an attachment by one account never changes what another sees. Migration
0025_pdf_records creates the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._accounts import LOCAL_OWNER, visible_studies
from ._engine import dump_json, load_json
from ._fulltext import study_pdf_links
from ._schema import metadata, studies, study_papers
from ._trash import deleted_studies

__all__ = [
    "PdfRecordRow",
    "get_pdf_record",
    "pdf_records",
    "pdf_records_of",
    "pdfs_of_papers",
    "put_pdf_record",
    "studies_of_paper",
    "study_links_of",
]

_BATCH: Final = 500

pdf_records = sa.Table(
    "pdf_records",
    metadata,
    sa.Column("owner", sa.String(64), primary_key=True),
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("file", sa.String(260), nullable=False),
    sa.Column("title", sa.Text, nullable=True),
    sa.Column("authors", sa.Text, nullable=True),  # a JSON list of names
    sa.Column("year", sa.Integer, nullable=True),
    sa.Column("venue", sa.Text, nullable=True),
    sa.Column("doi", sa.String(300), nullable=True),
    sa.Column("arxiv", sa.String(60), nullable=True),
    sa.Column("confirmed_at", sa.String(40), nullable=True),
    # the owner's paper record (papers are keyed by owner and id, 0026_paper_owners): no
    # foreign key, as for the other per-owner references; paper records are never deleted
    sa.Column("paper_id", sa.String(130), nullable=True),
    sa.Column("attached_at", sa.String(40), nullable=True),
    sa.Index("ix_pdf_records_paper", "owner", "paper_id"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PdfRecordRow:
    """One account's record of one library PDF: its confirmed description (``None``
    until confirmed) and the paper it is (``None`` until attached)."""

    owner: str
    sha256: str
    file: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    confirmed_at: str | None = None
    paper_id: str | None = None
    attached_at: str | None = None


def _row(r: sa.Row[tuple[object, ...]]) -> PdfRecordRow:
    m = r._mapping
    names = load_json(m["authors"]) if m["authors"] else []
    return PdfRecordRow(
        owner=str(m["owner"]), sha256=str(m["sha256"]), file=str(m["file"]),
        title=m["title"], authors=tuple(str(n) for n in names if isinstance(n, str)),
        year=m["year"], venue=m["venue"], doi=m["doi"], arxiv=m["arxiv"],
        confirmed_at=m["confirmed_at"], paper_id=m["paper_id"], attached_at=m["attached_at"],
    )  # fmt: skip


def get_pdf_record(conn: Connection, owner: str, sha256: str) -> PdfRecordRow | None:
    t = pdf_records
    r = conn.execute(sa.select(t).where(t.c.owner == owner, t.c.sha256 == sha256)).first()
    return _row(r) if r is not None else None


def put_pdf_record(conn: Connection, row: PdfRecordRow) -> None:
    """Keep ``row`` as the account's record of the PDF (replacing an earlier one)."""
    t = pdf_records
    conn.execute(sa.delete(t).where(t.c.owner == row.owner, t.c.sha256 == row.sha256))
    conn.execute(
        sa.insert(t).values(
            owner=row.owner, sha256=row.sha256, file=row.file[:260], title=row.title,
            authors=dump_json(list(row.authors)) if row.authors else None, year=row.year,
            venue=row.venue, doi=row.doi, arxiv=row.arxiv, confirmed_at=row.confirmed_at,
            paper_id=row.paper_id, attached_at=row.attached_at,
        )
    )  # fmt: skip


def pdf_records_of(conn: Connection, owner: str, shas: Sequence[str]) -> dict[str, PdfRecordRow]:
    """The account's records of the PDFs ``shas``, by content hash."""
    t = pdf_records
    out: dict[str, PdfRecordRow] = {}
    wanted = list(dict.fromkeys(shas))
    for i in range(0, len(wanted), _BATCH):
        rows = conn.execute(
            sa.select(t).where(t.c.owner == owner, t.c.sha256.in_(wanted[i : i + _BATCH]))
        )
        out.update({row.sha256: row for row in map(_row, rows)})
    return out


def pdfs_of_papers(
    conn: Connection, owner: str, paper_ids: Sequence[str]
) -> dict[str, tuple[str, str]]:
    """``{paper id: (sha256, file)}``: the PDF the account attached to each paper, else one
    linked to it in a Study the account belongs to (``local``: every Study)."""
    out: dict[str, tuple[str, str]] = {}
    wanted = list(dict.fromkeys(paper_ids))
    linked, own = _pdf_queries(owner)
    for i in range(0, len(wanted), _BATCH):
        chunk = {"ids": wanted[i : i + _BATCH]}
        for pid, sha, file in conn.execute(linked, chunk):
            out.setdefault(pid, (sha, file))
        for pid, sha, file in conn.execute(own, chunk):
            out[pid] = (sha, file)  # the account's own attachment first
    return out


@lru_cache(maxsize=512)
def _pdf_queries(owner: str) -> tuple[Any, Any]:
    """:func:`pdfs_of_papers`' two statements for ``owner`` (built once: the paper ids are
    an expanding parameter ``ids``)."""
    t, s = pdf_records, study_pdf_links
    ids: sa.BindParameter[list[str]] = sa.bindparam("ids", expanding=True)
    linked = sa.select(s.c.paper_id, s.c.sha256, s.c.file).where(
        s.c.paper_id.in_(ids), s.c.state == "linked"
    )
    if owner != LOCAL_OWNER:
        linked = linked.where(visible_studies(s.c.study_id, owner))
    own = sa.select(t.c.paper_id, t.c.sha256, t.c.file).where(
        t.c.owner == owner, t.c.paper_id.in_(ids)
    )
    return linked.order_by(s.c.at), own.order_by(t.c.attached_at)


def study_links_of(
    conn: Connection, owner: str, shas: Sequence[str]
) -> dict[str, list[tuple[str, str, str]]]:
    """``{sha256: [(study id, study name, paper id), …]}``: where the PDFs are linked to a
    paper of a Study the account belongs to (``local``: every Study), by Study name."""
    s = study_pdf_links
    out: dict[str, list[tuple[str, str, str]]] = {}
    wanted = list(dict.fromkeys(shas))
    for i in range(0, len(wanted), _BATCH):
        query = (
            sa.select(s.c.sha256, studies.c.id, studies.c.name, s.c.paper_id)
            .join(studies, studies.c.id == s.c.study_id)
            .where(s.c.sha256.in_(wanted[i : i + _BATCH]), s.c.state == "linked")
        )
        if owner != LOCAL_OWNER:
            query = query.where(visible_studies(s.c.study_id, owner))
        for sha, sid, name, pid in conn.execute(query.order_by(studies.c.name)):
            out.setdefault(sha, []).append((sid, name, pid))
    return out


def studies_of_paper(conn: Connection, paper_id: str) -> list[str]:
    """The ids of the Studies (not deleted) that hold the paper."""
    rows = conn.execute(
        sa.select(study_papers.c.study_id).where(
            study_papers.c.paper_id == paper_id,
            study_papers.c.study_id.not_in(deleted_studies()),
        )
    )
    return [str(sid) for sid in rows.scalars()]
