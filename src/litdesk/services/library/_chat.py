"""Paper chat for the web face: a scope per browser session (one paper, a selection or the
whole library), one grounded answer per question, the rounds kept and reopenable.

A session is named by a random token the face keeps in an HttpOnly cookie; its state (the
scope and the rounds) is a folder under ``library/chat-sessions/`` named by the token's
hash, so it survives a server restart and never puts the token on disk; with an object
store shared by several hosts its documents are read from and written to the store (the
library's shelf), so a chat saved on one host reopens on another. Every round is
also appended to the library's protocol (:meth:`Library.ask` does that).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode, urlsplit
from urllib.request import url2pathname

from litdesk._errors import ExternalError, LitdeskError, NotFoundError
from litdesk.adapters.llm import ChatBackend
from litdesk.adapters.store import LOCAL_OWNER, chats
from litdesk.core.library import DEFAULT_TOP_K
from litdesk.services.assist import CHAT_FEATURE, MeteredBackend
from litdesk.services.jobs import JobContext, JobNotFound, Jobs, new_job_id

from ._chat_jobs import (
    CHAT_KIND,
    ChatBusy,
    ChatJob,
    ChatJobNotFound,
    JobStopped,
    JournaledBackend,
    chat_owner,
    error_result,
)
from ._chat_rounds import run_rounds
from ._indexer import hash_files
from ._library import Answer, Library, Lookup
from ._requests import (
    MAX_QUESTION_CHARS,
    MAX_SCOPE,
    ChatInputError,
    ChatQuestionRequest,
    ChatRoundsRequest,
    ChatScopeRequest,
    check_token,
)
from ._sources import LibraryFile

try:  # the session folder's lock across processes (team servers are POSIX hosts)
    import fcntl
except ImportError:  # pragma: no cover - Windows: one process only, the thread lock below
    fcntl = None  # type: ignore[assignment]

#: advisory-lock namespace of a chat session's writes across hosts (PostgreSQL)
_SESSION_LOCK: Final = 1909102077

__all__ = [
    "CHAT_KIND",
    "MAX_QUESTION_CHARS",
    "MAX_ROUNDS",
    "MAX_SCOPE",
    "ChatBusy",
    "ChatHistoryChat",
    "ChatHistoryItem",
    "ChatJob",
    "ChatJobNotFound",
    "ChatNotFound",
    "ChatRound",
    "ChatService",
    "ChatSession",
    "ModelUnreachable",
    "RoundNotFound",
    "model_options",
    "viewer_link",
]

MAX_ROUNDS: Final = 200
#: rounds shown in full on the chat page (the others are listed and reopen)
SHOWN_ROUNDS: Final = 10
_MARKER: Final = re.compile(r"\[(\d{1,4})\]")
_REFS: Final = "\n\nReferences:\n"


class ModelUnreachable(ExternalError):
    """The embedder or the chat model did not answer; the message names the options."""

    default_code = "model_unreachable"


def model_options(library: Library) -> str:
    """What to do when the configured models do not answer (local, hosted, none)."""
    s = library.settings
    chat = s.chat_model or "<model>"
    embed = s.embedder.removeprefix("ollama:") if s.embedder.startswith("ollama:") else None
    pulls = [
        f"`ollama pull {m}`" for m in (chat if s.llm_backend == "openai" else None, embed) if m
    ]
    local = (
        f"start the model server at {s.openai_base_url} ({' and '.join(pulls)} for a local Ollama)"
        if pulls
        else "start the model server"
    )
    return (
        f"Options: {local}; or use Anthropic (LITDESK_LLM_BACKEND=anthropic and "
        "LITDESK_ANTHROPIC_API_KEY); or ask without a model (LITDESK_LLM_BACKEND=none: "
        "extractive answers)."
    )


class RoundNotFound(NotFoundError):
    """No such round in this browser session."""

    default_code = "round_not_found"


def _link_path(link: str) -> Path:
    """The file path of a citation's ``file://…#page=N`` link."""
    return Path(url2pathname(urlsplit(link).path))


