"""Paper chat ``/chat``: the scope kept for the browser session (an HttpOnly cookie names
the session's server state), one grounded answer card per question, earlier rounds
listed and reopenable at ``/chat/round/<n>``; ``/api/v1/chat…`` are the JSON twins.

A question is a job of the store's queue (any worker answers it): ``POST
/api/v1/chat/ask`` answers 202 with the job, ``GET /api/v1/chat/jobs/<id>`` its progress
and, once written, its round. Without JavaScript the form's POST redirects to the chat
page, which shows the question in flight with a link to look again (no request thread
waits for a model that may take minutes)."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.app import App
from litdesk.services.library import ChatBusy, ChatQuestionRequest, ChatScopeRequest

from .._deps import AppDep, OwnerDep
from .._render import page

__all__ = ["CHAT_COOKIE", "api", "keep_session", "pages", "session_token"]

pages = APIRouter()
api = APIRouter(tags=["chat"])

CHAT_COOKIE: Final = "ld_chat"
#: the chat cookie's lifetime (s): the current chat survives a browser restart
CHAT_COOKIE_AGE: Final = 180 * 24 * 3600
MAX_QUESTION: Final = 2_000
Round = Annotated[int, Path(ge=1, le=1_000_000, description="A round number of this session.")]
ChatId = Annotated[
    str, Path(pattern="^[0-9a-f]{40}$", description="A chat of your history (its id).")
]
JobId = Annotated[
    str, Path(pattern="^[0-9a-f]{32}$", description="A question job of this chat session.")
]


def session_token(request: Request) -> tuple[str, bool]:
    """The browser session's chat token (a new one when the cookie is missing or bad)."""
    token = request.cookies.get(CHAT_COOKIE, "")
    if 32 <= len(token) <= 64 and all(c.isalnum() or c in "-_" for c in token):
        return token, False
    return secrets.token_urlsafe(32), True


def keep_session(response: Response, token: str, new: bool) -> Response:
    if new:  # kept across browser restarts; earlier chats are in the account's history
        response.set_cookie(
            CHAT_COOKIE, token, path="/", httponly=True, samesite="strict", secure=False,
            max_age=CHAT_COOKIE_AGE,
        )  # fmt: skip
    return response


def chat_view(app: App, token: str, owner: str) -> dict[str, Any]:
    """The session as the page shows it; a question that was not answered (its job
    refused or failed) is shown as refused, the question back in its box."""
    data = app.library.chat(token, owner=owner).to_dict()
    data["studies"] = [
        {"id": st["id"], "name": st["name"]} for st in app.studies.studies(owner=owner).studies
    ]
    job = data["job"]
    if job is not None and job["state"] in ("failed", "cancelled"):
        data["refused"] = {"question": job["question"], "message": job["message"]}
    return data


