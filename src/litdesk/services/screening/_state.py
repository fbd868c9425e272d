"""Where a Study's screening stands at a stage, computed from its history (pure, over the
cached set and history): the items of the stage, the reviewer's own decisions, what is
left for the reviewer, everyone's outcomes, the labels the model trains on (in the order
decided) and the counts progress shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from litdesk.core.screening import Decision, DecisionHistory, Outcome, Stage

from ._config import ScreeningConfig
from ._items import ScreenSet

__all__ = [
    "item_keys",
    "FT_WAITS",
    "NOT_COUNTED",
    "NOT_RETRIEVED",
    "StageState",
    "counted_history",
    "stage_state",
]

_RELEVANT = ("include", "maybe")
#: why full text holds nothing yet for a reviewer while title/abstract is blind
FT_WAITS = (
    "full-text screening opens once the Study's owner reveals the title and abstract "
    "decisions (they are blind until then)"
)
#: why a full-text decision on a report recorded as not retrieved is refused (``%r``: the
#: record): PRISMA counts that report as not retrieved, never as assessed
NOT_RETRIEVED = (
    "the full text of record %r is recorded as not retrieved (PRISMA counts it under "
    "reports not retrieved, not as assessed): mark it as retrieved first, then decide"
)


#: why a full-text decision on a report recorded as not retrieved is not counted
NOT_COUNTED = (
    "not counted: the report is recorded as not retrieved (PRISMA counts it under reports "
    "not retrieved, not as assessed); marked retrieved again, it counts again"
)


def counted_history(history: DecisionHistory, not_retrieved: Collection[str]) -> DecisionHistory:
    """The history as progress, agreement, conflicts and PRISMA count it — the one rule for
    a report recorded as not retrieved: it is not assessed, so its full-text entries (group
    keys in ``not_retrieved``) stay recorded but are left out until it is marked retrieved
    again (they count again then). The history itself when no such entry exists."""
    if not not_retrieved:
        return history
    missing = frozenset(not_retrieved)
    return history.without(lambda e: e.stage == "full_text" and e.record in missing)


@dataclass(frozen=True, slots=True)
class StageState:
    stage: Stage
    #: the stage's items (group keys) in working-set order
    items: tuple[str, ...]
    #: the reviewer's current decision per item
    mine: dict[str, Decision]
    #: the stage's items as a set
    item_set: frozenset[str]
    #: items not left for the reviewer (decided by them, by enough reviewers, or settled)
    blocked: frozenset[str]
    #: every decided item's outcome (everyone's decisions)
    outcomes: dict[str, Outcome]
    #: the label per item the model trains on (True: relevant), in the order decided
    labels: dict[str, bool]
    #: the reviewer's own decisions as labels, in the order made
    my_labels: dict[str, bool]
    #: at full text, the items whose report is recorded not retrieved (none of their
    #: decisions count: :func:`counted_history`)
    not_retrieved: frozenset[str] = frozenset()

    def is_remaining(self, key: str) -> bool:
        """Is ``key`` left for the reviewer at this stage?"""
        return key in self.item_set and key not in self.blocked

    @property
    def remaining(self) -> tuple[str, ...]:
        """Items left for the reviewer, in working-set order (linear in the items)."""
        blocked = self.blocked
        return tuple(k for k in self.items if k not in blocked)

    @property
    def remaining_count(self) -> int:
        return len(self.items) - sum(1 for k in self.blocked if k in self.item_set)

    def counts(self, *, mine: bool) -> dict[str, int]:
        """Total, screened, included, excluded, maybe, remaining (and, for everyone,
        pending second reviews and conflicts); at full text also the reports recorded not
        retrieved among those remaining (PRISMA's "reports not retrieved", never "awaiting
        assessment")."""
        items = self.item_set
        missing = (
            {"not_retrieved": sum(1 for k in self.items if k in self.not_retrieved)}
            if self.stage == "full_text"
            else {}
        )  # none of them is decided (their decisions do not count): all are remaining
        if mine:
            verdicts = Counter(d.verdict for k, d in self.mine.items() if k in items)
            screened = sum(verdicts.values())
            return {
                "total": len(self.items),
                "screened": screened,
                "included": verdicts["include"],
                "excluded": verdicts["exclude"],
                "maybe": verdicts["maybe"],
                "remaining": self.remaining_count,
            } | missing
        settled = Counter(
            o.verdict for k, o in self.outcomes.items() if k in items and o.verdict is not None
        )
        status = Counter(o.status for k, o in self.outcomes.items() if k in items)
        screened = sum(settled.values())
        return {
            "total": len(self.items),
            "screened": screened,
            "included": settled["include"],
            "excluded": settled["exclude"],
            "maybe": settled["maybe"],
            "remaining": len(self.items) - screened,
            "pending": status["pending"],
            "conflicts": status["conflict"],
        } | missing


def stage_items(
    screen: ScreenSet,
    history: DecisionHistory,
    config: ScreeningConfig,
    stage: Stage,
    *,
    sees_blind: bool = True,
) -> tuple[str, ...]:
    """The items of ``stage``: every group at title/abstract; at full text the groups
    included or "maybe" at title/abstract (in dual review: the pair's agreed or resolved
    outcome). While title/abstract is blind, full text holds nothing for an account that
    may not see the blind decisions (``sees_blind`` False: all but the Study's owner):
    which records a pair agreed on is where each reviewer of the pair stands."""
    keys = screen.keys
    if stage == "title_abstract":
        return keys
    if not sees_blind and config.blind("title_abstract"):
        return ()
    final = history.final("title_abstract", config.policy("title_abstract"))
    return tuple(k for k in keys if final.get(k) in _RELEVANT)


def stage_state(
    screen: ScreenSet,
    history: DecisionHistory,
    config: ScreeningConfig,
    stage: Stage,
    reviewer: str,
    *,
    sees_blind: bool = True,
    not_retrieved: frozenset[str] = frozenset(),
) -> StageState:
    """Where ``reviewer`` stands at ``stage`` (``sees_blind``: see :func:`stage_items`;
    ``history`` as counted, without the full-text entries of the reports recorded
    ``not_retrieved``: :func:`counted_history`)."""
    items = stage_items(screen, history, config, stage, sees_blind=sees_blind)
    policy = config.policy(stage)
    current = history.current(stage=stage)
    mine = {record: d for (record, _, rev), d in current.items() if rev == reviewer}
    reviewers = Counter(record for (record, _, _) in current)
    outcomes = {o.record: o for o in history.outcomes(stage, policy)}
    blocked = frozenset(
        k
        for k in (*mine, *reviewers, *outcomes)
        if k in mine
        or reviewers[k] >= policy.reviewers_required
        or (k in outcomes and outcomes[k].verdict is not None)
    )
    item_set = screen.key_set if stage == "title_abstract" else frozenset(items)
    # labels in the order decided: by each item's first current decision's entry number
    first: dict[str, int] = {}
    for (record, _, _), d in current.items():
        if record not in first or d.seq < first[record]:
            first[record] = d.seq
    labels: dict[str, bool] = {}
    for record in sorted(first, key=first.__getitem__):
        outcome = outcomes.get(record)
        if outcome is not None and outcome.verdict is not None:
            labels[record] = outcome.verdict in _RELEVANT
        else:
            assert outcome is not None and outcome.decisions  # every current record has one
            latest = max(outcome.decisions, key=lambda d: d.seq)
            labels[record] = latest.verdict in _RELEVANT
    my_labels = {
        k: d.verdict in _RELEVANT for k, d in sorted(mine.items(), key=lambda kv: kv[1].seq)
    }
    missing = not_retrieved & item_set if stage == "full_text" else frozenset()
    return StageState(stage, items, mine, item_set, blocked, outcomes, labels, my_labels, missing)


def item_keys(state: StageState, status: str, *, blind: bool) -> list[str]:
    """The stage's records behind a number (``status``: all, remaining (for the reviewer),
    mine, conflict, screened, included, excluded, maybe), in the stage's order; a blind
    stage counts by the reviewer's own decisions."""

    def verdict(k: str) -> str | None:
        if blind:
            mine = state.mine.get(k)
            return None if mine is None else mine.verdict
        o = state.outcomes.get(k)
        return None if o is None else o.verdict

    if status == "all":
        return list(state.items)
    if status == "remaining":
        remaining = set(state.remaining)
        return [k for k in state.items if k in remaining]
    if status == "mine":
        return [k for k in state.items if k in state.mine]
    if status == "conflict":
        return [
            k for k in state.items if k in state.outcomes and state.outcomes[k].status == "conflict"
        ]
    if status == "screened":
        return [k for k in state.items if verdict(k) is not None]
    want = {"included": "include", "excluded": "exclude", "maybe": "maybe"}[status]
    return [k for k in state.items if verdict(k) == want]
