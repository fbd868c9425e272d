"""A Study's whole screening history in its ZIP, and back into a recovered Study.

Out (``screening/history.csv``): every stored decision, undo and resolution of the Study in
the order they were made — the stage, the record (its key, and its study's DOI, PMID and
title to find it again), the reviewer by name (an account's user name, ``local`` for a
single-user workspace's user, or the name a decisions file gave; never an id or a secret),
the verdict, reason, note and time, and for an undo the event it takes back. Beside it
(``screening/review.json``) the Study's review mode: dual review and revealed per stage,
"maybe" a conflict, and the reviewers. A stage still blind to the exporting account (not
the Study's owner) carries only that account's own events, said in ``partial``.

In: the events are read whole and checked before anything is stored (a file that cannot
be read is refused with a typed error; a row that is wrong is skipped and counted), each
record found in the recovered Study as any decisions file finds it, and the events
appended in their order in one transaction with their original times. A reviewer whose
account exists here (a team server, by user name) gets their own decisions; the others
keep their name as the reviewer, recorded by the recovering account (the Study's history
says so); the single-user workspace's user is the recovering account. Reading is linear in
the file, within :data:`MAX_EVENTS` events and :data:`MAX_REVIEWERS` reviewers.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal, cast

from litdesk.adapters.store import LOCAL_OWNER, screening
from litdesk.adapters.store import accounts as access
from litdesk.core.dedup import normalize_title
from litdesk.core.records import normalize_doi, normalize_pmid
from litdesk.core.screening import (
    STAGES,
    VERDICTS,
    ImportedDecision,
    Stage,
    Verdict,
)

from ._exchange import RecordIndex
from ._parts import AreaParts
from ._requests import ConfigureRequest, ScreeningRequestError

__all__ = [
    "HISTORY_COLUMNS",
    "MAX_EVENTS",
    "MAX_REVIEWERS",
    "HistoryEvent",
    "HistoryFileError",
    "ReviewMode",
    "ZipHistoryView",
    "history_members",
    "read_history",
    "read_review",
    "record_history",
]

HISTORY_COLUMNS: Final = (
    "event", "stage", "kind", "record_key", "group_key", "doi", "pmid", "title", "reviewer",
    "reviewer_kind", "verdict", "reason", "note", "made_at", "undoes", "source",
)  # fmt: skip
#: events one history file may hold (a pair-screened Study of 2,000 records: ~10,000)
MAX_EVENTS: Final = 500_000
#: distinct reviewers one history file may name
MAX_REVIEWERS: Final = 1_000
#: the review mode's file, at most
MAX_REVIEW_BYTES: Final = 1_000_000
#: the longest cell read (a note is kept to 20,000 characters, as any decision's)
_MAX_CELL: Final = 100_000
#: a row with a longer cell is skipped (the store's columns; a kept name gets room for
#: " (recovered N)")
_LIMITS: Final = {"record_key": 200, "reviewer": 180, "reason": 500, "note": 20_000,
                  "made_at": 40}  # fmt: skip
#: identifiers longer than this are not used to find the record (the key still is)
_ID_LIMIT: Final = 4_000
_KINDS: Final = ("decision", "undo", "resolution")
#: how a record is named to find it (core's ``IdKind``)
IdKind = Literal["id", "doi", "pmid", "title"]
#: who a reviewer was in the exporting workspace
ReviewerKind = Literal["account", "local", "name"]
_REVIEWER_KINDS: Final = ("account", "local", "name")
#: events appended in one statement, at most
_BATCH: Final = 500
#: problems listed by line, at most (the rest are counted)
_LISTED: Final = 20
#: a cell a spreadsheet would read as a formula starts with one of these; such a cell (and
#: one starting with the escape itself) is written with a leading ``'``, read back without
_TRIGGERS: Final = ("=", "+", "-", "@", "\t", "\r", "'")


class HistoryFileError(ScreeningRequestError):
    """The ZIP's screening history (or its review mode) could not be read."""

    default_code = "bad_screening_history"


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    """One event of the file: its number, what was decided on which record, by whom."""

    line: int
    event: int
    stage: Stage
    kind: str
    record_key: str
    identifiers: tuple[tuple[IdKind, str], ...]
    reviewer: str
    reviewer_kind: ReviewerKind
    verdict: Verdict | None
    reason: str
    note: str
    made_at: str
    undoes: int | None


