"""Which Studies hold the papers known under some identity keys (``doi:…``, ``arxiv:…``):
the PDF library page links each PDF to the Studies of its paper."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import sqlalchemy as sa

from ._engine import Store
from ._schema import paper_keys, studies, study_papers

__all__ = ["studies_by_keys"]

_BATCH: Final = 500


def studies_by_keys(store: Store, keys: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """``{key: [(study id, study name), …]}`` for the keys of saved papers in Studies
    (name order); keys of no Study are left out. One read transaction."""
    wanted = list(dict.fromkeys(keys))
    out: dict[str, list[tuple[str, str]]] = {}
    if not wanted:
        return out
    with store.read() as conn:
        for i in range(0, len(wanted), _BATCH):
            rows = conn.execute(
                sa.select(paper_keys.c.key, studies.c.id, studies.c.name)
                .join(study_papers, study_papers.c.paper_id == paper_keys.c.paper_id)
                .join(studies, studies.c.id == study_papers.c.study_id)
                .where(paper_keys.c.key.in_(wanted[i : i + _BATCH]))
                .order_by(studies.c.name)
            )
            for key, sid, name in rows:
                found = out.setdefault(key, [])
                if (sid, name) not in found:
                    found.append((sid, name))
    return out
