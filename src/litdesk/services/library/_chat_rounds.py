"""A chat job of several questions (the report wizard's "answer in the chat only"): each
question answered in order over the job's scope and written as the session's next round,
as a single question's job does.

Each round is written once, tagged ``<job id>:<question index>``: an attempt that takes the
job over after its worker died skips the rounds already written, writes a card the first
attempt got but did not write, and replays the model replies of the question it was asking
from the job's checkpoint (``starts``: where each question's calls begin in the journal),
so nothing is asked or paid twice. A refusal (the allowance, the model) stops at that
question: the rounds written stay, and the job's result names the questions not answered.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from litdesk._errors import LitdeskError
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.services.assist import CHAT_FEATURE, MeteredBackend
from litdesk.services.jobs import JobContext

from ._chat_jobs import JobStopped, JournaledBackend, error_result

if TYPE_CHECKING:
    from litdesk.adapters.llm import ChatBackend

    from ._library import Library

__all__ = ["RoundsHost", "round_tag", "run_rounds"]


class _Round(Protocol):
    @property
    def number(self) -> int: ...


class RoundsHost(Protocol):
    """What :func:`run_rounds` uses of the chat service (``ChatService`` is one; a protocol,
    so that this module does not import the service that imports it)."""

    library: Library

    def _locked(self, sid: str) -> AbstractContextManager[None]: ...

    def _load(self, sid: str) -> dict[str, Any]: ...

    def _answer(
        self,
        question: str,
        papers: list[str],
        whole: bool,
        *,
        owner: str,
        top_k: int = ...,
        backend: ChatBackend | None = None,
    ) -> dict[str, Any]: ...

    def _record(
        self,
        sid: str,
        question: str,
        data: dict[str, Any],
        *,
        owner: str,
        job: str | None = None,
    ) -> _Round: ...


def round_tag(job_id: str, index: int) -> str:
    """The tag a round of a several-question job is written with (once per tag)."""
    return f"{job_id}:{index}"


def run_rounds(chat: RoundsHost, ctx: JobContext) -> dict[str, Any] | None:
    """The ``chat.answer`` handler for a job with ``questions``: ``{"round": <the last>,
    "rounds": [...]}``; refused at one question: its error, the rounds written and the
    questions ``unanswered``; stopped (a cancel, the server stopping): ``None``."""
    p = ctx.params
    sid = str(p["session"])
    questions = [str(q) for q in p["questions"]]
    papers = [str(x) for x in p.get("papers") or []]
    whole = bool(p.get("whole_library"))
    owner = str(p.get("by") or LOCAL_OWNER)
    total = len(questions)
    with chat._locked(sid):  # rounds an earlier attempt wrote
        written = {
            str(e["job"]): int(e["number"]) for e in chat._load(sid)["rounds"] if e.get("job")
        }
    checkpoint: dict[str, Any] = dict(ctx.checkpoint or {})
    cards: dict[str, Any] = checkpoint.setdefault("cards", {})
    starts: dict[str, int] = checkpoint.setdefault("starts", {})
    journal: JournaledBackend | None = None
    inner = chat.library.backend()
    if inner.is_model:
        metered = chat.library.meter(inner, owner, CHAT_FEATURE)
        journal = JournaledBackend(metered, ctx, checkpoint)
        journal.close_pending(chat.library.allowance())
        if isinstance(metered, MeteredBackend):
            metered.on_reserved = journal.reserved
    rounds: list[int] = []
    for i, question in enumerate(questions):
        tag = round_tag(ctx.job.id, i)
        if tag in written:
            rounds.append(written[tag])
            continue
        step = f"question {i + 1} of {total}: " if total > 1 else ""
        try:
            card = cards.get(str(i))
            if not isinstance(card, dict):
                if not ctx.progress(i, total, step + "retrieving", checkpoint=checkpoint):
                    raise JobStopped("retrieving")
                if journal is not None:
                    calls = checkpoint.get("calls") or []
                    journal.seek(starts.setdefault(str(i), len(calls)))
                    journal.prefix = step
                card = chat._answer(question, papers, whole, owner=owner, backend=journal)
                cards[str(i)] = card
                if not ctx.progress(i, total, step + "recording", checkpoint=checkpoint):
                    raise JobStopped("recording")
            rounds.append(chat._record(sid, question, card, owner=owner, job=tag).number)
            cards.pop(str(i), None)  # written: the round holds it (the checkpoint stays small)
        except JobStopped:
            return None  # the runner records why (cancelled, handed back, taken over)
        except LitdeskError as exc:  # refused or unreachable: this question and the rest
            result = error_result(exc)
            if rounds:
                result |= {"round": rounds[-1], "rounds": rounds}
            return result | {"unanswered": questions[i:]}
    ctx.progress(total, total, "done", checkpoint=checkpoint)
    return {"round": rounds[-1], "rounds": rounds}
