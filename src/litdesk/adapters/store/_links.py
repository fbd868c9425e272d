"""Which Studies hold the papers known under some identity keys (``doi:…``, ``arxiv:…``),
and which Studies link a library PDF to one of their papers: the PDF library page links
each PDF to the Studies of its paper."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import sqlalchemy as sa

from ._accounts import LOCAL_OWNER, visible_studies
from ._engine import Store
from ._fulltext import study_pdf_links
from ._schema import paper_keys, studies, study_papers

__all__ = ["studies_by_keys", "studies_by_pdfs"]

_BATCH: Final = 500


def studies_by_keys(
    store: Store, keys: Sequence[str], *, visible_to: str
) -> dict[str, list[tuple[str, str]]]:
    """``{key: [(study id, study name), …]}`` for the keys of saved papers in the Studies
    account ``visible_to`` may see (name order; ``local`` sees every Study); keys of no such
    Study are left out. One read transaction."""
    wanted = list(dict.fromkeys(keys))
    out: dict[str, list[tuple[str, str]]] = {}
    if not wanted:
        return out
    with store.read() as conn:
        for i in range(0, len(wanted), _BATCH):
            query = (
                sa.select(paper_keys.c.key, studies.c.id, studies.c.name)
                .join(
                    study_papers,
                    sa.and_(
                        study_papers.c.paper_id == paper_keys.c.paper_id,
                        study_papers.c.paper_owner == paper_keys.c.owner,
                    ),
                )
                .join(studies, studies.c.id == study_papers.c.study_id)
                .where(paper_keys.c.key.in_(wanted[i : i + _BATCH]))
            )
            if visible_to != LOCAL_OWNER:  # another account's private Study is not shown
                query = query.where(visible_studies(studies.c.id, visible_to))
            rows = conn.execute(query.order_by(studies.c.name))
            for key, sid, name in rows:
                found = out.setdefault(key, [])
                if (sid, name) not in found:
                    found.append((sid, name))
    return out


def studies_by_pdfs(
    store: Store, shas: Sequence[str], *, visible_to: str
) -> dict[str, list[tuple[str, str]]]:
    """``{sha256: [(study id, study name), …]}``: the Studies account ``visible_to`` may see
    (name order; ``local`` sees every Study) in which the PDF is linked to one of the
    Study's papers (matched, confirmed, uploaded or attached; a suggested or rejected link
    is not one). One read transaction."""
    wanted = list(dict.fromkeys(shas))
    out: dict[str, list[tuple[str, str]]] = {}
    if not wanted:
        return out
    links = study_pdf_links
    with store.read() as conn:
        for i in range(0, len(wanted), _BATCH):
            query = (
                sa.select(links.c.sha256, studies.c.id, studies.c.name)
                .join(studies, studies.c.id == links.c.study_id)
                .join(
                    study_papers,
                    sa.and_(
                        study_papers.c.study_id == links.c.study_id,
                        study_papers.c.paper_id == links.c.paper_id,
                    ),
                )
                .where(links.c.sha256.in_(wanted[i : i + _BATCH]), links.c.state == "linked")
            )
            if visible_to != LOCAL_OWNER:  # another account's private Study is not shown
                query = query.where(visible_studies(studies.c.id, visible_to))
            for sha, sid, name in conn.execute(query.order_by(studies.c.name)):
                found = out.setdefault(sha, [])
                if (sid, name) not in found:
                    found.append((sid, name))
    return out
