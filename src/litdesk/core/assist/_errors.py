"""The errors of model assistance (pure): every unusable answer is a refusal."""

from __future__ import annotations

from litdesk._errors import RefusedError

__all__ = ["AnswerRefused", "ConsentRequired", "SourceRefused"]


class AnswerRefused(RefusedError):
    """The model's answer is unusable (length stop, refusal, not the exact JSON shape,
    only hidden reasoning, no supported finding); nothing is saved. ``code`` says why."""

    default_code = "answer_refused"


class ConsentRequired(RefusedError):
    """No consent, or a consent given for other text, host or model (``consent_stale``)."""

    default_code = "consent_required"


class SourceRefused(RefusedError):
    """No usable source text to send (empty abstract, no paragraph within the bounds)."""

    default_code = "no_source"
