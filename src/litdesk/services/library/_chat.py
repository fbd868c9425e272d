"""Paper chat for the web face: a scope per browser session (one paper, a selection or the
whole library), one grounded answer per question, the rounds kept and reopenable.

A session is named by a random token the face keeps in an HttpOnly cookie; its state (the
scope and the rounds) is a folder under ``library/chat-sessions/`` named by the token's
hash, so it survives a server restart and never puts the token on disk. Every round is
also appended to the library's protocol (:meth:`Library.ask` does that).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode, urlsplit
from urllib.request import url2pathname

from litdesk._errors import ExternalError, InputError, NotFoundError
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.core.library import DEFAULT_TOP_K

from ._indexer import hash_files
from ._library import Answer, Library
from ._sources import LibraryFile

__all__ = [
    "MAX_QUESTION_CHARS",
    "MAX_ROUNDS",
    "MAX_SCOPE",
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
MAX_SCOPE: Final = 200
MAX_QUESTION_CHARS: Final = 2_000
_TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
_MARKER: Final = re.compile(r"\[(\d{1,4})\]")
_REFS: Final = "\n\nReferences:\n"


class ChatInputError(InputError):
    default_code = "chat_input"


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
        }


class ChatService:
    """Scopes and rounds per session token, answers from ``library``.

    A session is a folder named by the token's hash: ``state.json`` (the scope and the
    index of rounds: number, time, question) and one ``round-<n>.json`` per answer card, so
    asking costs one small write whatever the session's length. In team mode the session
    belongs to the signed-in account too (:meth:`for_owner`): the folder is named by the hash
    of the account and the token, so a chat cookie left in a browser by another account
    opens nothing of theirs."""

    def __init__(
        self,
        library: Library,
        *,
        shown: int = SHOWN_ROUNDS,
        indexing: Callable[[], bool] | None = None,
        owner: str = LOCAL_OWNER,
    ) -> None:
        """``indexing()`` says whether a background job is indexing the library: questions
        then answer from the files indexed so far (named in a warning) instead of indexing
        the others first, beside the job."""
        self.library = library
        self.folder = library.root / "chat-sessions"
        self.shown = shown
        self.indexing = indexing
        self.owner = owner
        self._lock = threading.Lock()  # one question at a time (the library's caches)

    def for_owner(self, owner: str) -> ChatService:
        """The same service (library, folder, question lock) acting for ``owner``."""
        if owner == self.owner:
            return self
        bound = copy.copy(self)
        bound.owner = owner
        return bound

    # --- session state --------------------------------------------------------------
    def session_id(self, token: str) -> str:
        """The session's name on disk (the token's hash: a reference, not the secret)."""
        if not _TOKEN.match(token):
            raise ChatInputError("the chat session token is malformed", code="session")
        if self.owner != LOCAL_OWNER:  # team mode: the account's session only
            token = f"{self.owner}\0{token}"
        return hashlib.sha256(token.encode()).hexdigest()[:40]

    def _dir(self, session_id: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{40}", session_id):
            raise ChatInputError("the chat session id is malformed", code="session")
        return self.folder / session_id

    def _load(self, sid: str) -> dict[str, Any]:
        path = self._dir(sid) / "state.json"
        if not path.is_file():
            return {"papers": [], "whole_library": True, "rounds": []}
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return doc

    def _write(self, path: Path, doc: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)

    def _round(self, sid: str, entry: dict[str, Any]) -> ChatRound | None:
        path = self._dir(sid) / f"round-{int(entry['number'])}.json"
        if not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return ChatRound(int(entry["number"]), str(entry["asked_at"]), data)

    def _view(self, sid: str, doc: dict[str, Any]) -> ChatSession:
        recent = [self._round(sid, e) for e in doc["rounds"][-self.shown :]]
        names = tuple(self.library.corpus().names())
        return ChatSession(
            tuple(doc["papers"]), bool(doc["whole_library"]),
            tuple(r for r in recent if r is not None), names, tuple(doc["rounds"]),
        )  # fmt: skip

    def session(self, token: str) -> ChatSession:
        """The session's scope and rounds (a new session: the whole library, no rounds)."""
        sid = self.session_id(token)
        return self._view(sid, self._load(sid))

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
        self, token: str, papers: list[str], *, whole_library: bool = False
    ) -> ChatSession:
        """Keep the scope for the session: exact file names (unknown ones are refused with
        the library's real list), or the whole library."""
        names = list(dict.fromkeys(p.strip() for p in papers if p.strip()))
        if whole_library and names:
            raise ChatInputError("choose papers or the whole library, not both", code="scope")
        if not whole_library and not names:
            raise ChatInputError("choose at least one paper, or the whole library", code="scope")
        if len(names) > MAX_SCOPE:
            raise ChatInputError(f"at most {MAX_SCOPE} papers in a scope", code="scope")
        self.library.corpus().select(names)  # UnknownPapers lists the real names
        sid = self.session_id(token)
        doc = self._load(sid)
        doc["papers"], doc["whole_library"] = names, whole_library
        self._write(self._dir(sid) / "state.json", doc)
        return self._view(sid, doc)

    def round(self, token: str, number: int) -> ChatRound:
        """One earlier round of the session, to reopen."""
        sid = self.session_id(token)
        for entry in self._load(sid)["rounds"]:
            if entry["number"] == number:
                got = self._round(sid, entry)
                if got is not None:
                    return got
        raise RoundNotFound(f"this session has no round {number}")

    # --- questions ------------------------------------------------------------------
    def ask(self, token: str, question: str, *, top_k: int = DEFAULT_TOP_K) -> ChatRound:
        """Ask ``question`` in the session's scope; the answer card becomes the next round."""
        question = " ".join(question.split())
        if not question:
            raise ChatInputError("the question is empty", code="empty_question")
        if len(question) > MAX_QUESTION_CHARS:
            raise ChatInputError(
                f"the question is over {MAX_QUESTION_CHARS} characters", code="question_too_long"
            )
        sid = self.session_id(token)
        doc = self._load(sid)
        papers = [] if doc["whole_library"] else list(doc["papers"])
        with self._lock:
            busy = self.indexing() if self.indexing is not None else False
            try:
                answer = self.library.ask(
                    question,
                    papers=papers or None,
                    top_k=top_k,
                    index_missing=not busy,
                    owner=self.owner,
                )
            except ExternalError as exc:  # the model or the embedder did not answer
                raise ModelUnreachable(
                    f"the question could not be answered: {exc.message}. "
                    + model_options(self.library)
                ) from None
            data = self._card(answer, bool(doc["whole_library"]))
            doc = self._load(sid)  # another tab may have asked meanwhile
            number = max((r["number"] for r in doc["rounds"]), default=0) + 1
            asked = datetime.now(UTC).isoformat(timespec="seconds")
            folder = self._dir(sid)
            self._write(folder / f"round-{number}.json", data)
            doc["rounds"].append({"number": number, "asked_at": asked, "question": question})
            for old in doc["rounds"][:-MAX_ROUNDS]:
                (folder / f"round-{int(old['number'])}.json").unlink(missing_ok=True)
            doc["rounds"] = doc["rounds"][-MAX_ROUNDS:]
            self._write(folder / "state.json", doc)
        return ChatRound(number, asked, data)

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
