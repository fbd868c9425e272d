"""A Study's deduplication history in the store: reviewer decisions (append-only, the
newest entry for a pair wins, an ``undone`` entry withdraws it) and run summaries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litdesk._errors import NotFoundError
from litdesk.adapters.store import (
    LOCAL_OWNER,
    DedupEntry,
    Store,
    add_dedup_entry,
    list_dedup_entries,
    repo,
)
from litdesk.core.dedup import Decision

from ._service import DedupReport

__all__ = ["record_report", "study_decisions", "study_history", "undo_decision"]


def _now() -> str:
    from litdesk.services.workspace import now_iso

    return now_iso()


def study_history(store: Store, study: str, *, owner: str = LOCAL_OWNER) -> list[DedupEntry]:
    """Every entry of the Study's deduplication history, oldest first (``study``: an id, or
    a name as ``owner`` sees them)."""
    with store.read() as conn:
        study_id = repo.get_study(conn, study, account=owner).id
        return list_dedup_entries(conn, study_id)


def study_decisions(
    store: Store, study: str, *, owner: str = LOCAL_OWNER
) -> dict[tuple[str, str], Decision]:
    """The reviewer decisions in force: the newest entry per pair, withdrawn ones left out."""
    current: dict[tuple[str, str], Decision] = {}
    for entry in study_history(store, study, owner=owner):
        if entry.kind != "decision" or not entry.a_digest or not entry.b_digest:
            continue
        key = (entry.a_digest, entry.b_digest)
        if entry.decision == "undone":
            current.pop(key, None)
        elif entry.decision in ("merge", "distinct"):
            current[key] = "merge" if entry.decision == "merge" else "distinct"
    return current


def record_report(
    store: Store,
    study: str,
    report: DedupReport,
    *,
    before: Mapping[tuple[str, str], Decision],
    owner: str = LOCAL_OWNER,
) -> int:
    """Append the decisions made in this run (those not already in force) and a run
    summary (version, rules, counts, source files); returns how many decisions were new."""
    now = _now()
    new = {k: v for k, v in report.decisions.items() if before.get(k) != v}
    sources = sorted({(r.file, r.digest) for r in report.refs})
    with store.write() as conn:
        study_id = repo.get_study(conn, study, account=owner).id
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
        }
        add_dedup_entry(conn, study_id, "run", summary, now)
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
    ``by`` and ``via`` (who withdrew it, from which face) are kept in the entry when given."""
    entries = study_history(store, study, owner=owner)
    target = next((e for e in entries if e.seq == seq and e.kind == "decision"), None)
    if target is None or not target.a_digest or not target.b_digest:
        raise NotFoundError(f"no decision #{seq} in the deduplication history of {study!r}")
    now = _now()
    data: dict[str, Any] = {"undoes": seq}
    data |= {k: v for k, v in (("by", by), ("via", via)) if v is not None}
    with store.write() as conn:
        study_id = repo.get_study(conn, study, account=owner).id
        new_seq = add_dedup_entry(
            conn, study_id, "decision", data, now,
            a_digest=target.a_digest, b_digest=target.b_digest, decision="undone",
        )  # fmt: skip
    return DedupEntry(new_seq, "decision", target.a_digest, target.b_digest, "undone", data, now)
