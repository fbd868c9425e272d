"""The review page's rows, built from the stored run and the Study's history: each queued
pair with its decision in force, the run's summary, the history newest first with both
records described; and ``--explain``'s record references (``resolve_record``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import DedupEntry
from litdesk.core.words import plural

from ._job import DedupRun
from ._service import RecordRef

__all__ = [
    "MAX_HISTORY",
    "HistoryRow",
    "ReviewRun",
    "history_rows",
    "queue_rows",
    "resolve_record",
    "run_row",
]

#: The history list shows the newest entries, at most this many (the total counted).
MAX_HISTORY: Final = 500
_REF: Final = re.compile(r"^(?P<file>.+)#(?P<index>\d+)$")


def queue_rows(
    run: DedupRun, live: Mapping[tuple[str, str], DedupEntry]
) -> list[dict[str, object]]:
    """The run's queued pairs, each with its decision in force (or ``waiting``)."""
    out: list[dict[str, object]] = []
    for rp in run.queue:
        current = live.get(rp.keys)
        out.append(
            rp.body
            | {
                "state": current.decision if current else "waiting",
                "decision_seq": current.seq if current else None,
            }
        )
    return out


@dataclass(frozen=True, slots=True)
class ReviewRun:
    """A Study's latest run as the review page shows it."""

    id: str
    executed_at: str
    version: str
    counts: Mapping[str, int]
    #: the files (imports, searches) it read: ``{file, format, records}`` as stored
    files: Sequence[Mapping[str, Any]]
    #: files imported again that identified nothing new
    repeats_skipped: Sequence[str]
    #: pairs in the review queue as stored, and how many were uncertain in all
    queue_shown: int
    queue_total: int
    #: of the queued pairs: still waiting, and decided
    waiting: int
    decided: int
    #: issue 30: its "version of" links, as stored (both records described)
    versions: Sequence[Mapping[str, Any]] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "executed_at": self.executed_at,
            "version": self.version,
            "counts": self.counts,
            "files": self.files,
            "repeats_skipped": self.repeats_skipped,
            "queue_shown": self.queue_shown,
            "queue_total": self.queue_total,
            "waiting": self.waiting,
            "decided": self.decided,
            "versions": self.versions,
        }


def run_row(run: DedupRun, pairs: Sequence[Mapping[str, object]]) -> ReviewRun:
    """The run's summary as the page shows it (waiting and decided: over ``pairs``)."""
    waiting = sum(p["state"] == "waiting" for p in pairs)
    return ReviewRun(
        id=run.id,
        executed_at=run.executed_at,
        version=run.version,
        counts=run.counts,
        files=run.files,
        repeats_skipped=run.repeats,
        queue_shown=len(run.queue),
        queue_total=run.queued,
        waiting=waiting,
        decided=len(pairs) - waiting,
        versions=run.versions,
    )


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One entry of a Study's deduplication history as the review page lists it."""

    seq: int
    #: ``decision`` or ``run``
    kind: str
    #: ``merge``, ``distinct`` or ``undone`` (``None`` for a run)
    decision: str | None
    created_at: str
    by: str
    #: where it was made: ``web``, ``cli`` (a run: empty unless recorded)
    via: str
    #: one sentence: what was decided about which two records, or what a run found
    what: str
    #: the decision still holds (not withdrawn, not replaced)
    in_force: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "decision": self.decision,
            "created_at": self.created_at,
            "by": self.by,
            "via": self.via,
            "what": self.what,
            "in_force": self.in_force,
        }


def _describe(rec: Mapping[str, Any] | None, digest: str | None) -> str:
    if rec:
        where = f"{rec.get('file', '?')}#{rec.get('index', '?')}"
        title = str(rec.get("title") or "(no title)")[:120]
        return f"{title} ({where})"
    return f"record {(digest or '')[7:19]}…"


def _record(value: object) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def history_rows(
    entries: Sequence[DedupEntry],
    run: DedupRun | None,
    forced: Mapping[tuple[str, str], DedupEntry],
) -> list[HistoryRow]:
    """The newest :data:`MAX_HISTORY` entries, newest first: who, when, from where, what
    (both records described: from the entry, else from the latest run), still in force."""
    refs: dict[str, dict[str, Any]] = {}
    if run is not None:
        refs.update(run.refs)
        for rp in run.queue:
            refs.setdefault(rp.digests[0], rp.body["a"])
            refs.setdefault(rp.digests[1], rp.body["b"])
    live = {e.seq for e in forced.values()}
    by_seq = {e.seq: e for e in entries}
    out: list[HistoryRow] = []
    for e in reversed(entries[-MAX_HISTORY:]):
        who = str(e.data.get("by") or e.data.get("owner") or "—")[:80]
        if e.kind == "decision":
            a = _record(e.data.get("a")) or refs.get(e.a_digest or "")
            b = _record(e.data.get("b")) or refs.get(e.b_digest or "")
            pair = f"{_describe(a, e.a_digest)} ~ {_describe(b, e.b_digest)}"
            if e.decision == "undone":
                target = e.data.get("undoes")
                undone = by_seq.get(target) if isinstance(target, int) else None
                what = f"withdrew #{e.data.get('undoes')}"
                if undone is not None:
                    what += f" ({undone.decision})"
                what += f": {pair}"
            else:
                verb = "merged" if e.decision == "merge" else "kept separate"
                what = f"{verb}: {pair}"
        else:
            counts = e.data.get("counts", {})
            what = (
                f"run: {plural(e.data.get('records'), 'record')} → "
                f"{plural(counts.get('groups'), 'study', 'studies')}, "
                f"{plural(counts.get('review_pairs'), 'uncertain pair')}"
            )
        out.append(
            HistoryRow(
                seq=e.seq,
                kind=e.kind,
                decision=e.decision,
                created_at=e.created_at,
                by=who,
                via=str(e.data.get("via") or ("cli" if e.kind == "decision" else ""))[:20],
                what=what,
                in_force=e.seq in live,
            )
        )
    return out


def resolve_record(refs: Sequence[RecordRef], ref: str) -> int:
    """The position of the record named ``ref``: its own id in its file (``id_0000012``),
    ``FILE#N`` (0-based position N in the file named FILE, by name or path), or ``N``
    (0-based position among all records read)."""
    text = ref.strip()
    by_id = [i for i, r in enumerate(refs) if r.source_id == text]
    if len(by_id) == 1:
        return by_id[0]
    if len(by_id) > 1:
        raise InputError(
            f"record id {text[:60]!r} occurs in {len(by_id)} records: name it as FILE#N",
            code="ambiguous_ref",
        )
    m = _REF.match(text)
    if m:
        name, index = m.group("file"), int(m.group("index"))
        hits = [
            i
            for i, r in enumerate(refs)
            if r.index == index and (r.file == name or Path(r.file).name == name)
        ]
        if len(hits) == 1:
            return hits[0]
    elif text.isdigit() and int(text) < len(refs):
        return int(text)
    raise NotFoundError(
        f"no record {text[:60]!r} (give its id, FILE#N or N; {len(refs)} records read)",
        code="record_not_found",
    )
