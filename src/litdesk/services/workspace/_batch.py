"""Saving many papers at once (an import's records): the same upserts by identity as
saving them one after the other, in a handful of statements instead of several per paper.
Records are the owner's: only its own keys and records are read and written (another
account's record of the same work is never matched, filled in or named).

The stored identity keys of every record are read in one query (per 500 keys), the saved
papers they name in another; the records are then matched and merged in order in memory
(a record may match a paper an earlier record of the batch created or completed), and the
new papers, the completed ones, their keys, their savers and their Study links are written
with one statement each. The caller holds the identity lock in its write transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.engine import Connection

from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import repo
from litdesk.core.records import Paper

from ._results import IdentityConflict, SaveResult, merge_papers

__all__ = ["save_batch"]


def save_batch(
    conn: Connection,
    batch: Sequence[Paper],
    now: str,
    *,
    owner: str,
    study_id: str | None = None,
) -> list[SaveResult | IdentityConflict]:
    """Each paper saved as :meth:`Workspace._save` saves it (an :class:`IdentityConflict`
    in its place when it is refused), in order, and linked to ``study_id`` when given."""
    keys_of = [repo.identity_keys(p) for p in batch]
    known = repo.find_paper_ids(conn, (k for keys in keys_of for k in keys), owner=owner)
    stored = repo.own_papers(conn, set(known.values()), owner=owner)
    current: dict[str, Paper] = {}  # the papers as the batch left them (new or saved)
    created: dict[str, None] = {}  # new papers' ids, in order
    changed: dict[str, None] = {}  # saved papers the batch completed
    new_keys: dict[str, str] = {}
    out: list[SaveResult | IdentityConflict] = []
    for paper, keys in zip(batch, keys_of, strict=True):
        ids = sorted({known[k] for k in keys if k in known})
        if len(ids) > 1:
            out.append(
                IdentityConflict(
                    f"the record matches {len(ids)} saved papers ({', '.join(ids[:5])}); "
                    "not merged",
                    paper_ids=ids,
                )
            )
            continue
        if not ids:
            current[paper.id] = paper
            created[paper.id] = None
            _keys(known, new_keys, keys, paper.id)
            out.append(SaveResult(paper, created=True, changed=True))
            continue
        old = current.get(ids[0]) or stored[ids[0]]
        try:
            merged = merge_papers(old, paper)
        except IdentityConflict as exc:
            out.append(exc)
            continue
        if merged != old:
            current[old.id] = merged
            if old.id not in created:
                changed[old.id] = None
            _keys(known, new_keys, repo.identity_keys(merged), old.id)
        out.append(SaveResult(merged, created=False, changed=merged != old))
    repo.insert_papers(conn, [current[i] for i in created], now, owner=owner)
    repo.update_papers(conn, [current[i] for i in changed], now, owner=owner)
    repo.add_paper_keys(conn, new_keys, owner=owner)
    saved = [r.paper.id for r in out if isinstance(r, SaveResult)]
    access.add_savers(conn, saved, owner, now)
    if study_id is not None:
        repo.add_study_papers(conn, study_id, saved, now, paper_owner=owner)
    return out


def _keys(known: dict[str, str], new_keys: dict[str, str], keys: list[str], pid: str) -> None:
    """A paper's keys, as its insert or update stores them: those not stored yet."""
    for k in keys:
        if k not in known:
            known[k] = pid
            new_keys[k] = pid
