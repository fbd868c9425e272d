"""A Study's deduplication history in the store: reviewer decisions (append-only, the
newest entry for a pair wins, an ``undone`` entry withdraws it) and run summaries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from litdesk._errors import NotFoundError, RefusedError
from litdesk.adapters.store import (
    LOCAL_OWNER,
    DedupEntry,
    DedupPairRow,
    Store,
    add_dedup_entry,
    add_dedup_run,
    dedup_run_exists,
    list_dedup_entries,
    repo,
    study_records,
)
from litdesk.core.dedup import Decision

from ._service import DedupReport

__all__ = ["in_force", "record_report", "study_decisions", "study_history", "undo_decision"]

#: at most this many version links are kept in a run's summary
_MAX_VERSIONS: Final = 2000
#: the store lock that serialises the recording of one Study's runs
_RUN_LOCK: Final = 1909102053
#: the store lock that serialises withdrawals of one Study's decisions
_UNDO_LOCK: Final = 1909102054


def _now() -> str:
    from litdesk.services.workspace import now_iso

    return now_iso()


def study_history(store: Store, study: str, *, owner: str = LOCAL_OWNER) -> list[DedupEntry]:
    """Every entry of the Study's deduplication history, oldest first (``study``: an id, or
    a name as ``owner`` sees them)."""
    with store.read() as conn:
        study_id = repo.get_study(conn, study, account=owner).id
        return list_dedup_entries(conn, study_id)


def in_force(entries: Sequence[DedupEntry]) -> dict[tuple[str, str], DedupEntry]:
    """The decision entry in force per pair, from a history oldest first: the newest
    ``merge``/``distinct`` entry of the pair, unless an ``undone`` entry came after it."""
    current: dict[tuple[str, str], DedupEntry] = {}
    for entry in entries:
        if entry.kind != "decision" or not entry.a_digest or not entry.b_digest:
            continue
        key = (entry.a_digest, entry.b_digest)
        if entry.decision == "undone":
            current.pop(key, None)
        elif entry.decision in ("merge", "distinct"):
            current[key] = entry
    return current


def study_decisions(
    store: Store, study: str, *, owner: str = LOCAL_OWNER
) -> dict[tuple[str, str], Decision]:
    """The reviewer decisions in force: the newest entry per pair, withdrawn ones left out."""
    return {
        key: "merge" if entry.decision == "merge" else "distinct"
        for key, entry in in_force(study_history(store, study, owner=owner)).items()
    }


def record_report(
    store: Store,
    study: str,
    report: DedupReport,
    *,
    before: Mapping[tuple[str, str], Decision],
    owner: str = LOCAL_OWNER,
    run_id: str | None = None,
    run_data: dict[str, Any] | None = None,
    run_pairs: Sequence[DedupPairRow] = (),
    groups: Sequence[tuple[str, str | None, str | None]] = (),
) -> int:
    """Append the decisions made in this run (those not already in force) and a run
    summary (version, rules, counts, source files); returns how many decisions were new.

    ``run_id`` (a web run: its job's id) records the run at most once: when a run of that
    id is already stored nothing is written (and 0 is returned) (a job claimed again
    after its worker died). ``run_data`` and ``run_pairs`` (the review page's data and
    queue) are stored with the summary, in the same transaction, and so are ``groups`` (a
    run over the Study's records: each record's ``(key, group, rule)`` in its working set)."""
    now = _now()
    new = {k: v for k, v in report.decisions.items() if before.get(k) != v}
    sources = sorted({(r.file, r.digest) for r in report.refs})
    with store.write() as conn:
        study_id = repo.get_study(conn, study, account=owner).id
        if run_id is not None:
            store.lock(conn, _RUN_LOCK, study_id)
            if dedup_run_exists(conn, run_id):
                return 0
        for (a, b), decision in sorted(new.items()):
            add_dedup_entry(
                conn, study_id, "decision", {"by": "reviewer"}, now,
                a_digest=a, b_digest=b, decision=decision,
            )  # fmt: skip
        summary: dict[str, Any] = {
            "version": report.result.version,
            "counts": report.result.counts,
            "files": sorted({f for f, _ in sources}),
            "records": len(report.refs),
            "new_decisions": len(new),
            "owner": owner,
            # issue 30: the "version of" links of this run, by the records' digests
            "versions": [
                {
                    "relation": v.relation,
                    "primary": report.refs[v.primary].digest,
                    "version": report.refs[v.version].digest,
                }
                for v in report.result.versions[:_MAX_VERSIONS]
            ],
        }
        if run_id is not None:
            summary["run"] = run_id
        add_dedup_entry(conn, study_id, "run", summary, now)
        if run_id is not None:
            add_dedup_run(conn, run_id, study_id, owner, run_data or {}, run_pairs)
        study_records.set_groups(conn, study_id, groups)
    return len(new)


def undo_decision(
    store: Store,
    study: str,
    seq: int,
    *,
    by: str | None = None,
    via: str | None = None,
    owner: str = LOCAL_OWNER,
) -> DedupEntry:
    """Withdraw the decision entry ``seq`` (appends an ``undone`` entry; nothing is erased).
    ``by`` and ``via`` (who withdrew it, from which face) are kept in the entry when given.

    Only a decision still in force can be withdrawn: withdrawing an older decision of a
    pair would otherwise take back the newer one in force (the ``undone`` entry withdraws
    the pair's current decision), and withdrawing twice would record nothing real. The check
    and the entry are one transaction, serialised per Study, so two concurrent withdrawals
    of one decision record one entry and refuse the other."""
    now = _now()
    data: dict[str, Any] = {"undoes": seq}
    data |= {k: v for k, v in (("by", by), ("via", via)) if v is not None}
    with store.write() as conn:
        study_id = repo.get_study(conn, study, account=owner).id
        store.lock(conn, _UNDO_LOCK, study_id)
        entries = list_dedup_entries(conn, study_id)
        live = {e.seq: e for e in in_force(entries).values()}
        target = live.get(seq)
        if target is None or not target.a_digest or not target.b_digest:
            if any(e.seq == seq and e.kind == "decision" for e in entries):
                raise RefusedError(
                    f"decision #{seq} is no longer in force (withdrawn or replaced); "
                    "only a decision in force can be withdrawn",
                    code="not_in_force",
                )
            raise NotFoundError(
                f"no decision #{seq} in the deduplication history of {study!r}",
                code="no_decision",
            )
        new_seq = add_dedup_entry(
            conn, study_id, "decision", data, now,
            a_digest=target.a_digest, b_digest=target.b_digest, decision="undone",
        )  # fmt: skip
    return DedupEntry(new_seq, "decision", target.a_digest, target.b_digest, "undone", data, now)