@pages.get("/chat", response_class=HTMLResponse)
def chat_page(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    token, new = session_token(request)
    data = chat_view(app, token, owner)
    return keep_session(page(request, "chat.html", data, title="Paper chat"), token, new)


@api.get("/chat", summary="This browser session's chat scope, rounds and the library's names")
def chat_api(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    token, new = session_token(request)
    return keep_session(JSONResponse(chat_view(app, token, owner)), token, new)


class ScopeBody(BaseModel):
    papers: list[str] = Field(default_factory=list, max_length=200)
    whole_library: bool = False


class AskBody(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION)


@api.post("/chat/scope", summary="Set the session's scope: exact file names or the whole library")
def scope_api(request: Request, app: AppDep, owner: OwnerDep, body: ScopeBody) -> Response:
    token, new = session_token(request)
    scope = ChatScopeRequest(token, tuple(body.papers), body.whole_library)
    view = app.library.chat_scope(scope, owner=owner)
    return keep_session(JSONResponse(view.to_dict()), token, new)


def _busy(exc: ChatBusy) -> dict[str, Any]:
    return {"error": "ChatBusy", "code": exc.code, "message": exc.message,
            "job": exc.details.get("job")}  # fmt: skip


@api.post(
    "/chat/ask",
    status_code=202,
    summary="Ask a question in the session's scope: a job (its round once answered)",
)
def ask_api(request: Request, app: AppDep, owner: OwnerDep, body: AskBody) -> Response:
    token, new = session_token(request)
    try:
        job = app.library.chat_ask(ChatQuestionRequest(token, body.question), owner=owner)
    except ChatBusy as exc:  # one question in flight per session, on any worker
        return keep_session(JSONResponse(_busy(exc), status_code=409), token, new)
    app.chat_runner.wake()  # claim it now, not at the next poll
    location = {"location": f"/api/v1/chat/jobs/{job.id}"}
    return keep_session(JSONResponse(job.to_dict(), status_code=202, headers=location), token, new)


@api.get("/chat/jobs/{job_id}", summary="A question of this session: progress, then its round")
def job_api(request: Request, app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    token, _ = session_token(request)
    return app.library.chat_job(token, job_id, owner=owner).to_dict()


@api.post("/chat/jobs/{job_id}/cancel", summary="Cancel a question of this session")
def cancel_api(request: Request, app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    token, _ = session_token(request)
    return app.library.chat_cancel(token, job_id, owner=owner).to_dict()


@api.get("/chat/rounds/{number}", summary="An earlier round of this session")
def round_api(request: Request, app: AppDep, owner: OwnerDep, number: Round) -> dict[str, Any]:
    token, _ = session_token(request)
    return app.library.chat_round(token, number, owner=owner).to_dict()


@pages.post("/chat/scope")
def scope_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    papers: Annotated[list[str] | None, Form(max_length=200)] = None,
    scope: Annotated[str, Form(pattern="^(papers|library)$")] = "papers",
) -> Response:
    token, new = session_token(request)
    whole = scope == "library"
    chosen = ChatScopeRequest(token, () if whole else tuple(papers or ()), whole)
    app.library.chat_scope(chosen, owner=owner)
    return keep_session(RedirectResponse("/chat", status_code=303), token, new)


@pages.post("/chat/ask")
def ask_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    question: Annotated[str, Form(min_length=1, max_length=MAX_QUESTION)],
) -> Response:
    """Queue the question and show the chat page, where it is in flight (no JavaScript:
    the page's link looks again; with it, the page follows the job)."""
    token, new = session_token(request)
    try:
        job = app.library.chat_ask(ChatQuestionRequest(token, question), owner=owner)
    except ChatBusy as exc:  # the page again, the question kept in its box
        data = chat_view(app, token, owner) | {
            "refused": {"question": question, "message": exc.message}
        }
        return keep_session(
            page(request, "chat.html", data, status=409, title="Paper chat"), token, new
        )
    app.chat_runner.wake()
    return keep_session(RedirectResponse(f"/chat#job-{job.id}", status_code=303), token, new)


@pages.post("/chat/jobs/{job_id}/cancel")
def cancel_form(request: Request, app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    token, _ = session_token(request)
    app.library.chat_cancel(token, job_id, owner=owner)
    return RedirectResponse("/chat", status_code=303)


@pages.get("/chat/round/{number}", response_class=HTMLResponse)
def round_page(request: Request, app: AppDep, owner: OwnerDep, number: Round) -> Response:
    token, _ = session_token(request)
    data = app.library.chat_round(token, number, owner=owner).to_dict()
    return page(request, "chat_round.html", data, title=f"Paper chat · round {number}")


# --- the account's chat history (store-backed: any browser, after restarts) ------------


StudyFilter = Annotated[
    str | None,
    Query(max_length=64, pattern="^[A-Za-z0-9_-]+$", description="Only chats over this Study."),
]


@pages.get("/chat/history", response_class=HTMLResponse)
def history_page(
    request: Request, app: AppDep, owner: OwnerDep, study: StudyFilter = None
) -> Response:
    chats = [c.to_dict() for c in app.library.chat_list(owner=owner, study_id=study)]
    data = {"chats": chats, "study": study}
    return page(request, "chat_history.html", data, title="Chat history")


@api.get("/chat/history", summary="Your chats with answers, the latest first")
def history_api(app: AppDep, owner: OwnerDep, study: StudyFilter = None) -> dict[str, Any]:
    return {"chats": [c.to_dict() for c in app.library.chat_list(owner=owner, study_id=study)]}


@pages.get("/chat/history/{chat_id}", response_class=HTMLResponse)
def past_page(request: Request, app: AppDep, owner: OwnerDep, chat_id: ChatId) -> Response:
    data = app.library.chat_past(chat_id, owner=owner).to_dict()
    return page(request, "chat_past.html", data, title=f"Chat · {data['title'][:60]}")


@api.get("/chat/history/{chat_id}", summary="One chat of your history with its rounds")
def past_api(app: AppDep, owner: OwnerDep, chat_id: ChatId) -> dict[str, Any]:
    return app.library.chat_past(chat_id, owner=owner).to_dict()


@pages.get("/chat/history/{chat_id}/round/{number}", response_class=HTMLResponse)
def past_round_page(
    request: Request, app: AppDep, owner: OwnerDep, chat_id: ChatId, number: Round
) -> Response:
    data = app.library.chat_past_round(chat_id, number, owner=owner).to_dict()
    return page(
        request, "chat_round.html", data | {"chat_id": chat_id},
        title=f"Paper chat · round {number}",
    )  # fmt: skip


@api.get("/chat/history/{chat_id}/rounds/{number}", summary="One round of a chat of your history")
def past_round_api(app: AppDep, owner: OwnerDep, chat_id: ChatId, number: Round) -> dict[str, Any]:
    return app.library.chat_past_round(chat_id, number, owner=owner).to_dict()


@pages.post("/chat/history/{chat_id}/delete")
def forget_form(app: AppDep, owner: OwnerDep, chat_id: ChatId) -> Response:
    app.library.chat_forget(chat_id, owner=owner)
    return RedirectResponse("/chat/history", status_code=303)


@api.delete("/chat/history/{chat_id}", summary="Delete one chat of your history with its rounds")
def forget_api(app: AppDep, owner: OwnerDep, chat_id: ChatId) -> dict[str, Any]:
    app.library.chat_forget(chat_id, owner=owner)
    return {"deleted": chat_id}


# --- a Study as the chat's scope: the PDFs attached to its papers ----------------------


class StudyScopeBody(BaseModel):
    study: str = Field(min_length=1, max_length=64, pattern="^[A-Za-z0-9_-]+$")


@api.post("/chat/scope/study", summary="Ask the PDFs attached to a Study's papers")
def study_scope_api(
    request: Request, app: AppDep, owner: OwnerDep, body: StudyScopeBody
) -> Response:
    token, new = session_token(request)
    view = app.library.chat_scope_study(token, body.study, owner=owner)
    return keep_session(JSONResponse(view.to_dict()), token, new)


@pages.post("/chat/scope/study")
def study_scope_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    study: Annotated[str, Form(min_length=1, max_length=64, pattern="^[A-Za-z0-9_-]+$")],
) -> Response:
    token, new = session_token(request)
    app.library.chat_scope_study(token, study, owner=owner)
    return keep_session(RedirectResponse("/chat", status_code=303), token, new)
