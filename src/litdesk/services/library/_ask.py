"""``litdesk ask`` as one service call: a typed request, validated, asked of the app's
library (with the adoption lookup when asked)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, cast

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.core.library import DEFAULT_TOP_K

from ._library import Answer, Library

__all__ = ["AskRequest", "ask_library"]

ThinkingLevel = Literal["off", "low", "medium", "high"]
THINKING_LEVELS: Final = ("off", "low", "medium", "high")


class AskRefused(InputError):
    """The question's options do not fit together."""

    default_code = "arguments"


@dataclass(frozen=True, slots=True)
class AskRequest:
    """One question to the PDF library.

    ``papers`` limits the scope to these exact file names; ``whole_library`` asks every
    PDF (the default when ``papers`` is empty; giving both is refused). ``adopt`` looks
    up the identifier printed on unmatched PDFs of the scope (network).
    """

    question: str
    papers: tuple[str, ...] = ()
    whole_library: bool = False
    top_k: int = DEFAULT_TOP_K
    thinking: str | None = None
    adopt: bool = False

    def __post_init__(self) -> None:
        if self.whole_library and self.papers:
            raise AskRefused("use either --paper or --all", code="scope")
        if self.thinking is not None and self.thinking not in THINKING_LEVELS:
            raise AskRefused("--thinking takes off, low, medium or high", code="thinking")


def ask_library(settings: Settings, request: AskRequest, *, library: Library) -> Answer:
    """A grounded answer (every citation names a file and page) from the caller's open
    library (left open; the app's, with its adoption lookup when ``request.adopt``)."""
    del settings  # the library carries the app's settings
    return library.ask(
        request.question,
        papers=list(request.papers) or None,
        top_k=request.top_k,
        thinking=cast(ThinkingLevel | None, request.thinking),
    )
