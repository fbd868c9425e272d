"""The settled screening outcomes of a Study's saved papers (issue 31: the Zotero push
gives them back to the items the papers came from).

A decision is made on a study of the working set (a group of records); every member
record that is a saved paper gets the group's outcome, so a paper deduplicated with
others, or two papers grouped as one study, all carry it. Only settled outcomes count (a
pair still waiting or in conflict has none); an undone decision is no longer current and
so is not there. At full text only the studies that reached it (included or "maybe" at
title/abstract as things stand now) count. A stage still blind (dual review, not revealed)
is left out for everyone: its outcomes would show reviewers each other's decisions once
written anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from litdesk.core.screening import STAGES, Outcome, Stage

from ._parts import AreaParts
from ._requests import StudyScreenRequest
from ._state import stage_items

__all__ = ["PaperOutcomes", "paper_outcomes"]


@dataclass(frozen=True, slots=True)
class PaperOutcomes:
    """``by_paper``: ``{paper id: {stage: settled outcome}}``; ``blind``: the stages left
    out because they are still blind."""

    study_id: str
    by_paper: dict[str, dict[Stage, Outcome]] = field(default_factory=dict)
    blind: tuple[Stage, ...] = ()


def paper_outcomes(area: AreaParts, request: StudyScreenRequest, owner: str) -> PaperOutcomes:
    """The outcomes (see the module docstring); ``owner`` must be able to read the Study."""
    ctx = area._ctx(request.study, owner)
    blind = tuple(s for s in STAGES if ctx.config.blind(s))
    by_paper: dict[str, dict[Stage, Outcome]] = {}
    for stage in STAGES:
        if stage in blind:
            continue
        sees = ctx.role == "owner"
        reached = frozenset(
            stage_items(ctx.screen, ctx.history, ctx.config, stage, sees_blind=sees)
        )
        for outcome in ctx.history.outcomes(stage, ctx.config.policy(stage)):
            if outcome.verdict is None or outcome.record not in reached:
                continue
            group = ctx.screen.group(outcome.record)
            if group is None:  # a record no longer in the Study
                continue
            for member in group.members:
                if member.paper_id:
                    by_paper.setdefault(member.paper_id, {})[stage] = outcome
    return PaperOutcomes(ctx.study.id, by_paper, blind)