def viewer_link(sha: str, page: int, passage: str | None = None) -> str:
    """The viewer's address of ``page`` of the PDF ``sha``, the passage highlighted."""
    query = {"page": str(page)} | ({"passage": passage[:1_500]} if passage else {})
    return f"/library/pdf/{sha}?{urlencode(query)}"


def answer_parts(body: str, labels: set[str]) -> list[dict[str, str]]:
    """The answer body as text and citation parts (``{"text"}`` / ``{"label"}``)."""
    parts: list[dict[str, str]] = []
    last = 0
    for m in _MARKER.finditer(body):
        if m.group(1) not in labels:
            continue
        if m.start() > last:
            parts.append({"text": body[last : m.start()]})
        parts.append({"label": m.group(1)})
        last = m.end()
    if last < len(body):
        parts.append({"text": body[last:]})
    return parts


@dataclass(frozen=True, slots=True)
class ChatRound:
    """One question and its grounded answer card."""

    number: int
    asked_at: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "asked_at": self.asked_at} | self.data


@dataclass(frozen=True, slots=True)
class ChatSession:
    """A browser session's scope, every round's question (``index``, oldest first) and the
    latest rounds in full (``rounds``)."""

    papers: tuple[str, ...]
    whole_library: bool
    rounds: tuple[ChatRound, ...]
    library: tuple[str, ...] = field(default_factory=tuple)
    index: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    #: the session's latest question job: in flight, or not answered (the refusal shown)
    job: ChatJob | None = None
    #: the Study whose PDFs are the scope (``{"id", "name"}``), if one was chosen
    study: dict[str, str] | None = None

    @property
    def questions(self) -> list[str]:
        return list(dict.fromkeys(str(r["question"]) for r in self.index))

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": {"papers": list(self.papers), "whole_library": self.whole_library},
            "index": list(self.index),
            "rounds": [r.to_dict() for r in self.rounds],
            "questions": self.questions,
            "library": list(self.library),
            "job": self.job.to_dict() if self.job is not None else None,
            "study": self.study,
        }


@dataclass(frozen=True, slots=True)
class ChatHistoryItem:
    """One chat of an account's history: its id (a hash), title (the first question),
    round count and times."""

    id: str
    title: str
    rounds: int
    created_at: str
    updated_at: str
    #: the Study whose PDFs the chat asked (its latest scope), if any
    study_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "rounds": self.rounds,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "study_id": self.study_id,
        }


@dataclass(frozen=True, slots=True)
class ChatHistoryChat:
    """One chat of the history reopened: its scope (``()``: the whole library) and rounds."""

    chat: ChatHistoryItem
    papers: tuple[str, ...]
    rounds: tuple[ChatRound, ...]

    def to_dict(self) -> dict[str, Any]:
        return self.chat.to_dict() | {
            "scope": {"papers": list(self.papers), "whole_library": not self.papers},
            "rounds": [r.to_dict() for r in self.rounds],
        }


class ChatNotFound(NotFoundError):
    """No such chat in the account's history."""

    default_code = "chat_not_found"


