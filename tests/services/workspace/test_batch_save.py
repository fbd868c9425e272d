"""An import's records saved in one batch (``_batch.save_batch``) end as saving them one by
one ends: the same papers, identity keys, savers and Study links, the same refusals —
records of one file merging into each other and into saved papers, on both backends."""

from __future__ import annotations

import sqlalchemy as sa
from tests.services.workspace.test_workspace import _trace

from litdesk.core.records import make_paper
from litdesk.services.workspace import IdentityConflict, Workspace

RECORDS = [
    make_paper(pmid="1", title="one"),
    make_paper(doi="10.1234/saved", title="completes a saved paper", year=2001),
    make_paper(pmid="1", doi="10.1234/one", title="one again", keywords=("k",)),
    make_paper(pmid="1", doi="10.1234/other", title="one, another DOI"),  # refused: merge
    make_paper(doi="10.1234/one", pmid="2", title="two papers"),  # refused: PMID differs
    make_paper(pmid="3", title="three"),
    make_paper(pmid="3", title="three again"),
]


def _tables(ws: Workspace) -> dict[str, list[tuple[object, ...]]]:
    out = {}
    with ws.store.read() as conn:
        for name, cols in (
            ("papers", "id, data, status"),
            ("paper_keys", "key, paper_id"),
            ("paper_savers", "paper_id, account_id"),
            ("study_papers", "paper_id"),
        ):
            rows = conn.execute(sa.text(f"SELECT {cols} FROM {name}")).all()
            out[name] = sorted(tuple(r) for r in rows)
    return out


def test_a_batch_saves_what_saving_one_by_one_saves(ws: Workspace) -> None:
    saved = ws.save_paper(make_paper(doi="10.1234/saved", title="saved")).paper.id
    ws.create_study("Batch")
    result = ws.attach_import(_trace(RECORDS), study="Batch")
    assert result.created == 2  # MED-1 and MED-3
    assert result.paper_ids == ["MED-1", saved, "MED-1", None, None, "MED-3", "MED-3"]
    assert [r["record"] for r in result.refused] == [3, 4]
    batch = _tables(ws)

    # the same records saved one by one again (the tables emptied), into another Study
    with ws.store.write() as conn:
        for name in ("study_papers", "paper_savers", "paper_keys", "papers"):
            conn.execute(sa.text(f"DELETE FROM {name}"))
    ws.save_paper(make_paper(doi="10.1234/saved", title="saved"))
    one_by_one = ws.create_study("One by one").id
    refused = []
    for i, paper in enumerate(RECORDS):
        try:
            ws.save_paper(paper, study=one_by_one)
        except IdentityConflict:
            refused.append(i)
    assert refused == [3, 4]
    assert _tables(ws) == batch
    assert ws.paper("10.1234/one").paper.id == "MED-1"  # the key the merge added
    assert ws.paper("MED-1").paper.keywords == ("k",)
    assert ws.paper(saved).paper.year == 2001
