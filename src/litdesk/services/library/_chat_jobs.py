"""A paper-chat question as a job of the store's queue (kind ``chat.answer``): the job as the
chat page shows it, and the model backend that keeps a job's replies for the attempt
that takes the job over.

The job belongs to its chat session (its owner is ``chat:<session id>``, the session id
being the hash of the account and the browser's token), so the queue itself keeps one
question in flight per session — across every worker of every process — and another
account (or another browser session) finds no such job. The round is written when the
job finishes, once per job id (see :meth:`ChatService.run_job`).

A job claimed again after its worker died does not pay twice for what its first attempt
already got: every model reply is written to the job's checkpoint as it comes, and the
next attempt replays those replies instead of asking again; the reservation of a call
that was in flight when the worker died is closed as ``failed`` (it was sent, so it
counts, once) so that the one-call-in-flight rule does not hold the next attempt back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from litdesk._errors import LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.llm import ChatBackend, ChatReply, ChatRequest
from litdesk.services.assist import AssistAllowance, Ticket
from litdesk.services.jobs import JobContext, JobView

__all__ = [
    "CHAT_KIND",
    "ChatBusy",
    "ChatJob",
    "ChatJobNotFound",
    "JournaledBackend",
    "JobStopped",
    "chat_owner",
]

#: The job kind of a paper-chat question.
CHAT_KIND: Final = "chat.answer"
ChatJobState = Literal["running", "done", "failed", "cancelled"]
_CANCELLED: Final = "the question was cancelled; no round was written"
_CANCELLED_ROUNDS: Final = (
    "the questions were cancelled; the ones answered before the cancel are kept as rounds"
)


def chat_owner(session_id: str) -> str:
    """The owner of a chat session's jobs in the queue (account ids never look like this)."""
    return f"chat:{session_id}"


class ChatBusy(RefusedError):
    """A question of this chat session is still being answered (by any worker)."""

    default_code = "chat_busy"


class ChatJobNotFound(NotFoundError):
    """No such question job in this chat session (another session's is not found either)."""

    default_code = "chat_job_not_found"


class JobStopped(Exception):
    """The job must stop (a cancel, the server stopping, the job taken over). Not a
    :class:`LitdeskError`, so that no step of the answer turns it into a warning."""


@dataclass(frozen=True, slots=True)
class ChatJob:
    """A question in flight or answered, from its job (``stage``: queued, starting,
    retrieving, asking the model, recording, done)."""

    id: str
    question: str
    state: ChatJobState
    stage: str
    done: int
    message: str | None
    code: str | None
    retry_after: int | None
    round: int | None
    cancel_requested: bool
    attempts: int
    created: str
    #: the round's answer card once written (read with the job by :meth:`ChatService.job`)
    answer: dict[str, Any] | None = None
    #: a job of several questions (the report wizard's "answer in the chat only"): all of
    #: them, in the order asked (``question`` is the first, or the first not answered)
    questions: tuple[str, ...] = ()

    @classmethod
    def from_view(cls, view: JobView) -> ChatJob:
        result = view.result or {}
        error = result.get("error") if isinstance(result.get("error"), dict) else None
        number = result.get("round")
        state: ChatJobState
        code = retry = None
        message: str | None = None
        asked = view.params.get("questions")
        questions = tuple(str(q) for q in asked) if isinstance(asked, list) else ()
        question = str(view.params.get("question", ""))
        unanswered = result.get("unanswered")
        if view.active:
            waiting = "queued" if view.status == "queued" else "starting"
            state, stage = "running", view.current or waiting
        elif isinstance(unanswered, list) and unanswered and error is not None:
            # several questions, refused at one: the rounds before it are written
            state, stage, code = "failed", "failed", str(error.get("code", ""))
            wait = error.get("retry_after")
            retry = wait if isinstance(wait, int) else None
            question = str(unanswered[0])
            done = len(questions) - len(unanswered)
            left = "; ".join(f"“{q}”" for q in unanswered)
            message = (
                f"{done} of {len(questions)} questions answered; not answered: {left}. "
                f"{error.get('message', '')}"
            )
        elif isinstance(number, int):  # written (a cancel that came after still has it)
            state, stage = "done", "done"
        elif error is not None:  # the model refused or was unreachable: nothing written
            state, stage = "failed", "failed"
            message, code = str(error.get("message", "")), str(error.get("code", ""))
            wait = error.get("retry_after")
            retry = wait if isinstance(wait, int) else None
        elif view.status == "cancelled":
            state, stage, message = "cancelled", "cancelled", _CANCELLED
            if len(questions) > 1:
                message = _CANCELLED_ROUNDS
        else:
            state, stage, message = "failed", "failed", view.message or "the question failed"
        return cls(
            view.id, question, state, stage, view.done, message,
            code, retry, number if isinstance(number, int) else None,
            view.cancel_requested and state == "running", view.attempts, view.created,
            questions=questions,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "state": self.state,
            "stage": self.stage,
            "done": self.done,
            "message": self.message,
            "code": self.code,
            "retry_after": self.retry_after,
            "round": self.round,
            "cancel_requested": self.cancel_requested,
            "attempts": self.attempts,
            "created": self.created,
            "answer": self.answer,
            "questions": list(self.questions),
        }


