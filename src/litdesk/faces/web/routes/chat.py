"""Paper chat ``/chat``: the scope kept for the browser session (an HttpOnly cookie names
the session's server state), one grounded answer card per question, earlier rounds
listed and reopenable at ``/chat/round/<n>``; ``/api/v1/chat…`` are the JSON twins."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.assist import AllowanceRefused
from litdesk.services.library import ChatService

from .._library_state import ChatDep
from .._render import page

__all__ = ["CHAT_COOKIE", "api", "pages", "session_token"]

pages = APIRouter()
api = APIRouter(tags=["chat"])

CHAT_COOKIE: Final = "ld_chat"
MAX_QUESTION: Final = 2_000
Round = Annotated[int, Path(ge=1, le=1_000_000, description="A round number of this session.")]


def session_token(request: Request) -> tuple[str, bool]:
    """The browser session's chat token (a new one when the cookie is missing or bad)."""
    token = request.cookies.get(CHAT_COOKIE, "")
    if 32 <= len(token) <= 64 and all(c.isalnum() or c in "-_" for c in token):
        return token, False
    return secrets.token_urlsafe(32), True


def _keep(response: Response, token: str, new: bool) -> Response:
    if new:  # the browser session's cookie: no Max-Age, gone when the browser closes
        response.set_cookie(
            CHAT_COOKIE, token, path="/", httponly=True, samesite="strict", secure=False
        )
    return response


def chat_view(chat: ChatService, token: str) -> dict[str, Any]:
    return chat.session(token).to_dict()


@pages.get("/chat", response_class=HTMLResponse)
def chat_page(request: Request, chat: ChatDep) -> Response:
    token, new = session_token(request)
    data = chat_view(chat, token)
    return _keep(page(request, "chat.html", data, title="Paper chat"), token, new)


@api.get("/chat", summary="This browser session's chat scope, rounds and the library's names")
def chat_api(request: Request, chat: ChatDep) -> Response:
    token, new = session_token(request)
    return _keep(JSONResponse(chat_view(chat, token)), token, new)


class ScopeBody(BaseModel):
    papers: list[str] = Field(default_factory=list, max_length=200)
    whole_library: bool = False


class AskBody(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION)


@api.post("/chat/scope", summary="Set the session's scope: exact file names or the whole library")
def scope_api(request: Request, chat: ChatDep, body: ScopeBody) -> Response:
    token, new = session_token(request)
    view = chat.set_scope(token, body.papers, whole_library=body.whole_library)
    return _keep(JSONResponse(view.to_dict()), token, new)


def _refused_status(exc: AllowanceRefused) -> tuple[int, dict[str, str]]:
    """429 with Retry-After for a spent allowance or a call in flight; 503 when the store
    could not check it (as the AI assistance answers)."""
    retry = exc.details.get("retry_after")
    headers = {"retry-after": str(retry)} if isinstance(retry, int) else {}
    return (503 if exc.code == "store_unavailable" else 429), headers


@api.post("/chat/ask", summary="Ask a question in the session's scope: the answer card")
def ask_api(request: Request, chat: ChatDep, body: AskBody) -> Response:
    token, new = session_token(request)
    try:
        done = chat.ask(token, body.question)
    except AllowanceRefused as exc:  # the model allowance: nothing was answered or kept
        status, headers = _refused_status(exc)
        refusal = {"error": type(exc).__name__, "code": exc.code, "message": exc.message}
        return _keep(JSONResponse(refusal, status_code=status, headers=headers), token, new)
    return _keep(JSONResponse(done.to_dict()), token, new)


@api.get("/chat/rounds/{number}", summary="An earlier round of this session")
def round_api(request: Request, chat: ChatDep, number: Round) -> dict[str, Any]:
    token, _ = session_token(request)
    return chat.round(token, number).to_dict()


@pages.post("/chat/scope")
def scope_form(
    request: Request,
    chat: ChatDep,
    papers: Annotated[list[str] | None, Form(max_length=200)] = None,
    scope: Annotated[str, Form(pattern="^(papers|library)$")] = "papers",
) -> Response:
    token, new = session_token(request)
    whole = scope == "library"
    chat.set_scope(token, [] if whole else (papers or []), whole_library=whole)
    return _keep(RedirectResponse("/chat", status_code=303), token, new)


@pages.post("/chat/ask")
def ask_form(
    request: Request,
    chat: ChatDep,
    question: Annotated[str, Form(min_length=1, max_length=MAX_QUESTION)],
) -> Response:
    token, new = session_token(request)
    try:
        done = chat.ask(token, question)
    except AllowanceRefused as exc:  # the page again, the question kept in its box
        status, headers = _refused_status(exc)
        data = chat_view(chat, token) | {"refused": {"question": question, "message": exc.message}}
        shown = page(request, "chat.html", data, status=status, title="Paper chat")
        shown.headers.update(headers)
        return _keep(shown, token, new)
    return _keep(RedirectResponse(f"/chat#round-{done.number}", status_code=303), token, new)


@pages.get("/chat/round/{number}", response_class=HTMLResponse)
def round_page(request: Request, chat: ChatDep, number: Round) -> Response:
    token, _ = session_token(request)
    data = chat.round(token, number).to_dict()
    return page(request, "chat_round.html", data, title=f"Paper chat · round {number}")