@dataclass(frozen=True, slots=True)
class ReviewMode:
    """The Study's review mode as the ZIP carries it."""

    dual_review: dict[Stage, bool]
    revealed: dict[Stage, bool]
    maybe_is_conflict: bool
    events: int
    partial: tuple[Stage, ...] = ()


@dataclass(frozen=True, slots=True)
class ZipHistoryView:
    """What recovery recorded of the history: events per stage, those whose record is not
    in the recovered Study, rows skipped (and the first few with their lines and why),
    and each reviewer: ``as`` ``account`` (their own account here), ``you`` (the recovering
    account) or ``name`` (no account here: their name kept, recorded by you)."""

    study_id: str
    stages: dict[str, dict[str, int]]
    reviewers: tuple[dict[str, object], ...]
    events: int
    recorded: int
    unmatched: int
    skipped: int
    problems: tuple[dict[str, object], ...]
    review: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "stages": {k: dict(v) for k, v in self.stages.items()},
            "reviewers": [dict(r) for r in self.reviewers],
            "events": self.events,
            "recorded": self.recorded,
            "unmatched": self.unmatched,
            "skipped": self.skipped,
            "problems": [dict(p) for p in self.problems],
            "review": dict(self.review),
        }


# -- out ---------------------------------------------------------------------------------------


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_TRIGGERS) else text


def history_members(area: AreaParts, study: str, owner: str) -> dict[str, bytes]:
    """The Study's ``history`` (CSV) and ``review`` (JSON) members; none when it has no
    decision."""
    ctx = area._ctx(study, owner)
    if not ctx.rows:
        return {}
    hidden = {s for s in STAGES if ctx.config.blind(s) and ctx.role != "owner"}
    rows = [r for r in ctx.rows if r.stage not in hidden or r.reviewer == owner]
    ids = {r.reviewer for r in rows} - {LOCAL_OWNER}
    with area.store.read() as conn:
        names = access.account_names(conn, ids)
    event_of: dict[int, int] = {}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(HISTORY_COLUMNS)
    reviewers: dict[tuple[str, str], int] = {}
    for n, row in enumerate(rows, start=1):
        event_of[row.id] = n
        group = ctx.screen.group(row.record_key)
        paper = group.paper if group is not None else None
        if row.reviewer == LOCAL_OWNER:
            who, kind = LOCAL_OWNER, "local"
        elif row.reviewer in names:
            who, kind = names[row.reviewer], "account"
        else:
            who, kind = row.reviewer, "name"
        reviewers[(who, kind)] = reviewers.get((who, kind), 0) + 1
        undoes = event_of.get(row.undoes) if row.undoes is not None else None
        writer.writerow(
            [
                n, row.stage, row.kind, _cell(row.record_key),
                _cell(group.key if group is not None else row.record_key),
                _cell(paper.doi if paper and paper.doi else ""),
                _cell(paper.pmid if paper and paper.pmid else ""),
                _cell(paper.title if paper else ""),
                _cell(who), kind, row.verdict or "", _cell(row.reason), _cell(row.note),
                row.made_at, "" if undoes is None else undoes, _cell(row.source),
            ]
        )  # fmt: skip
    config = ctx.config
    review = {
        "format": "litdesk-screening-history",
        "version": 1,
        "dual_review": {s: config.dual_review[s] for s in STAGES},
        "revealed": {s: config.revealed[s] for s in STAGES},
        "maybe_is_conflict": config.maybe_is_conflict,
        "events": len(rows),
        "partial": sorted(hidden),
        "reviewers": [
            {"name": who, "kind": kind, "events": n} for (who, kind), n in reviewers.items()
        ],
    }
    return {
        "history": buf.getvalue().encode("utf-8"),
        "review": json.dumps(review, ensure_ascii=False, indent=1).encode("utf-8"),
    }


# -- in ----------------------------------------------------------------------------------------


def _flags(value: object, what: str) -> dict[Stage, bool]:
    if not isinstance(value, dict):
        raise HistoryFileError(f"the review mode's {what} is not an object")
    out: dict[Stage, bool] = {}
    for s in STAGES:
        flag = value.get(s, False)
        if not isinstance(flag, bool):
            raise HistoryFileError(f"the review mode's {what} at {s} is not true or false")
        out[s] = flag
    return out


