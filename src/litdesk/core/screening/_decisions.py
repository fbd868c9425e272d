"""Screening decisions as an append-only history, and what it says now.

Every act is an entry, never edited or removed:

* ``decide`` — a reviewer's own include / exclude / maybe on a record at a stage, with an
  optional reason and note; a later ``decide`` by the same reviewer on the same record and
  stage *supersedes* it (the earlier one stays in the history);
* ``resolve`` — the decision that settles a conflict (by a third reviewer or by the pair); it
  outranks the reviewers' own decisions and leaves them in the history;
* ``undo`` — takes back one current ``decide`` or ``resolve`` entry (its ``undoes``): the
  entry it superseded, if any, is current again.

At full text an exclusion needs a reason (PRISMA counts the excluded reports by reason).

Blind pairs: with ``reviewers_required = 2`` a record is settled at a stage when two
reviewers' current decisions agree; include against exclude is a conflict, and "maybe"
against either is one only when the policy says so (``maybe_conflicts``), and so are two
exclusions giving different reasons (``reason_conflicts``, the Study's full text). A pair that does
not conflict but differs (one "maybe") is settled as "maybe": the record goes on to full
text, the cautious reading. A current ``resolve`` entry settles a record whatever the pair
said.

The history replays in one pass (linear in the entries); the replay is cached until the
next append.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from ._errors import ScreeningInputError

__all__ = [
    "ENTRY_KINDS",
    "STAGES",
    "VERDICTS",
    "ConflictPolicy",
    "Decision",
    "DecisionHistory",
    "DecisionInputError",
    "EntryKind",
    "EntryStatus",
    "Outcome",
    "Stage",
    "Verdict",
]

Verdict = Literal["include", "exclude", "maybe"]
Stage = Literal["title_abstract", "full_text"]
EntryKind = Literal["decide", "resolve", "undo"]
EntryStatus = Literal["current", "superseded", "undone", "undo"]
OutcomeStatus = Literal["undecided", "pending", "conflict", "agreed", "resolved"]

VERDICTS: tuple[Verdict, ...] = ("include", "exclude", "maybe")
STAGES: tuple[Stage, ...] = ("title_abstract", "full_text")
ENTRY_KINDS: tuple[EntryKind, ...] = ("decide", "resolve", "undo")

#: longest identifier, reviewer name and reason; longest note (characters)
MAX_NAME = 500
MAX_NOTE = 20_000


class DecisionInputError(ScreeningInputError):
    """A decision is malformed: unknown verdict or stage, a full-text exclusion without a
    reason, an undo of something that is not current."""

    default_code = "bad_decision"


@dataclass(frozen=True, slots=True)
class Decision:
    """One entry of the history. ``seq`` is its 0-based position (given by the history)."""

    seq: int
    kind: EntryKind
    record: str
    reviewer: str
    stage: Stage
    at: datetime
    verdict: Verdict | None = None  # None only for an undo
    reason: str = ""
    note: str = ""
    undoes: int | None = None  # the seq an undo takes back

    def __post_init__(self) -> None:
        if self.kind not in ENTRY_KINDS:
            raise DecisionInputError(f"unknown entry kind {self.kind!r}", code="bad_kind")
        if self.stage not in STAGES:
            raise DecisionInputError(
                f"stage must be one of {', '.join(STAGES)}, not {self.stage!r}", code="bad_stage"
            )
        for name, value, limit in (
            ("record", self.record, MAX_NAME),
            ("reviewer", self.reviewer, MAX_NAME),
            ("reason", self.reason, MAX_NAME),
            ("note", self.note, MAX_NOTE),
        ):
            if len(value) > limit:
                raise DecisionInputError(
                    f"{name} is longer than {limit:,} characters", code="too_long"
                )
        if not self.record.strip() or not self.reviewer.strip():
            raise DecisionInputError("a decision needs a record and a reviewer", code="missing")
        if self.kind == "undo":
            if self.undoes is None or self.verdict is not None:
                raise DecisionInputError(
                    "an undo names the entry it takes back and has no verdict", code="bad_undo"
                )
            return
        if self.verdict not in VERDICTS:
            raise DecisionInputError(
                f"verdict must be one of {', '.join(VERDICTS)}, not {self.verdict!r}",
                code="bad_verdict",
            )
        if self.undoes is not None:
            raise DecisionInputError("only an undo names an entry to take back", code="bad_undo")
        if self.stage == "full_text" and self.verdict == "exclude" and not self.reason.strip():
            raise DecisionInputError(
                f"excluding record {self.record!r} at full text needs a reason",
                code="reason_required",
            )

    def to_dict(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "record": self.record,
            "reviewer": self.reviewer,
            "stage": self.stage,
            "verdict": self.verdict,
            "reason": self.reason,
            "note": self.note,
            "at": self.at.isoformat(),
            "undoes": self.undoes,
        }


@dataclass(frozen=True, slots=True)
class ConflictPolicy:
    """How many independent reviewers a record needs per stage, whether "maybe" against
    include or exclude is a conflict, and whether exclusions giving different reasons are."""

    reviewers_required: int = 1
    maybe_conflicts: bool = False
    #: two exclusions with different reasons conflict (full text: PRISMA counts each
    #: excluded report under one reason, which the pair must agree on)
    reason_conflicts: bool = False

    def __post_init__(self) -> None:
        if self.reviewers_required not in (1, 2):
            raise DecisionInputError(
                "a record needs 1 or 2 independent reviewers", code="bad_policy"
            )

    def conflict(self, verdicts: Iterable[Verdict]) -> bool:
        seen = set(verdicts)
        if {"include", "exclude"} <= seen:
            return True
        return self.maybe_conflicts and "maybe" in seen and len(seen) > 1


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where a record stands at a stage: its reviewers' current decisions, the resolution if
    any, and the verdict that counts (``None`` until settled)."""

    record: str
    stage: Stage
    status: OutcomeStatus
    verdict: Verdict | None
    decisions: tuple[Decision, ...]
    resolution: Decision | None = None

    @property
    def reason(self) -> str:
        """The reason that counts: the resolution's, else the agreeing reviewers' first."""
        if self.resolution is not None:
            return self.resolution.reason
        return next((d.reason for d in self.decisions if d.verdict == self.verdict), "")

    def to_dict(self) -> dict[str, object]:
        return {
            "record": self.record,
            "stage": self.stage,
            "status": self.status,
            "verdict": self.verdict,
            "reason": self.reason,
            "decisions": [d.to_dict() for d in self.decisions],
            "resolution": None if self.resolution is None else self.resolution.to_dict(),
        }


