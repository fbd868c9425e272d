"""A live check of a model backend before AI features are relied on (the reference's
defect 7: thinking behaviour never checked live). One guarded call with a tiny fixed
request and a strict schema; the report says whether hidden reasoning came back, how the
model stopped, whether the structured answer parsed, and the tokens used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import LitdeskError
from litdesk.core.assist import AnswerRefused, exact_keys, load_json_object, text_field

from ._call import Assistant, CallRecord, ModelCall

__all__ = ["CHECK_CALL", "ModelCheck", "check_model"]

CHECK_CALL: Final = ModelCall(
    feature="check",
    system="Answer with the JSON object only.",
    user='Return {"echo": "litdesk-check-7"} exactly.',
    schema={
        "type": "object",
        "properties": {"echo": {"type": "string"}},
        "required": ["echo"],
        "additionalProperties": False,
    },
    schema_name="check",
    max_tokens=200,
    max_answer_chars=2_000,
)


@dataclass(frozen=True, slots=True)
class ModelCheck:
    """What one live call showed about the backend."""

    ok: bool
    verdict: str
    code: str
    thinking: str
    record: CallRecord | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "code": self.code,
            "thinking": self.thinking,
            "call": self.record.to_dict() if self.record else None,
        }


async def check_model(assistant: Assistant, *, owner: str, consent: str | None) -> ModelCheck:
    """Send :data:`CHECK_CALL` (after consent; it counts against the allowance)."""
    thinking = assistant.settings.thinking
    try:
        answer = await assistant.call(CHECK_CALL, owner=owner, consent=consent)
    except AnswerRefused as exc:
        return ModelCheck(False, exc.message, exc.code, thinking, None)
    try:
        obj = exact_keys(
            load_json_object(answer.text, max_chars=CHECK_CALL.max_answer_chars),
            ("echo",),
            where="the answer",
        )
        echoed = text_field(obj["echo"], where="echo", max_chars=100)
    except LitdeskError as exc:
        return ModelCheck(False, exc.message, exc.code, thinking, answer.record)
    if echoed != "litdesk-check-7":
        return ModelCheck(
            False, "the structured answer did not echo the value asked for", "wrong_echo",
            thinking, answer.record,
        )  # fmt: skip
    seen = "with hidden reasoning" if answer.record.reasoning else "without hidden reasoning"
    return ModelCheck(
        True,
        f"the model answered strict JSON {seen} (stop: {answer.record.stop_reason}, "
        f"thinking={thinking})",
        "ok",
        thinking,
        answer.record,
    )
