"""Search strategy use cases: the concept-group builder (no model) and the model's
suggested concept groups (consent, allowance, strict parsing)."""

from ._build import StrategyView, build_strategy

__all__ = ["StrategyView", "build_strategy"]
