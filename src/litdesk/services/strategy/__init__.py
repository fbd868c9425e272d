"""Search strategy use cases: the concept-group builder (no model) and the model's
suggested concept groups (consent, allowance, strict parsing)."""

from ._build import StrategyView, build_strategy
from ._suggest import (
    FEATURE,
    SuggestionView,
    suggest_strategy,
    suggestion_call,
    suggestion_notice,
)

__all__ = [
    "FEATURE",
    "StrategyView",
    "SuggestionView",
    "build_strategy",
    "suggest_strategy",
    "suggestion_call",
    "suggestion_notice",
]
