"""A whole search in a Study ZIP (issue 27, zipfix): its hits (each the run hit's
document: the record, its lanes and ranks) and its round are a member
``search-runs/<id>.hits.json`` beside the run; recovery validates them as a stored run's
and re-creates the run, its hits and its round under the importer with a fresh id."""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import IntegrityError
from litdesk.adapters.store import whole_searches
from litdesk.core.runs import read_run

from ._archive import MAX_ZIP_HITS

__all__ = ["read_whole", "store_whole"]

_ROUND_KINDS: Final = frozenset({"search", "update"})


def read_whole(doc: dict[str, Any], data: object) -> dict[str, Any]:
    """A whole search's hits and round, checked: its hits read with the run as one run
    document (every record, lane and rank validated as a stored run's), its round's
    numbers bounded. Returns the hit rows to store and the round."""
    if not isinstance(data, dict) or data.get("version") != 1 or data.get("run_id") != doc["id"]:
        raise IntegrityError("its hits are not a version 1 document of this run")
    hits, rnd = data.get("hits"), data.get("round")
    if not isinstance(hits, list) or not isinstance(rnd, dict):
        raise IntegrityError("its hits or round are missing")
    if len(hits) > MAX_ZIP_HITS:
        raise IntegrityError(f"{len(hits):,} hits, over {MAX_ZIP_HITS:,}")
    number, kind, cap, created = (rnd.get(k) for k in ("round", "kind", "cap", "created_at"))
    report = rnd.get("report")
    if (
        not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= 1_000_000
        or kind not in _ROUND_KINDS
        or not isinstance(cap, int) or isinstance(cap, bool) or not 1 <= cap <= MAX_ZIP_HITS
        or not isinstance(created, str) or not 0 < len(created) <= 40
        or not (report is None or isinstance(report, dict))
    ):  # fmt: skip
        raise IntegrityError("its round is malformed")
    run = read_run(doc["run"] | {"hits": hits}, max_hits=MAX_ZIP_HITS)
    rows = []
    for position, hit in enumerate(run.hits):
        if not hit.contributions:
            raise IntegrityError(f"hit {position} names no lane")
        first = min(hit.contributions, key=lambda c: c.rank)
        rows.append(
            whole_searches.WholeHitRow(
                position, first.lane, first.provider, first.rank, hit.paper.id,
                hit.to_dict(),
            )
        )  # fmt: skip
    return {"hits": rows, "round": int(number), "kind": kind, "cap": cap,
            "created_at": created, "report": report}  # fmt: skip


def store_whole(
    conn: Connection,
    doc: dict[str, Any],
    run_id: str,
    study_id: str,
    owner: str,
    remap: dict[str, str],
) -> None:
    """Inside the import's transaction: the whole search ``doc`` (read by
    :func:`read_whole`) as run ``run_id`` of ``study_id``, by ``owner``; its report's new
    records named by their recovered ids (those the ZIP carries)."""
    got = doc["whole"]
    report = got["report"]
    if report is not None and isinstance(report.get("new_ids"), list):
        report = report | {"new_ids": [remap[i] for i in report["new_ids"] if i in remap]}
    whole_searches.insert_whole_run(
        conn, run_id=run_id, owner=owner, definition=doc["definition"],
        run=doc["run"] | {"id": run_id}, executed_at=doc["executed_at"], hits=got["hits"],
        study_id=study_id, round_no=got["round"], kind=got["kind"], cap=got["cap"],
        job_id=None, by=owner, now=got["created_at"], report=report,
    )  # fmt: skip
