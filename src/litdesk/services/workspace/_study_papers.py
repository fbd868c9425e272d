"""Records a search found becoming a Study's papers: one code path for every source that
brings a search's hits — a whole search or an update round (``commit_whole``) and a search
run kept in a Study (the web's "Keep this search", ``litdesk search --study``, ``study add
--run``; runs kept before migration 0031 by the Study's reconcile).

:func:`take_papers` (inside the caller's write transaction): each record is inserted for the
owner with its identity keys when no stored key names it, linked when it matches one of the
owner's stored papers or one the Study holds (another member's), never duplicated; a paper
the Study held stays as it is. It says which papers are new to the Study, which it held
before (once each) and which of those changed or were retracted since.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import IntegrityError
from litdesk.adapters.store import Store, repo
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import study_records as records_store
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.records import Paper
from litdesk.core.runs import read_run
from litdesk.core.words import run_label

from ._results import IdentityConflict, SaveResult

if TYPE_CHECKING:
    from ._service import Workspace

__all__ = ["TakenPapers", "catch_up_kept_runs", "take_papers", "take_run_papers"]

#: the most hits a kept run's document holds (a stored run's own limit)
_RUN_HITS: Final = 5000


@dataclass(slots=True)
class TakenPapers:
    """What :func:`take_papers` did: the papers new to the Study (in order), the Study's
    papers the records were (once each), those changed or retracted since, the papers
    created for the owner and the records refused for an identity conflict."""

    added: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    changed: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    created: int = 0
    refused: int = 0


_COMPARED: Final = ("title", "year", "journal", "doi", "abstract", "retracted")


def _changed(old: Paper, new: Paper) -> bool:
    """A field a provider answers for differs (a missing value is no change)."""
    for name in _COMPARED:
        value = getattr(new, name, None)
        if value not in (None, "", ()) and value != getattr(old, name, None):
            return True
    return False


def _known_in_batch(
    conn: Connection,
    slow: Sequence[Paper],
    *,
    owner: str,
    study_id: str,
    before: set[str],
    in_study: Mapping[str, str],
    own: Mapping[str, str],
) -> list[tuple[str, Paper] | None] | None:
    """For each record of a batch the account or the Study may know already: the Study's
    record it is (the lowest id of those the Study held before the commit) and that record
    as stored, looked up for the whole batch in a few statements (``in_study``, ``own``:
    what :func:`repo.find_study_paper_ids` and :func:`repo.find_paper_ids` answer for the
    batch's keys now). ``None`` when two records of the batch share a key or a stored
    record: then saving one changes what the next one finds, and they are looked up one
    by one."""
    keys_of = [repo.identity_keys(p) for p in slow]
    seen_keys: set[str] = set()
    named: set[str] = set()
    held: list[str | None] = []
    for keys in keys_of:
        matches = {k: in_study[k] for k in keys if k in in_study}
        matches |= {k: own[k] for k in keys if k in own}
        ids = set(matches.values())
        if seen_keys.intersection(keys) or named & ids:
            return None
        seen_keys.update(keys)
        named |= ids
        first = sorted(pid for pid in ids if pid in before)
        held.append(first[0] if first else None)
    wanted = [pid for pid in held if pid is not None]
    olds = repo.get_papers(conn, wanted, viewer=owner, study_id=study_id) if wanted else {}
    out: list[tuple[str, Paper] | None] = []
    for pid in held:
        if pid is None:
            out.append(None)
        else:  # a record that cannot be read is refused as get_paper refuses it
            old = olds.get(pid) or repo.get_paper(conn, pid, viewer=owner, study_id=study_id).paper
            out.append((pid, old))
    return out


def take_papers(
    conn: Connection,
    ws: Workspace,
    papers: Sequence[Paper],
    *,
    study_id: str,
    before: set[str],
    now: str,
) -> TakenPapers:
    """Inside the caller's write transaction: each of ``papers`` saved as a paper of the
    Study for ``ws.owner`` — new ones inserted with their identity keys in a few statements, known ones linked
    (a paper the Study holds stays as it is); ``before``: the Study's papers before."""
    owner = ws.owner
    out = TakenPapers()
    added_set: set[str] = set()

    def first_sight(paper: Paper, held: tuple[str, Paper] | None) -> bool:
        """Note a record the Study held before (once: False when already seen)."""
        if held is None:
            return True
        pid, old = held
        if pid in out.seen:
            return False
        out.seen.add(pid)
        if paper.retracted and not old.retracted:
            out.retracted.append(old.id)
        elif _changed(old, paper):
            out.changed.append(old.id)
        return True

    def note_saved(held: tuple[str, Paper] | None, result: SaveResult) -> None:
        out.created += int(result.created)
        pid = result.paper.id
        if held is None and pid not in before and pid not in added_set:
            out.added.append(pid)
            added_set.add(pid)

    ws.lock_identities(conn)
    for at in range(0, len(papers), whole.HIT_BATCH):
        chunk = papers[at : at + whole.HIT_BATCH]
        keys_of = [repo.identity_keys(p) for p in chunk]
        flat = [k for keys in keys_of for k in keys]
        # the keys of the account's own records and of the records the Study holds
        # (another member's: the Study holds that paper already)
        own = repo.find_paper_ids(conn, flat, owner=owner)
        in_study = repo.find_study_paper_ids(conn, flat, study_id=study_id)
        stored = own.keys() | in_study.keys()
        fresh: list[tuple[str, dict[str, Any], list[str]]] = []
        slow: list[Paper] = []
        claimed: set[str] = set()
        for paper, keys in zip(chunk, keys_of, strict=True):
            if any(k in stored or k in claimed for k in keys):
                slow.append(paper)  # known, or sharing a key with a record of the batch
            else:
                fresh.append((paper.id, paper.to_dict(), keys))
                claimed.update(keys)
        whole.insert_new_papers(conn, fresh, owner=owner, study_id=study_id, now=now)
        out.added.extend(pid for pid, _doc, _keys in fresh)
        added_set.update(pid for pid, _doc, _keys in fresh)
        out.created += len(fresh)
        for pid, _doc, keys in fresh:  # their keys, as a lookup now finds them
            own.update(dict.fromkeys(keys, pid))
            in_study.update(dict.fromkeys(keys, pid))
        known_of = _known_in_batch(
            conn, slow, owner=owner, study_id=study_id, before=before, in_study=in_study, own=own
        )
        if known_of is not None:  # looked up for the whole batch, saved in a few statements
            slow_saves = [
                (paper, held)
                for paper, held in zip(slow, known_of, strict=True)
                if first_sight(paper, held)
            ]
            results = ws.save_many_in(conn, [p for p, _h in slow_saves], study_id=study_id)
            for (_paper, held), result in zip(slow_saves, results, strict=True):
                if isinstance(result, IdentityConflict):
                    out.refused += 1
                else:
                    note_saved(held, result)
        else:  # records of the batch share a key or a record: one by one
            for paper in slow:
                paper_keys = repo.identity_keys(paper)
                matches = repo.find_study_paper_ids(conn, paper_keys, study_id=study_id)
                matches |= repo.find_paper_ids(conn, paper_keys, owner=owner)
                ids = sorted({pid for pid in matches.values() if pid in before})
                held = None
                if ids:
                    if ids[0] in out.seen:
                        continue
                    old = repo.get_paper(conn, ids[0], viewer=owner, study_id=study_id).paper
                    held = (ids[0], old)
                    first_sight(paper, held)
                try:  # upserted and added to the Study (a paper it holds stays as it is)
                    result = ws.save_in(conn, paper, study_id=study_id)
                except IdentityConflict:
                    out.refused += 1
                    continue
                note_saved(held, result)
    return out


def take_run_papers(
    conn: Connection, ws: Workspace, papers: Sequence[Paper], *, study_id: str, run_id: str
) -> TakenPapers:
    """A run just linked to the Study (or kept before and caught up): its hits' papers
    taken as the Study's (:func:`take_papers`) and the link noted as done, in the caller's
    transaction. Keeping the same run again finds the link done and adds nothing."""
    now = datetime.now(UTC).isoformat()
    before = whole.study_paper_ids(conn, study_id)
    taken = take_papers(conn, ws, papers, study_id=study_id, before=before, now=now)
    repo.mark_run_papers(conn, study_id, run_id, at=now)
    return taken


def run_papers(conn: Connection, run_id: str) -> tuple[list[Paper], str]:
    """A stored (kept) run's hits' papers, in the run's order, and the run's label (a run
    that cannot be read is refused, naming it: nothing of the keep is written)."""
    try:
        run = read_run(records_store.run_document(conn, run_id), max_hits=_RUN_HITS)
    except IntegrityError as exc:
        raise IntegrityError(
            f"the search run {run_id[:80]} cannot be read: {exc.message}", code="run_unreadable"
        ) from None
    return [hit.paper for hit in run.hits], run_label(run.definition.query, run.executed_at)


def catch_up_kept_runs(conn: Connection, store: Store, study_id: str) -> list[str]:
    """Inside a write transaction: the hits of each run linked to the Study whose papers
    it does not hold yet (kept before migration 0031) taken as its papers, owned by the
    run's owner, each that added papers noted in the Study's history. The runs caught up."""
    from ._service import Workspace

    done: list[str] = []
    for run_id, owner in repo.runs_without_papers(conn, study_id):
        papers, label = run_papers(conn, run_id)
        ws = Workspace(store, owner=owner)
        taken = take_run_papers(conn, ws, papers, study_id=study_id, run_id=run_id)
        if not taken.added:  # the Study held them all already (a recovered ZIP's run)
            done.append(run_id)
            continue
        target = f"{label}: {len(taken.added):,} new of {len(papers):,} records (kept before)"
        access.add_history(
            conn, study_id, owner, "run_papers_added", target, datetime.now(UTC).isoformat()
        )
        done.append(run_id)
    return done
