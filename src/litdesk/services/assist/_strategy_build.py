"""The concept-group builder use case: groups → the query, compiled for every provider
exactly as a search would compile it (refusals named; nothing is sent)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from litdesk.core.query import compile_lane, full_url
from litdesk.core.search import PROVIDERS, CompiledRequest, CompileRefused
from litdesk.core.strategy import BuiltQuery, ConceptGroup, build_query

__all__ = ["StrategyView", "build_strategy"]


@dataclass(frozen=True, slots=True)
class StrategyView:
    """The built query and, per provider, its exact request or the refusal."""

    built: BuiltQuery
    requests: dict[str, CompiledRequest]
    refusals: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        providers: dict[str, dict[str, Any]] = {}
        for name in PROVIDERS:
            if name in self.refusals:
                providers[name] = {"refused": self.refusals[name]}
            else:
                req = self.requests[name]
                providers[name] = {
                    "executed_query": req.executed_query,
                    "url": full_url(req),
                    "warnings": list(req.warnings),
                }
        return self.built.to_dict() | {"providers": providers}


def build_strategy(groups: Sequence[ConceptGroup]) -> StrategyView:
    """Build the query (raises :class:`~litdesk.core.strategy.StrategyInputError`) and
    compile it for each provider as a keyword search's first page."""
    built = build_query(groups)
    requests: dict[str, CompiledRequest] = {}
    refusals: dict[str, str] = {}
    for name in PROVIDERS:
        try:
            requests[name] = compile_lane(name, built.query)
        except CompileRefused as exc:
            refusals[name] = exc.reason
    return StrategyView(built, requests, refusals)