class ChatService:
    """Scopes and rounds per session token, answers from ``library``.

    A session is a folder named by the token's hash: ``state.json`` (the scope and the
    index of rounds: number, time, question) and one ``round-<n>.json`` per answer card, so
    asking costs one small write whatever the session's length. In team mode the session
    belongs to the signed-in account too (every method's ``owner``): the folder is named by
    the hash of the account and the token, so a chat cookie left in a browser by another
    account opens nothing of theirs."""

    def __init__(
        self,
        library: Library,
        *,
        shown: int = SHOWN_ROUNDS,
        indexing: Callable[[], bool] | None = None,
        jobs: Jobs | None = None,
        lookup: Callable[[str], Lookup] | None = None,
    ) -> None:
        """``indexing()`` says whether a background job is indexing the library: questions
        then answer from the files indexed so far (named in a warning) instead of indexing
        the others first, beside the job. ``jobs``: the store's queue, for questions
        answered as jobs (:meth:`submit`; the web face). ``lookup(owner)``: the adoption
        lookup in ``owner``'s allowance, tried for the scope's PDFs without metadata
        before an answer (refused where the app has no event loop: then none is tried)."""
        self.library = library
        self._lookup = lookup
        self.folder = library.root / "chat-sessions"
        self.shown = shown
        self.indexing = indexing
        self.jobs = jobs
        # Guards the library's in-process caches (the embedder, the loaded index tables)
        # against two answers at once in this process (two job-runner slots, or a job
        # beside a direct ask). It decides nothing about sessions: one question in flight
        # per session is the store's job queue's rule, across every process.
        self._lock = threading.Lock()
        self._files = threading.Lock()  # the session folder's lock where fcntl is missing

    # --- session state --------------------------------------------------------------
    def session_id(self, token: str, *, owner: str) -> str:
        """The session's name on disk (the token's hash: a reference, not the secret)."""
        check_token(token)
        if owner != LOCAL_OWNER:  # team mode: the account's session only
            token = f"{owner}\0{token}"
        return hashlib.sha256(token.encode()).hexdigest()[:40]

    def catch_up(self) -> None:
        """Store the sessions kept here before the object store was shared (once per
        process: at the server's start, else before the first session is read)."""
        self.library.shelf.catch_up(self.folder)

    def _dir(self, session_id: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{40}", session_id):
            raise ChatInputError("the chat session id is malformed", code="session")
        self.catch_up()  # every session's read or write comes here first
        return self.folder / session_id

    def _load(self, sid: str) -> dict[str, Any]:
        text = self.library.shelf.read_text(self._dir(sid) / "state.json")
        if text is None:
            return {"papers": [], "whole_library": True, "rounds": []}
        doc: dict[str, Any] = json.loads(text)
        return doc

    def _write(self, path: Path, doc: dict[str, Any]) -> None:
        """Write one document of a session (here, and in a shared object store)."""
        self.library.shelf.write_text(path, json.dumps(doc, ensure_ascii=False))

    def _round(self, sid: str, entry: dict[str, Any]) -> ChatRound | None:
        text = self.library.shelf.read_text(self._dir(sid) / f"round-{int(entry['number'])}.json")
        if text is None:
            return None
        data = json.loads(text)
        return ChatRound(int(entry["number"]), str(entry["asked_at"]), data)

    def _view(self, sid: str, doc: dict[str, Any]) -> ChatSession:
        recent = [self._round(sid, e) for e in doc["rounds"][-self.shown :]]
        names = tuple(self.library.corpus().names())
        return ChatSession(
            tuple(doc["papers"]), bool(doc["whole_library"]),
            tuple(r for r in recent if r is not None), names, tuple(doc["rounds"]),
            study=doc.get("study"),
        )  # fmt: skip

    def session(self, token: str, *, owner: str) -> ChatSession:
        """The session's scope and rounds (a new session: the whole library, no rounds),
        and its latest question job when it is in flight or was not answered."""
        sid = self.session_id(token, owner=owner)
        view = self._view(sid, self._load(sid))
        if self.jobs is None:
            return view
        latest = self.jobs.list(owner=chat_owner(sid), kinds=[CHAT_KIND], limit=1)
        job = ChatJob.from_view(latest[0]) if latest else None
        return replace(view, job=job) if job is not None and job.state != "done" else view

    def answers_for(
        self, session_id: str, papers: list[str], *, whole_library: bool = False
    ) -> dict[str, dict[str, Any]]:
        """The session's latest grounded answer per question asked over exactly ``papers``
        (the file names of a report's scope; or the whole library), to be reused."""
        out: dict[str, dict[str, Any]] = {}
        for entry in self._load(session_id)["rounds"]:
            got = self._round(session_id, entry)
            if got is None:
                continue
            data = got.data
            same = (
                bool(data["whole_library"])
                if whole_library
                else not data["whole_library"] and sorted(data["scope"]) == sorted(papers)
            )
            if same and data["grounded"]:
                out[data["question"]] = data
        return out

    def set_scope(
        self, request: ChatScopeRequest, *, owner: str, study: dict[str, str] | None = None
    ) -> ChatSession:
        """Keep the scope for the session: exact file names (unknown ones are refused with
        the library's real list), or the whole library; ``study`` (id and name): the names
        are the PDFs of that Study's papers."""
        names = list(request.papers)
        self.library.corpus().select(names)  # UnknownPapers lists the real names
        sid = self.session_id(request.token, owner=owner)
        with self._locked(sid):
            doc = self._load(sid)
            doc["papers"], doc["whole_library"] = names, request.whole_library
            doc["study"] = study
            self._write(self._dir(sid) / "state.json", doc)
        return self._view(sid, doc)

    def round(self, token: str, number: int, *, owner: str) -> ChatRound:
        """One earlier round of the session, to reopen."""
        sid = self.session_id(token, owner=owner)
        for entry in self._load(sid)["rounds"]:
            if entry["number"] == number:
                got = self._round(sid, entry)
                if got is not None:
                    return got
        raise RoundNotFound(f"this session has no round {number}")

    @contextmanager
    def _locked(self, sid: str) -> Iterator[None]:
        """The session's state, written by one writer at a time across processes (a round
        written by a job beside a scope set by a request, on any server of the data dir)."""
        folder = self._dir(sid)
        folder.mkdir(parents=True, exist_ok=True)
        store = self.library.store
        if self.library.shelf.shared and store.is_postgres:
            # several hosts: the session's lock is PostgreSQL's, held for the writes
            with store.write() as conn:
                store.lock(conn, _SESSION_LOCK, sid)
                yield
            return
        if fcntl is None:  # pragma: no cover - Windows
            with self._files:
                yield
            return
        with (folder / ".lock").open("a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # --- questions ------------------------------------------------------------------
    def ask(
        self, request: ChatQuestionRequest, *, owner: str, top_k: int = DEFAULT_TOP_K
    ) -> ChatRound:
        """Ask the question in the session's scope here and now; the answer card becomes
        the next round (the web face queues :meth:`submit` instead)."""
        sid = self.session_id(request.token, owner=owner)
        doc = self._load(sid)
        papers = [] if doc["whole_library"] else list(doc["papers"])
        whole = bool(doc["whole_library"])
        data = self._answer(request.question, papers, whole, owner=owner, top_k=top_k)
        return self._record(sid, request.question, data, owner=owner)

    def _answer(
        self,
        question: str,
        papers: list[str],
        whole: bool,
        *,
        owner: str,
        top_k: int = DEFAULT_TOP_K,
        backend: ChatBackend | None = None,
    ) -> dict[str, Any]:
        """The answer card of ``question`` over ``papers`` (the whole library: ``[]``)."""
        with self._lock:
            busy = self.indexing() if self.indexing is not None else False
            adoption = [] if busy else self._adopt(papers, owner)
            try:
                answer = self.library.ask(
                    question,
                    papers=papers or None,
                    top_k=top_k,
                    index_missing=not busy,
                    owner=owner,
                    backend=backend,
                )
            except ExternalError as exc:  # the model or the embedder did not answer
                raise ModelUnreachable(
                    f"the question could not be answered: {exc.message}. "
                    + model_options(self.library)
                ) from None
            answer.warnings[:0] = adoption  # disclosed on the card
            return self._card(answer, whole)

    def _adopt(self, papers: list[str], owner: str) -> list[str]:
        """Adoption tried for the scope's PDFs without metadata (the disclosure lines)."""
        if self._lookup is None:
            return []
        try:
            lookup = self._lookup(owner)
        except LitdeskError:
            return []  # no event loop here: nothing is looked up
        return self.library.adopt_scope(papers or None, lookup)

    def _record(
        self,
        sid: str,
        question: str,
        data: dict[str, Any],
        *,
        owner: str,
        job: str | None = None,
    ) -> ChatRound:
        """Write the card as the session's next round; for a ``job`` once only (a job
        claimed again after its worker died finds its round and writes no second)."""
        with self._locked(sid):
            doc = self._load(sid)  # another tab may have asked meanwhile
            if job is not None:
                for entry in doc["rounds"]:
                    if entry.get("job") == job:
                        found = self._round(sid, entry)
                        if found is not None:
                            return found
            number = max((r["number"] for r in doc["rounds"]), default=0) + 1
            asked = datetime.now(UTC).isoformat(timespec="seconds")
            folder = self._dir(sid)
            self._write(folder / f"round-{number}.json", data)
            entry = {"number": number, "asked_at": asked, "question": question}
            doc["rounds"].append(entry | ({"job": job} if job is not None else {}))
            for old in doc["rounds"][:-MAX_ROUNDS]:
                self.library.shelf.delete(folder / f"round-{int(old['number'])}.json")
            doc["rounds"] = doc["rounds"][-MAX_ROUNDS:]
            self._write(folder / "state.json", doc)
            first = str(doc["rounds"][0]["question"])
            with self.library.store.write() as conn:  # the account's history (store)
                chats.touch_chat(
                    conn,
                    sid,
                    owner,
                    title=first,
                    study_id=(doc.get("study") or {}).get("id"),
                    rounds=len(doc["rounds"]),
                    when=datetime.now(UTC).isoformat(timespec="microseconds"),
                )
        return ChatRound(number, asked, data)

    # --- the account's history ---------------------------------------------------------
    def history(self, *, owner: str, study_id: str | None = None) -> list[ChatHistoryItem]:
        """``owner``'s chats with rounds (over one Study's PDFs with ``study_id``), the
        latest first (from the store: any browser)."""
        with self.library.store.read() as conn:
            rows = chats.list_chats(conn, owner, study_id=study_id)
        return [
            ChatHistoryItem(r.id, r.title, r.rounds, r.created_at, r.updated_at, r.study_id)
            for r in rows
        ]

    def _owned(self, session_id: str, owner: str) -> chats.ChatRow:
        self._dir(session_id)  # refuses a malformed id
        with self.library.store.read() as conn:
            row = chats.get_chat(conn, session_id, owner)
        if row is None:
            raise ChatNotFound("no such chat in your history")
        return row

    def past(self, session_id: str, *, owner: str) -> ChatHistoryChat:
        """One chat of ``owner``'s history with every round it keeps, to reopen."""
        row = self._owned(session_id, owner)
        doc = self._load(session_id)
        rounds = [self._round(session_id, e) for e in doc["rounds"]]
        item = ChatHistoryItem(
            row.id, row.title, row.rounds, row.created_at, row.updated_at, row.study_id
        )
        scope = () if doc["whole_library"] else tuple(doc["papers"])
        return ChatHistoryChat(item, scope, tuple(r for r in rounds if r is not None))

    def past_round(self, session_id: str, number: int, *, owner: str) -> ChatRound:
        """One round of one chat of ``owner``'s history (a stable address, any browser)."""
        self._owned(session_id, owner)
        for entry in self._load(session_id)["rounds"]:
            if entry["number"] == number:
                got = self._round(session_id, entry)
                if got is not None:
                    return got
        raise RoundNotFound(f"this chat has no round {number}")

    def forget(self, session_id: str, *, owner: str) -> None:
        """Delete one chat of ``owner``'s history: its row and its rounds (the day's
        protocol files keep what was asked, as before)."""
        self._owned(session_id, owner)
        with self._locked(session_id):
            with self.library.store.write() as conn:
                chats.drop_chat(conn, session_id, owner)
            folder = self._dir(session_id)
            shelf = self.library.shelf
            for name in shelf.names(folder, "round-*.json"):
                shelf.delete(folder / name)
            shelf.delete(folder / "state.json")

    # --- questions as jobs of the store's queue ----------------------------------------
    def _queue(self) -> Jobs:
        if self.jobs is None:
            raise ChatInputError("questions are not queued here (no job queue)", code="no_jobs")
        return self.jobs

    def submit(self, request: ChatQuestionRequest, *, owner: str) -> ChatJob:
        """Queue the question in the session's scope (kept with the job) as a
        ``chat.answer`` job; :class:`ChatBusy` while another question of the session is
        queued or running, on any worker of any process (the queue's rule, in the store)."""
        question = request.question
        sid = self.session_id(request.token, owner=owner)
        doc = self._load(sid)
        whole = bool(doc["whole_library"])
        params = {
            "session": sid,
            "question": question,
            "papers": [] if whole else list(doc["papers"]),
            "whole_library": whole,
            "by": owner,
        }
        job_id = new_job_id()
        view = self._queue().submit(
            CHAT_KIND,
            params,
            owner=chat_owner(sid),
            reuse_active=True,
            job_id=job_id,
            account=owner,  # every session's questions count against the asking account
        )
        if view.id != job_id:
            raise ChatBusy(
                "a question of this chat session is still being answered: wait for its "
                "answer, or cancel it",
                job=view.id,
            )
        return ChatJob.from_view(view)

    def submit_rounds(
        self, request: ChatRoundsRequest, *, owner: str, study: dict[str, str] | None = None
    ) -> ChatJob:
        """Queue several questions as one ``chat.answer`` job over ``request.scope`` (unknown
        papers refused with the library's list), each written as the session's next round
        in order; the scope becomes the session's (``study``, id and name: the scope is
        that Study's PDFs, as :meth:`set_scope`). :class:`ChatBusy` as :meth:`submit`."""
        scope = request.scope
        self.library.corpus().select(list(scope.papers))  # UnknownPapers lists the real names
        sid = self.session_id(request.token, owner=owner)
        params = {
            "session": sid,
            "question": request.questions[0],
            "questions": list(request.questions),
            "papers": list(scope.papers),
            "whole_library": scope.whole_library,
            "by": owner,
        }
        job_id = new_job_id()
        view = self._queue().submit(
            CHAT_KIND, params, owner=chat_owner(sid), reuse_active=True, job_id=job_id,
            account=owner,
        )  # fmt: skip
        if view.id != job_id:
            raise ChatBusy(
                "a question of this chat session is still being answered: wait for its "
                "answer, or cancel it, then ask these questions",
                job=view.id,
            )
        self.set_scope(scope, owner=owner, study=study)  # the next question: the same papers
        return ChatJob.from_view(view)

    def job(self, token: str, job_id: str, *, owner: str) -> ChatJob:
        """The question job ``job_id`` of this session (any other is not found), with its
        round's answer card once written."""
        sid = self.session_id(token, owner=owner)
        try:
            view = self._queue().get(job_id, owner=chat_owner(sid))
        except JobNotFound:
            raise ChatJobNotFound("this chat session has no such question") from None
        if view.kind != CHAT_KIND:
            raise ChatJobNotFound("this chat session has no such question")
        return self._with_answer(sid, ChatJob.from_view(view))

    def _with_answer(self, sid: str, job: ChatJob) -> ChatJob:
        if job.round is None:
            return job
        for entry in self._load(sid)["rounds"]:
            if entry["number"] == job.round:
                got = self._round(sid, entry)
                return replace(job, answer=got.to_dict()) if got is not None else job
        return job  # the round has since left the session (its oldest rounds are dropped)

    def cancel(self, token: str, job_id: str, *, owner: str) -> ChatJob:
        """Cancel a queued question; ask a running one to stop (a model call under way
        ends first; its answer is then not written)."""
        self.job(token, job_id, owner=owner)
        sid = self.session_id(token, owner=owner)
        view = self._queue().cancel(job_id, owner=chat_owner(sid))
        return self._with_answer(sid, ChatJob.from_view(view))

    def run_job(self, ctx: JobContext) -> dict[str, Any] | None:
        """The ``chat.answer`` handler: answer, then write the round once per job id.

        A reply a previous attempt got is replayed from the checkpoint, not asked (nor
        paid) again; a finished card in the checkpoint is written as it is."""
        p = ctx.params
        if isinstance(p.get("questions"), list):  # several rounds (:meth:`submit_rounds`)
            return run_rounds(self, ctx)
        sid, question = str(p["session"]), str(p["question"])
        with self._locked(sid):
            for entry in self._load(sid)["rounds"]:
                if entry.get("job") == ctx.job.id:  # written; the worker died after
                    return {"round": int(entry["number"])}
        owner = str(p.get("by") or LOCAL_OWNER)
        checkpoint = dict(ctx.checkpoint or {})
        card = checkpoint.get("card")
        try:
            if not isinstance(card, dict):
                card = self._job_answer(ctx, checkpoint, question, p, owner=owner)
            return {"round": self._record(sid, question, card, job=ctx.job.id, owner=owner).number}
        except JobStopped:
            return None  # the runner records why (cancelled, handed back, taken over)
        except LitdeskError as exc:  # refused or unreachable: nothing written, said why
            return error_result(exc)

    def _job_answer(
        self,
        ctx: JobContext,
        checkpoint: dict[str, Any],
        question: str,
        p: dict[str, Any],
        *,
        owner: str,
    ) -> dict[str, Any]:
        if not ctx.progress(0, None, "retrieving"):
            raise JobStopped("retrieving")
        inner = self.library.backend()
        journal: JournaledBackend | None = None
        backend: ChatBackend | None = None
        if inner.is_model:
            metered = self.library.meter(inner, owner, CHAT_FEATURE)
            journal = JournaledBackend(metered, ctx, checkpoint)
            journal.close_pending(self.library.allowance())
            if isinstance(metered, MeteredBackend):
                metered.on_reserved = journal.reserved
            backend = journal
        papers = [str(x) for x in p.get("papers") or []]
        whole = bool(p.get("whole_library"))
        card = self._answer(question, papers, whole, owner=owner, backend=backend)
        checkpoint["card"] = card
        done = journal.made if journal is not None else 0
        if not ctx.progress(done, None, "recording", checkpoint=checkpoint):
            raise JobStopped("recording")
        return card

    def _card(self, answer: Answer, whole: bool) -> dict[str, Any]:
        # the cited files from their links (no second walk of the library), hashed alone
        files = {
            c["file"]: LibraryFile(c["file"], _link_path(c["link"]), "cited")
            for c in [*answer.citations, *answer.near_misses]
        }
        hashes = hash_files(self.library.catalogue, list(files.values()))
        sha_of = {n: hashes[f.path] for n, f in files.items() if f.path in hashes}
        body, _, _ = answer.answer.partition(_REFS)
        citations = []
        for c in answer.citations:
            sha = sha_of.get(c["file"])
            citations.append(
                {
                    "label": c["label"],
                    "file": c["file"],
                    "page": c["page"],
                    "title": c.get("title"),
                    "text": c["text"],
                    "sha256": sha,
                    "viewer": viewer_link(sha, c["page"], c["text"]) if sha else None,
                }
            )
        near = []
        for n in answer.near_misses:
            sha = sha_of.get(n["file"])
            near.append(
                {
                    "file": n["file"],
                    "page": n["page"],
                    "text": n["text"],
                    "viewer": viewer_link(sha, n["page"], n["text"]) if sha else None,
                }
            )
        extractive = answer.model.startswith("none")
        return {
            "question": answer.question,
            "variant": answer.variant,
            "answer": body,
            "parts": answer_parts(body, {c["label"] for c in citations}),
            "grounded": answer.grounded,
            "abstained": answer.abstained,
            "citations": citations,
            "near_misses": near,
            "warnings": answer.warnings,
            "model": "extractive" if extractive else answer.model,
            "extractive": extractive,
            # the whole library's names are not repeated in every round
            "scope": [] if whole else answer.scope,
            "whole_library": whole,
        }
