"""Strict parsing of a model's structured answer (pure): one JSON object, nothing around
it, exact keys, bounded strings without control characters. Anything else is refused."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Final

from ._errors import AnswerRefused

__all__ = [
    "LENGTH_STOPS",
    "REFUSAL_STOPS",
    "check_stop",
    "exact_keys",
    "has_control",
    "load_json_object",
    "text_field",
]

LENGTH_STOPS: Final = frozenset({"max_tokens", "length", "model_context_window_exceeded"})
REFUSAL_STOPS: Final = frozenset({"refusal", "content_filter"})
#: Stops after which an answer is complete.
_DONE_STOPS: Final = frozenset({"end_turn", "stop", "stop_sequence", "end"})
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_FENCE = re.compile(r"^```(?:json)?[ \t]*\n(.*)\n```$", re.DOTALL)


def check_stop(stop: str | None, *, text: str, reasoning: bool, refusal: str | None) -> None:
    """Refuse an answer that did not end normally, or that is only hidden reasoning."""
    if refusal or (stop in REFUSAL_STOPS):
        raise AnswerRefused("the model refused to answer; nothing was saved", code="model_refusal")
    if stop in LENGTH_STOPS:
        if not text.strip() and reasoning:
            raise AnswerRefused(
                "the model produced only hidden reasoning and reached its token limit; nothing "
                "was saved (turn thinking off or lower)",
                code="hidden_reasoning_only",
            )
        raise AnswerRefused(
            "the model stopped at its token limit, so the answer is incomplete; nothing was saved",
            code="length_stop",
        )
    if not text.strip():
        if reasoning:
            raise AnswerRefused(
                "the model produced only hidden reasoning and no answer; nothing was saved",
                code="hidden_reasoning_only",
            )
        raise AnswerRefused("the model answered nothing; nothing was saved", code="empty_answer")
    if stop is not None and stop not in _DONE_STOPS:
        raise AnswerRefused(
            f"the model stopped for an unexpected reason ({stop[:40]}); nothing was saved",
            code="unexpected_stop",
        )


def has_control(text: str) -> bool:
    """True when ``text`` holds a control character other than tab, newline, return."""
    return _CONTROL.search(text) is not None


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise AnswerRefused(
                f"the answer repeats the key {key[:40]!r}; nothing was saved", code="bad_shape"
            )
        out[key] = value
    return out


def _no_constant(name: str) -> object:
    raise AnswerRefused(f"the answer holds {name}, which is not JSON", code="not_json")


def load_json_object(text: str, *, max_chars: int) -> dict[str, object]:
    """The one JSON object that is the whole answer (an answer wrapped whole in one
    ```json fence is unwrapped). Duplicate keys, NaN/Infinity, trailing text → refused."""
    if len(text) > max_chars:
        raise AnswerRefused(
            f"the answer is {len(text):,} characters, over the {max_chars:,} allowed; "
            "nothing was saved",
            code="answer_too_long",
        )
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced is not None:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise AnswerRefused(
            f"the answer is not JSON ({exc.msg} at character {exc.pos + 1}); nothing was saved",
            code="not_json",
        ) from None
    except RecursionError:
        raise AnswerRefused("the answer is nested too deeply", code="not_json") from None
    if not isinstance(value, dict):
        raise AnswerRefused("the answer is not a JSON object; nothing was saved", code="bad_shape")
    return value


def exact_keys(
    value: object, required: Collection[str], *, where: str, optional: Collection[str] = ()
) -> Mapping[str, object]:
    """``value`` as an object with every key of ``required``, perhaps some of ``optional``,
    and no other key."""
    if not isinstance(value, dict):
        raise AnswerRefused(f"{where} is not an object; nothing was saved", code="bad_shape")
    keys = set(value)
    extra = keys - set(required) - set(optional)
    if extra:
        names = ", ".join(sorted(k[:40] for k in extra)[:5])
        raise AnswerRefused(
            f"{where} has keys that were not asked for ({names}); nothing was saved",
            code="extra_keys",
        )
    missing = set(required) - keys
    if missing:
        raise AnswerRefused(
            f"{where} lacks {', '.join(sorted(missing))}; nothing was saved", code="bad_shape"
        )
    return value


def text_field(value: object, *, where: str, max_chars: int, allow_empty: bool = True) -> str:
    """A string of at most ``max_chars`` characters without control characters."""
    if not isinstance(value, str):
        raise AnswerRefused(f"{where} is not a string; nothing was saved", code="bad_shape")
    if len(value) > max_chars:
        raise AnswerRefused(
            f"{where} is over {max_chars:,} characters; nothing was saved", code="field_too_long"
        )
    if has_control(value):
        raise AnswerRefused(
            f"{where} holds control characters; nothing was saved", code="control_characters"
        )
    if not allow_empty and not value.strip():
        raise AnswerRefused(f"{where} is empty; nothing was saved", code="bad_shape")
    return value
