"""The typed requests of the library area (:class:`~._area.LibraryArea`), each validated
once, in ``__post_init__``, for every face: the CLI and the web build the same request."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from litdesk._errors import InputError
from litdesk.core.library import DEFAULT_TOP_K

from ._uploads import Upload

__all__ = [
    "MAX_PASSAGE_CHARS",
    "DEFAULT_ZOOM",
    "MAX_PER_PAGE",
    "MAX_QUESTION_CHARS",
    "MAX_SCOPE",
    "PER_PAGE",
    "THINKING_LEVELS",
    "ZOOMS",
    "AdoptRequest",
    "AskRefused",
    "AskRequest",
    "ChatInputError",
    "ChatQuestionRequest",
    "ChatRoundsRequest",
    "ChatScopeRequest",
    "MAX_ROUND_QUESTIONS",
    "LibraryPageInvalid",
    "LibraryPageRequest",
    "PageRequest",
    "ProtocolRequest",
    "UploadRequest",
    "ViewerInputError",
    "check_token",
    "clean_question",
]

THINKING_LEVELS: Final = ("off", "low", "medium", "high")
PER_PAGE: Final = 50
MAX_PER_PAGE: Final = 200
MAX_FILE_NAME: Final = 300
#: zoom levels in percent; 100 % renders at 96 dpi (CSS pixels at 1:1)
ZOOMS: Final = (50, 75, 100, 125, 150, 200)
DEFAULT_ZOOM: Final = 100
MAX_PASSAGE_CHARS: Final = 4_000
MAX_PAGE: Final = 100_000
MAX_SCOPE: Final = 200
MAX_QUESTION_CHARS: Final = 2_000
_SHA: Final = re.compile(r"^[0-9a-f]{64}$")
_TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{32,64}$")


class AskRefused(InputError):
    """The question's options do not fit together."""

    default_code = "arguments"


class LibraryPageInvalid(InputError):
    default_code = "library_page"


class ViewerInputError(InputError):
    default_code = "viewer"


class ChatInputError(InputError):
    default_code = "chat_input"


def check_token(token: str) -> str:
    """``token`` when it is a well-formed chat session token (else refused)."""
    if not _TOKEN.match(token):
        raise ChatInputError("the chat session token is malformed", code="session")
    return token


def clean_question(question: str) -> str:
    """The question with its whitespace folded; refused when empty or too long."""
    folded = " ".join(question.split())
    if not folded:
        raise ChatInputError("the question is empty", code="empty_question")
    if len(folded) > MAX_QUESTION_CHARS:
        raise ChatInputError(
            f"the question is over {MAX_QUESTION_CHARS} characters", code="question_too_long"
        )
    return folded


@dataclass(frozen=True, slots=True)
class AskRequest:
    """One question to the PDF library (``litdesk ask``).

    ``papers`` limits the scope to these exact file names; ``whole_library`` asks every
    PDF (the default when ``papers`` is empty; giving both is refused); ``study`` (a
    Study's id or name, for its members) asks the PDFs attached to its papers. ``adopt`` looks
    up the identifier printed on unmatched PDFs of the scope (network). The question and
    ``top_k`` are checked by the retrieval (the same rules for the chat's questions).
    """

    question: str
    papers: tuple[str, ...] = ()
    whole_library: bool = False
    top_k: int = DEFAULT_TOP_K
    thinking: str | None = None
    adopt: bool = False
    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", " ".join((self.study or "").split())[:200] or None)
        if sum((bool(self.papers), self.whole_library, self.study is not None)) > 1:
            raise AskRefused("use one of --paper, --study or --all", code="scope")
        if self.thinking is not None and self.thinking not in THINKING_LEVELS:
            raise AskRefused("--thinking takes off, low, medium or high", code="thinking")


@dataclass(frozen=True, slots=True)
class LibraryPageRequest:
    """One page of the library's files; ``models`` adds the model status (``check``: each
    model server asked whether it is reachable)."""

    page: int = 1
    per_page: int = PER_PAGE
    models: bool = False
    check: bool = False

    def __post_init__(self) -> None:
        if self.page < 1 or not 1 <= self.per_page <= MAX_PER_PAGE:
            raise LibraryPageInvalid(f"page ≥ 1 and per_page 1–{MAX_PER_PAGE}")