def read_review(body: bytes) -> ReviewMode:
    """The ZIP's review mode (``screening/review.json``), checked."""
    if len(body) > MAX_REVIEW_BYTES:
        raise HistoryFileError(
            f"the review mode is larger than {MAX_REVIEW_BYTES:,} bytes", code="too_large"
        )
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise HistoryFileError(f"the review mode could not be read: {str(exc)[:120]}") from None
    if not isinstance(data, dict) or data.get("format") != "litdesk-screening-history":
        raise HistoryFileError("the review mode is not litdesk's screening history")
    if data.get("version") != 1:
        raise HistoryFileError(
            f"the screening history's version {str(data.get('version'))[:20]!r} is not one "
            "this litdesk reads (1)",
            code="unsupported_version",
        )
    events = data.get("events")
    conflict = data.get("maybe_is_conflict", False)
    partial = data.get("partial", [])
    if not isinstance(events, int) or isinstance(events, bool) or not 0 <= events <= MAX_EVENTS:
        raise HistoryFileError(f"the review mode's event count is not 0 to {MAX_EVENTS:,}")
    if not isinstance(conflict, bool):
        raise HistoryFileError("the review mode's maybe_is_conflict is not true or false")
    if not isinstance(partial, list) or any(p not in STAGES for p in partial):
        raise HistoryFileError("the review mode's partial stages are not stages")
    return ReviewMode(
        _flags(data.get("dual_review"), "dual review"),
        _flags(data.get("revealed"), "revealed"),
        conflict,
        events,
        tuple(cast("Stage", p) for p in dict.fromkeys(partial)),
    )


def _text(value: str) -> str:
    return value[1:] if value.startswith("'") else value


def _event(row: dict[str, str], line: int, seen: set[int]) -> HistoryEvent | str:
    """One row as an event, or why it is skipped."""
    for name, limit in _LIMITS.items():
        if len(row.get(name) or "") > limit + 1:  # +1: the escape
            return f"{name} is longer than {limit:,} characters"
    try:
        number = int(row.get("event") or "")
    except ValueError:
        return "no event number"
    if number in seen:
        return f"event {number} appears twice"
    stage, kind = row.get("stage") or "", row.get("kind") or ""
    if stage not in STAGES:
        return f"stage {stage[:30]!r} is not one of {', '.join(STAGES)}"
    if kind not in _KINDS:
        return f"kind {kind[:30]!r} is not one of {', '.join(_KINDS)}"
    record, reviewer = _text(row.get("record_key") or ""), _text(row.get("reviewer") or "")
    reviewer_kind = row.get("reviewer_kind") or ""
    if not record.strip() or not reviewer.strip():
        return "an event needs a record and a reviewer"
    if reviewer_kind not in _REVIEWER_KINDS:
        return f"reviewer kind {reviewer_kind[:30]!r} is not one of {', '.join(_REVIEWER_KINDS)}"
    verdict_text = row.get("verdict") or ""
    undoes: int | None = None
    verdict: Verdict | None = None
    if kind == "undo":
        try:
            undoes = int(row.get("undoes") or "")
        except ValueError:
            return "an undo names the event it takes back"
        if undoes not in seen:
            return f"the undo takes back event {undoes}, which is not an earlier event"
        if verdict_text:
            return "an undo has no verdict"
    else:
        if verdict_text not in VERDICTS:
            return f"verdict {verdict_text[:30]!r} is not one of {', '.join(VERDICTS)}"
        verdict = verdict_text
    made_at = row.get("made_at") or ""
    try:
        datetime.fromisoformat(made_at)
    except ValueError:
        return f"time {made_at[:40]!r} is not an ISO 8601 time"
    ids: list[tuple[IdKind, str]] = []
    doi, pmid, title = (_text(row.get(k) or "")[:_ID_LIMIT] for k in ("doi", "pmid", "title"))
    if doi := normalize_doi(doi) or "":
        ids.append(("doi", doi))
    if pmid := normalize_pmid(pmid) or "":
        ids.append(("pmid", pmid))
    ids.append(("id", record))
    if title := normalize_title(title):
        ids.append(("title", title))
    return HistoryEvent(
        line, number, stage, kind, record, tuple(ids), reviewer,
        cast("ReviewerKind", reviewer_kind), verdict, _text(row.get("reason") or ""),
        _text(row.get("note") or ""), made_at, undoes,
    )  # fmt: skip