def error_result(exc: LitdeskError) -> dict[str, Any]:
    """A question the model (or its allowance) did not answer, as the job's result."""
    wait = exc.details.get("retry_after")
    return {
        "error": {
            "code": exc.code,
            "message": exc.message,
            "retry_after": wait if isinstance(wait, int) else None,
        }
    }


def _key(request: ChatRequest) -> str:
    """What identifies a model call across attempts (the same question over the same
    excerpts asks the same thing)."""
    doc = {
        "system": request.system,
        "user": request.user,
        "excerpts": [[e.number, e.file, e.page, e.text] for e in request.excerpts],
        "max_tokens": request.max_tokens,
        "thinking": request.thinking,
        "schema": request.json_schema,
    }
    text = json.dumps(doc, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class JournaledBackend:
    """``inner`` (metered) whose replies are kept in the job's checkpoint: an attempt that
    takes the job over replays them in order instead of calling (and paying) again.

    ``checkpoint`` is the job's checkpoint document, changed in place: ``calls`` (the
    replies so far, each with its request's key) and ``pending`` (the ticket of the call
    being made, written before the request goes out)."""

    def __init__(self, inner: ChatBackend, ctx: JobContext, checkpoint: dict[str, Any]) -> None:
        self.inner = inner
        self.ctx = ctx
        self.checkpoint = checkpoint
        self.replayed = 0
        self._n = 0
        #: said before each stage (a job of several questions: which one is being asked)
        self.prefix = ""

    @property
    def made(self) -> int:
        """Model calls of this attempt so far, replayed ones included."""
        return self._n

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def is_model(self) -> bool:
        return self.inner.is_model

    def seek(self, n: int) -> None:
        """Go on from call ``n`` of the journal (a job of several questions: where the
        question being asked began, so a question asked before is not replayed into it)."""
        self._n = n

    def _save(self, stage: str) -> None:
        stage = self.prefix + stage
        if not self.ctx.progress(self._n, None, stage, checkpoint=self.checkpoint):
            raise JobStopped(stage)

    def reserved(self, ticket: Ticket) -> None:
        """The metered backend's hook: the call's ticket, written before it is sent (a
        stop here gives the reservation back: nothing was sent)."""
        self.checkpoint["pending"] = ticket.id
        self._save("asking the model")

    def close_pending(self, allowance: AssistAllowance) -> None:
        """Close the call an earlier attempt had in flight when its worker died."""
        pending = self.checkpoint.pop("pending", None)
        if isinstance(pending, str):
            allowance.abandon(pending)

    def complete(self, request: ChatRequest) -> ChatReply:
        calls: list[dict[str, Any]] = self.checkpoint.setdefault("calls", [])
        n, key = self._n, _key(request)
        if n < len(calls) and calls[n].get("key") == key:
            self._n += 1
            self.replayed += 1
            return ChatReply(**calls[n]["reply"])
        del calls[n:]  # the attempts diverged (the library changed): new calls from here
        if self.ctx.should_stop:
            raise JobStopped("asking the model")
        try:
            reply = self.inner.complete(request)
        finally:
            self.checkpoint.pop("pending", None)
        calls.append({"key": key, "reply": asdict(reply)})
        self._n += 1
        self._save("asking the model")
        return reply