@dataclass(frozen=True, slots=True)
class UploadRequest:
    """PDFs uploaded into the inbox (each checked and stored or refused by the area:
    one refused file does not refuse the others)."""

    files: tuple[Upload, ...]


@dataclass(frozen=True, slots=True)
class AdoptRequest:
    """Look up the identifier printed on the library PDF ``file`` (its exact name)."""

    file: str

    def __post_init__(self) -> None:
        if not self.file or len(self.file) > MAX_FILE_NAME:
            raise InputError(
                f"name a PDF of the library (1–{MAX_FILE_NAME} characters)",
                code="file",
                field="file",
            )


@dataclass(frozen=True, slots=True)
class PageRequest:
    """One page of the library PDF ``sha`` (its content hash) at ``zoom`` percent, with
    ``passage`` highlighted (its whitespace folded)."""

    sha: str
    page: int = 1
    passage: str | None = None
    zoom: int = DEFAULT_ZOOM

    def __post_init__(self) -> None:
        if not _SHA.match(self.sha):
            raise ViewerInputError("a PDF is named by its SHA-256 (64 hex digits)", code="sha")
        if not 1 <= self.page <= MAX_PAGE:
            raise ViewerInputError(f"page must be 1–{MAX_PAGE}", code="page", field="page")
        if self.zoom not in ZOOMS:
            raise ViewerInputError(
                f"zoom must be one of {', '.join(map(str, ZOOMS))}", code="zoom", field="zoom"
            )
        if self.passage is not None and len(self.passage) > MAX_PASSAGE_CHARS:
            raise ViewerInputError(
                f"the passage is over {MAX_PASSAGE_CHARS} characters", code="passage_too_long"
            )
        text = " ".join(self.passage.split()) if self.passage else None
        object.__setattr__(self, "passage", text or None)


@dataclass(frozen=True, slots=True)
class ChatScopeRequest:
    """The chat session ``token``'s scope: exact file names, or the whole library (names
    stripped, duplicates dropped; unknown names are refused by the area with the
    library's list)."""

    token: str
    papers: tuple[str, ...] = ()
    whole_library: bool = False

    def __post_init__(self) -> None:
        check_token(self.token)
        names = tuple(dict.fromkeys(p.strip() for p in self.papers if p.strip()))
        if self.whole_library and names:
            raise ChatInputError("choose papers or the whole library, not both", code="scope")
        if not self.whole_library and not names:
            raise ChatInputError("choose at least one paper, or the whole library", code="scope")
        if len(names) > MAX_SCOPE:
            raise ChatInputError(f"at most {MAX_SCOPE} papers in a scope", code="scope")
        object.__setattr__(self, "papers", names)


@dataclass(frozen=True, slots=True)
class ChatQuestionRequest:
    """A question in the chat session ``token``'s scope (its whitespace folded)."""

    token: str
    question: str

    def __post_init__(self) -> None:
        check_token(self.token)
        object.__setattr__(self, "question", clean_question(self.question))


#: questions one chat job may ask in a row (the report wizard's "answer in the chat only")
MAX_ROUND_QUESTIONS: Final = 20


@dataclass(frozen=True, slots=True)
class ChatRoundsRequest:
    """Several questions asked as rounds of the chat session ``token``, in order, over
    ``scope`` (which becomes the session's scope): the report wizard's "answer in the chat
    only". Blank questions are dropped; at least one is needed."""

    scope: ChatScopeRequest
    questions: tuple[str, ...]

    def __post_init__(self) -> None:
        asked = tuple(clean_question(q) for q in self.questions if q.strip())
        if not asked:
            raise ChatInputError("write at least one question to ask in the chat", code="question")
        if len(asked) > MAX_ROUND_QUESTIONS:
            raise ChatInputError(
                f"at most {MAX_ROUND_QUESTIONS} questions at once", code="too_many_questions"
            )
        object.__setattr__(self, "questions", asked)

    @property
    def token(self) -> str:
        return self.scope.token


@dataclass(frozen=True, slots=True)
class ProtocolRequest:
    """The protocol of one day (``YYYY-MM-DD``, UTC; ``None``: today)."""

    day: str | None = None

    def __post_init__(self) -> None:
        if self.day is not None and not re.fullmatch(r"\d{4}-\d\d-\d\d", self.day):
            raise InputError(
                "the day must be written YYYY-MM-DD, for example 2026-03-01",
                code="protocol_day", field="day",
            )  # fmt: skip