def read_history(body: bytes) -> tuple[list[HistoryEvent], list[tuple[int, str]]]:
    """The events of ``screening/history.csv`` in their order, and the rows skipped (line,
    why). A file that is not the history (not UTF-8, not its columns, a cell or the
    event count past its limit, a CSV that cannot be read) is refused whole."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HistoryFileError(f"the screening history is not UTF-8 ({exc.reason})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    events: list[HistoryEvent] = []
    skipped: list[tuple[int, str]] = []
    seen: set[int] = set()
    try:  # csv's own cell limit (128 KiB) is process-wide: left as it is, checked here
        header = next(reader, None)
        if header is None or tuple(header[: len(HISTORY_COLUMNS)]) != HISTORY_COLUMNS:
            raise HistoryFileError("the screening history does not have its columns")
        for cells in reader:
            line = reader.line_num
            if len(events) + len(skipped) >= MAX_EVENTS:
                raise HistoryFileError(
                    f"the screening history holds more than {MAX_EVENTS:,} events",
                    code="too_many_events",
                )
            if not any(cells):
                continue
            if any(len(c) > _MAX_CELL for c in cells):
                raise HistoryFileError(
                    f"the screening history has a cell over {_MAX_CELL:,} characters "
                    f"near line {line}"
                )
            made = _event(dict(zip(HISTORY_COLUMNS, cells, strict=False)), line, seen)
            if isinstance(made, str):
                skipped.append((line, made))
                continue
            seen.add(made.event)
            events.append(made)
    except csv.Error as exc:
        raise HistoryFileError(
            f"the screening history could not be read near line {reader.line_num}: {str(exc)[:120]}"
        ) from None
    names = {(e.reviewer, e.reviewer_kind) for e in events}
    if len(names) > MAX_REVIEWERS:
        raise HistoryFileError(
            f"the screening history names more than {MAX_REVIEWERS:,} reviewers",
            code="too_many_reviewers",
        )
    return events, skipped


def _reviewers(
    area: AreaParts, names: Iterable[tuple[str, ReviewerKind]], owner: str
) -> dict[tuple[str, ReviewerKind], tuple[str, str]]:
    """Each (name, kind) of the file → (the reviewer to record, ``account`` / ``you`` /
    ``name``). A team server's accounts are found by user name; a name kept is never an
    account's id nor the recovering account's (it gets ``(recovered)``), and two kept
    names never fall together."""
    team = owner != LOCAL_OWNER
    out: dict[tuple[str, ReviewerKind], tuple[str, str]] = {}
    wanted = list(dict.fromkeys(names))
    with area.store.read() as conn:
        ids = access.account_names(conn, [n for n, _ in wanted])  # names that are ids here
        for name, kind in wanted:
            if kind == "local":
                out[(name, kind)] = (owner, "you")
            elif kind == "account" and team and (found := access.find_account(conn, name)):
                out[(name, kind)] = (found.id, "you" if found.id == owner else "account")
    taken = {who for who, _ in out.values()} | {owner, LOCAL_OWNER} | set(ids)
    for name, kind in wanted:
        if (name, kind) in out:
            continue
        kept, n = name, 1
        while kept in taken:
            n += 1
            kept = f"{name} (recovered{'' if n == 2 else f' {n - 1}'})"
        taken.add(kept)
        out[(name, kind)] = (kept, "name")
    return out


def _matched(events: Sequence[HistoryEvent], index: RecordIndex) -> dict[str, str | None]:
    """Each record key of the file → the recovered Study's member record (``None``: no
    record of the Study is it), looked up once per key."""
    out: dict[str, str | None] = {}
    for e in events:
        if e.record_key in out:
            continue
        found = index.find(ImportedDecision(e.line, e.identifiers, "include"))
        out[e.record_key] = None if isinstance(found, str) else found[1]
    return out


def record_history(
    area: AreaParts, study: str, members: Mapping[str, bytes], owner: str
) -> ZipHistoryView:
    """Record the ZIP's history and review mode into ``study`` (its owner; a Study with
    no decision yet): everything is read and checked first, then appended in one
    transaction; the review mode is set after."""
    review = read_review(members["review"])
    events, skipped = read_history(members["history"])
    with area.store.read() as conn:
        row, _ = area._study(conn, study, owner, "owner")
        if screening.count_decisions(conn, row.id)[0]:
            raise ScreeningRequestError(
                "the Study has decisions already: a ZIP's history is recorded into a Study "
                "recovered from it only",
                code="has_decisions",
            )
    who = _reviewers(area, ((e.reviewer, e.reviewer_kind) for e in events), owner)
    area.cache.screen_set(row.id, reconcile=True)  # before the write: a write of its own
    stages: dict[str, dict[str, int]] = {}
    counts: dict[tuple[str, ReviewerKind], int] = {}
    deciders: dict[str, set[str]] = {}  # stage → its reviewers (their own models, if blind)
    unmatched = recorded = 0
    with area.store.write() as conn:
        area._study(conn, study, owner, "owner")
        area.store.lock(conn, screening.SCREENING_LOCK, row.id)
        if screening.count_decisions(conn, row.id)[0]:
            raise ScreeningRequestError("the Study has decisions already", code="has_decisions")
        screen = area.cache.screen_set(row.id)
        record_of = _matched(events, RecordIndex(screen.groups))
        id_of: dict[int, int] = {}
        pending: list[tuple[int, dict[str, object]]] = []  # (event, row): appended in batches

        def flush() -> None:
            ids = screening.add_decisions(conn, row.id, [r for _, r in pending])
            id_of.update((event, new) for (event, _), new in zip(pending, ids, strict=True))
            pending.clear()

        for e in events:
            if e.undoes is not None and e.undoes not in id_of and pending:
                flush()  # what it takes back is in the batch: its id first
            record = record_of[e.record_key]
            undoes = id_of.get(e.undoes) if e.undoes is not None else None
            stage = stages.setdefault(e.stage, {"recorded": 0, "unmatched": 0})
            if record is None or (e.undoes is not None and undoes is None):
                unmatched += 1  # its record is not in the Study (or what it undoes is not)
                stage["unmatched"] += 1
                continue
            reviewer, _ = who[(e.reviewer, e.reviewer_kind)]
            pending.append(
                (e.event, {"record_key": record, "stage": e.stage, "reviewer": reviewer,
                           "kind": e.kind, "verdict": e.verdict, "reason": e.reason,
                           "note": e.note, "source": "zip", "made_at": e.made_at,
                           "undoes": undoes})
            )  # fmt: skip
            if len(pending) >= _BATCH:
                flush()
            recorded += 1
            key = (e.reviewer, e.reviewer_kind)
            counts[key] = counts.get(key, 0) + 1
            stage["recorded"] += 1
            deciders.setdefault(e.stage, set()).add(reviewer)
        if pending:
            flush()
        now = area._now()
        if recorded:
            access.add_history(conn, row.id, owner, "screening_recovered", None, now)
        config, _ = area._config(conn, row.id)  # the review mode, in the same transaction
        dual: dict[str, bool] = {s: v for s, v in review.dual_review.items()}
        shown: dict[str, bool] = {s: v for s, v in review.revealed.items()}
        mode = config.changed(
            ConfigureRequest(
                row.id, dual_review=dual, revealed=shown,
                maybe_is_conflict=review.maybe_is_conflict,
            )
        )  # fmt: skip
        screening.put_settings(conn, row.id, mode.to_json(), by=owner, now=now)
        access.add_history(conn, row.id, owner, "screening_configured", None, now)
    for s in stages:
        area._after_decision(row.id, cast("Stage", s), deciders.get(s, ()))
    reviewers = tuple(
        {
            "name": name,
            "kind": kind,
            "as": how,
            "reviewer": kept,
            "events": counts.get((name, kind), 0),
        }  # fmt: skip
        for (name, kind), (kept, how) in who.items()
    )
    return ZipHistoryView(
        row.id, stages, reviewers, len(events) + len(skipped), recorded, unmatched,
        len(skipped), tuple({"line": n, "reason": why} for n, why in skipped[:_LISTED]),
        {"dual_review": dict(review.dual_review), "revealed": dict(review.revealed),
         "maybe_is_conflict": review.maybe_is_conflict, "partial": list(review.partial)},
    )  # fmt: skip
