"""Search-strategy suggestion: the research question checked, its consent notice, one
guarded model call (:class:`litdesk.services.assist.Assistant`) and the strict parse. The
suggestion is never used by litdesk itself: the person edits and confirms it in the
builder (web) or passes the groups to ``litdesk strategy build`` (CLI)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from litdesk.core.assist import ConsentNotice
from litdesk.core.strategy import (
    MAX_ANSWER_CHARS,
    SUGGESTION_SCHEMA,
    SUGGESTION_SYSTEM,
    Suggestion,
    check_question,
    parse_suggestion,
    suggestion_prompt,
)

from ._call import Assistant, CallRecord, ModelCall

__all__ = ["FEATURE", "SuggestionView", "suggest_strategy", "suggestion_call", "suggestion_notice"]

FEATURE: Final = "strategy"
MAX_TOKENS: Final = 2_200


def suggestion_call(question: str) -> ModelCall:
    """The exact call for ``question`` (checked: 1–2,000 characters, no control
    characters, whitespace collapsed)."""
    return ModelCall(
        feature=FEATURE,
        system=SUGGESTION_SYSTEM,
        user=suggestion_prompt(check_question(question)),
        schema=SUGGESTION_SCHEMA,
        schema_name="search_strategy",
        max_tokens=MAX_TOKENS,
        max_answer_chars=MAX_ANSWER_CHARS,
    )


def suggestion_notice(assistant: Assistant, question: str) -> ConsentNotice:
    """What will be sent for ``question``, where, and the token that consents to it."""
    return assistant.notice(suggestion_call(question).user)


@dataclass(frozen=True, slots=True)
class SuggestionView:
    suggestion: Suggestion
    record: CallRecord

    def to_dict(self) -> dict[str, Any]:
        return self.suggestion.to_dict() | {"record": self.record.to_dict()}


async def suggest_strategy(
    assistant: Assistant,
    question: str,
    *,
    owner: str,
    consent: str | None,
    key: str | None = None,
) -> SuggestionView:
    """One model call for ``question`` after ``consent`` (the notice's token); raises
    :class:`~litdesk.core.strategy.SuggestionRefused` when the answer is not exactly a
    strategy (nothing kept). ``key``: the call's allowance key (a job's id)."""
    answer = await assistant.call(suggestion_call(question), owner=owner, consent=consent, key=key)
    return SuggestionView(parse_suggestion(answer.text), answer.record)