_Key = tuple[str, Stage, str]  # record, stage, reviewer


@dataclass(slots=True)
class _Replay:
    status: list[EntryStatus]
    #: current own decision per (record, stage, reviewer), in first-decided order
    current: dict[_Key, Decision]
    #: current resolution per (record, stage)
    resolutions: dict[tuple[str, Stage], Decision]
    #: records in the order first decided, per stage
    records: dict[Stage, dict[str, None]] = field(default_factory=lambda: {s: {} for s in STAGES})


class DecisionHistory:
    """The append-only history of one Study's screening decisions."""

    def __init__(self, entries: Iterable[Decision] = ()) -> None:
        self._entries: list[Decision] = []
        self._replay: _Replay | None = None
        for entry in entries:
            if entry.seq != len(self._entries):
                raise DecisionInputError(
                    f"entry {entry.seq} out of sequence (expected {len(self._entries)})",
                    code="bad_sequence",
                )
            self._append(entry)

    # -- appending ---------------------------------------------------------------------------
    def decide(
        self,
        record: str,
        reviewer: str,
        verdict: Verdict,
        *,
        stage: Stage = "title_abstract",
        at: datetime,
        reason: str = "",
        note: str = "",
    ) -> Decision:
        """Append a reviewer's own decision (superseding their earlier one on the record)."""
        return self._append(
            Decision(
                len(self._entries), "decide", record, reviewer, stage, at, verdict, reason, note
            )  # fmt: skip
        )

    def resolve(
        self,
        record: str,
        reviewer: str,
        verdict: Verdict,
        *,
        stage: Stage = "title_abstract",
        at: datetime,
        reason: str = "",
        note: str = "",
    ) -> Decision:
        """Append the decision that settles a record at a stage (a conflict's resolution)."""
        return self._append(
            Decision(
                len(self._entries), "resolve", record, reviewer, stage, at, verdict, reason, note
            )  # fmt: skip
        )

    def undo(self, seq: int, reviewer: str, *, at: datetime, note: str = "") -> Decision:
        """Take back the current entry ``seq``; the entry it superseded is current again."""
        if not 0 <= seq < len(self._entries):
            raise DecisionInputError(f"no entry {seq} to undo", code="bad_undo")
        target = self._entries[seq]
        return self._append(
            Decision(
                len(self._entries),
                "undo",
                target.record,
                reviewer,
                target.stage,
                at,
                None,
                "",
                note,
                seq,
            )  # fmt: skip
        )

    def _append(self, entry: Decision) -> Decision:
        if entry.kind == "undo":
            assert entry.undoes is not None  # checked by Decision
            status = self.replay().status
            if not 0 <= entry.undoes < len(self._entries) or status[entry.undoes] != "current":
                raise DecisionInputError(
                    f"entry {entry.undoes} is not a current decision: only a current "
                    "decision can be undone",
                    code="bad_undo",
                )
            if self._entries[entry.undoes].record != entry.record:
                raise DecisionInputError("an undo names its entry's record", code="bad_undo")
        self._entries.append(entry)
        self._replay = None
        return entry

    # -- reading -----------------------------------------------------------------------------
    def without(self, drop: Callable[[Decision], bool]) -> DecisionHistory:
        """The history without the entries ``drop`` picks (renumbered; an undo goes with
        the entry it takes back): what a reader counts when some entries stay recorded but
        do not count (a stage still blind, a report recorded not retrieved). ``drop`` picks
        whole records at a stage (every entry of one or none), so that each undo kept still
        takes back a current entry. The history itself when nothing is dropped."""
        if not any(drop(e) for e in self._entries):
            return self
        out = DecisionHistory()
        new_seq: dict[int, int] = {}
        for e in self._entries:
            if drop(e) or (e.undoes is not None and e.undoes not in new_seq):
                continue
            undoes = None if e.undoes is None else new_seq[e.undoes]
            new_seq[e.seq] = out._append(replace(e, seq=len(out), undoes=undoes)).seq
        return out

    @property
    def entries(self) -> tuple[Decision, ...]:
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Decision]:
        return iter(self._entries)

    def replay(self) -> _Replay:
        """Each entry's status and the current decisions (one pass; cached)."""
        if self._replay is not None:
            return self._replay
        status: list[EntryStatus] = []
        stacks: dict[tuple[str, str, Stage, str], list[int]] = {}
        records: dict[Stage, dict[str, None]] = {s: {} for s in STAGES}
        for entry in self._entries:
            if entry.kind == "undo":
                assert entry.undoes is not None
                status.append("undo")
                target = self._entries[entry.undoes]
                stack = stacks[(target.kind, target.record, target.stage, target.reviewer)]
                stack.remove(entry.undoes)  # the current one: the top of its stack
                status[entry.undoes] = "undone"
                if stack:
                    status[stack[-1]] = "current"
                continue
            records[entry.stage].setdefault(entry.record, None)
            stack = stacks.setdefault((entry.kind, entry.record, entry.stage, entry.reviewer), [])
            if stack:
                status[stack[-1]] = "superseded"
            stack.append(entry.seq)
            status.append("current")
        current: dict[_Key, Decision] = {}
        resolutions: dict[tuple[str, Stage], Decision] = {}
        for (kind, record, stage, reviewer), stack in stacks.items():
            if not stack:
                continue
            top = self._entries[stack[-1]]
            if kind == "decide":
                current[(record, stage, reviewer)] = top
            else:
                previous = resolutions.get((record, stage))
                if previous is None or previous.seq < top.seq:
                    resolutions[(record, stage)] = top
        self._replay = _Replay(status, current, resolutions, records)
        return self._replay

    def status(self, seq: int) -> EntryStatus:
        """``current``, ``superseded`` (a later decision replaced it), ``undone`` or ``undo``."""
        return self.replay().status[seq]

    def current(
        self, *, stage: Stage | None = None, reviewer: str | None = None
    ) -> dict[tuple[str, Stage, str], Decision]:
        """The current own decision per (record, stage, reviewer)."""
        return {
            key: d
            for key, d in self.replay().current.items()
            if (stage is None or key[1] == stage) and (reviewer is None or key[2] == reviewer)
        }

    def visible_to(self, reviewer: str, *, revealed: bool = False) -> tuple[Decision, ...]:
        """The entries a reviewer may see: blind, only their own (and the resolutions)
        until the owner reveals the others."""
        if revealed:
            return self.entries
        return tuple(e for e in self._entries if e.reviewer == reviewer or e.kind == "resolve")

    def outcome(self, record: str, stage: Stage, policy: ConflictPolicy) -> Outcome:
        """Where ``record`` stands at ``stage`` under ``policy``."""
        replay = self.replay()
        decisions = tuple(
            sorted(
                (d for (r, s, _), d in replay.current.items() if r == record and s == stage),
                key=lambda d: d.seq,
            )
        )
        return _outcome(record, stage, decisions, replay.resolutions.get((record, stage)), policy)

    def outcomes(self, stage: Stage, policy: ConflictPolicy) -> list[Outcome]:
        """Every record decided at ``stage`` (in the order first decided), with its outcome."""
        replay = self.replay()
        by_record: dict[str, list[Decision]] = {}
        for (record, s, _), d in replay.current.items():
            if s == stage:
                by_record.setdefault(record, []).append(d)
        return [
            _outcome(
                record,
                stage,
                tuple(sorted(by_record.get(record, ()), key=lambda d: d.seq)),
                replay.resolutions.get((record, stage)),
                policy,
            )
            for record in replay.records[stage]
        ]

    def conflicts(self, stage: Stage, policy: ConflictPolicy) -> list[Outcome]:
        """The resolution queue: records whose reviewers conflict and no resolution settles."""
        return [o for o in self.outcomes(stage, policy) if o.status == "conflict"]

    def final(self, stage: Stage, policy: ConflictPolicy) -> dict[str, Verdict]:
        """The settled verdict per record at ``stage`` (unsettled records left out)."""
        return {o.record: o.verdict for o in self.outcomes(stage, policy) if o.verdict}


def _outcome(
    record: str,
    stage: Stage,
    decisions: Sequence[Decision],
    resolution: Decision | None,
    policy: ConflictPolicy,
) -> Outcome:
    decisions = tuple(decisions)
    if resolution is not None:
        return Outcome(record, stage, "resolved", resolution.verdict, decisions, resolution)
    if not decisions:
        return Outcome(record, stage, "undecided", None, decisions)
    verdicts = [d.verdict for d in decisions if d.verdict is not None]
    if policy.conflict(verdicts) or (
        policy.reason_conflicts
        and len(decisions) > 1
        and all(v == "exclude" for v in verdicts)
        and len({" ".join(d.reason.casefold().split()) for d in decisions}) > 1
    ):
        return Outcome(record, stage, "conflict", None, decisions)
    if len(decisions) < policy.reviewers_required:
        return Outcome(record, stage, "pending", None, decisions)
    verdict: Verdict = verdicts[0] if len(set(verdicts)) == 1 else "maybe"
    return Outcome(record, stage, "agreed", verdict, decisions)
