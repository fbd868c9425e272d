"""No chains (issue 12): every pair inside an automatic group must be plausible on its
own; a vetoed pair (issue 30) never shares an automatic group, not even through others."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

__all__ = ["UF", "Chains", "Judge"]

Decision = Literal["merge", "review", "linked", "distinct"]
#: The pair of groups ``(u, v)`` judged on its own: its decision (or None) and evidence.
Judge = Callable[[int, int], tuple[Decision | None, dict[str, Any]]]


class Chains:
    """Every pair inside an automatic group must be plausible on its own: before two
    groups join, each record of one is checked against each record of the other (the
    pair's own decision must be ``merge`` or ``review``; a reviewer's ``distinct`` vetoes).
    A group that would only hold by chaining (A≈B, B≈C, A≉C) is not formed: the joining
    pair waits for review. Above ``max_chain_pairs`` cross pairs the join waits too."""

    def __init__(
        self,
        judge: Judge,
        reps: Sequence[Sequence[int]],
        stage2: Sequence[tuple[float, int, int, Decision, str, dict[str, Any]]],
        reviewed: Mapping[tuple[int, int], Decision],
        max_pairs: int,
    ) -> None:
        self.judge = judge
        self.max_pairs = max_pairs
        self.reps = reps
        self.reviewed = reviewed
        self.known: dict[tuple[int, int], Decision | None] = {
            (x, y): d for _, x, y, d, _, _ in stage2
        }
        self.why: dict[tuple[int, int], str] = {}
        #: vetoed pairs never share an automatic group, not even through others
        self.vetoed: dict[tuple[int, int], str] = {
            (x, y): "; ".join(ev["vetoes"]) for _, x, y, _, _, ev in stage2 if ev.get("vetoes")
        }
        self.members: dict[int, list[int]] = {}

    def _plausible(self, u: int, v: int) -> tuple[bool, str]:
        u, v = (u, v) if u < v else (v, u)
        a, b = self.reps[u][0], self.reps[v][0]
        if self.reviewed.get((min(a, b), max(a, b))) == "distinct":
            return False, "a reviewer said distinct"
        if (u, v) in self.known:
            decision = self.known[(u, v)]
        else:
            decision, ev = self.judge(u, v)
            self.known[(u, v)] = decision
            self.why[(u, v)] = f"title {ev['title']:.2f}, nothing else decides"
            if ev.get("vetoes"):
                self.vetoed[(u, v)] = "; ".join(ev["vetoes"])
        if (u, v) in self.vetoed:
            return False, "vetoed: " + self.vetoed[(u, v)]
        if decision is None:
            return False, self.why.get((u, v), "nothing decides")
        return decision in ("merge", "review"), decision

    def check(
        self, x: int, y: int, rx: int, ry: int, by_reviewer: bool
    ) -> tuple[str, list[int]] | None:
        """Why groups ``rx`` and ``ry`` must not join through the pair ``x``–``y``, or None."""
        left = self.members.get(rx, [rx])
        right = self.members.get(ry, [ry])
        if len(left) * len(right) > self.max_pairs:
            return (
                f"merge would make a group of {len(left) + len(right)} records: too large to "
                "check every pair",
                [],
            )
        for u in left:
            for v in right:
                if (u, v) in ((x, y), (y, x)):
                    continue
                ok, why = self._plausible(u, v)
                if ok or (by_reviewer and why != "a reviewer said distinct"):
                    continue
                a, b = sorted((self.reps[u][0], self.reps[v][0]))
                return (
                    f"merge would chain: records {a} and {b} would share a group although "
                    f"that pair is not plausible on its own ({why})",
                    [a, b],
                )
        return None

    def join(self, rx: int, ry: int) -> None:
        self.members.setdefault(rx, [rx]).extend(self.members.pop(ry, [ry]))


class UF:
    def __init__(self, n: int) -> None:
        self.p = list(range(n))

    def find(self, x: int) -> int:
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x
