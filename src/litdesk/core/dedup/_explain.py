"""Why two records did or did not merge (pure): ``litdesk dedup --explain A B``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from litdesk.core.fusion import Conflict, identity_keys
from litdesk.core.records import Paper

from ._match import RULES, DedupResult, Pair, _decide, _features, _score
from ._shared import check_shared

__all__ = ["PairExplanation", "explain_pair"]


@dataclass(frozen=True, slots=True)
class PairExplanation:
    """The verdict on records ``a`` and ``b`` (input indices) and what decided it."""

    a: int
    b: int
    same_group: bool
    decision: str  # merge, review, linked, distinct, or "none" (no rule applies)
    rule: str  # the reason of the decisive pair, or why nothing decided
    stage: int | None
    evidence: dict[str, Any]
    conflicts: tuple[Conflict, ...] = ()
    via: tuple[int, ...] = ()  # the group's other members when joined through them
    recorded: bool = False  # the decision is one of the run's own pairs
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "same_group": self.same_group,
            "decision": self.decision,
            "rule": self.rule,
            "stage": self.stage,
            "evidence": self.evidence,
            "conflicts": [c.to_dict() for c in self.conflicts],
            "via": list(self.via),
            "recorded": self.recorded,
            "notes": list(self.notes),
        }


def explain_pair(
    papers: Sequence[Paper],
    result: DedupResult,
    a: int,
    b: int,
    *,
    merge_corrections: bool | None = None,
) -> PairExplanation:
    """Explain the run ``result`` (of ``deduplicate(papers)``) for the records ``a`` and ``b``.

    The run's own decision between the two is shown when it made one; otherwise the
    pair is judged on its own with the same rules (and said so): a pair outside every
    blocking key is never compared in a run.
    """
    if a == b:
        raise ValueError("explain needs two different records")
    a, b = min(a, b), max(a, b)
    group = next((g for g in result.groups if a in g), [a])
    same = b in group
    conflicts = tuple(c for c in result.conflicts if a in c.members and b in c.members)
    notes: list[str] = []
    recorded: Pair | None = next(
        (p for p in result.pairs if (p.a, p.b) == (a, b)),
        None,
    )
    for c in conflicts:
        if c.kind == "shared":
            keys = {i: identity_keys(papers[i]) for i in (a, b)}
            mine = check_shared(papers, [a, b], keys)
            why = mine.pairs[0][2] if mine.pairs else {}
            notes.append(
                f"{c.namespace} {', '.join(c.values)} is shared but not trusted: "
                + (", ".join(f"{k} disagree" for k in why) or "other records sharing it disagree")
            )
    via = tuple(i for i in group if i not in (a, b)) if same else ()
    if recorded is not None:
        return PairExplanation(
            a, b, same, recorded.decision, recorded.reason, recorded.stage,
            dict(recorded.evidence), conflicts, via, True, tuple(notes),
        )  # fmt: skip
    corrections = (
        bool(RULES["merge_corrections"]) if merge_corrections is None else merge_corrections
    )
    fa, fb = _features([papers[a]]), _features([papers[b]])
    score, ev = _score(fa, fb)
    decided = _decide(fa, fb, ev, corrections)
    decision, rule = decided if decided is not None else ("none", "no rule applies")
    notes.append(
        "the run made no decision on this pair itself; this is the pair judged on its own"
        + (f" (groups joined through records {', '.join(map(str, via))})" if via else "")
    )
    return PairExplanation(
        a, b, same, decision, rule, None, {**ev, "score": round(score, 4)}, conflicts, via,
        False, tuple(notes),
    )  # fmt: skip
