"""Team mode of the web face (``litdesk serve --team``): sign-in pages and API, the session
middleware, Study sharing and history, health and readiness, and structured access logs.

* :class:`SessionGate` (ASGI, inside the security middleware, so Host, exact Origin and
  CSRF are checked first — the login form included) resolves the ``ld_session`` cookie to an
  account through the store on every request; without one, pages redirect to ``/login`` and
  the API answers 401. ``/login``, ``/healthz``, ``/readyz`` and static files are open.
* The session cookie is ``HttpOnly; SameSite=Lax; Path=/`` and ``Secure`` when the public
  origin is https; a new token at every login (the old session ends). The CSRF token of a
  signed-in browser is bound to its session (``_security.session_csrf``): a new one at every
  login, none left at logout; the browser's ``ld_csrf`` cookie (the token before sign-in) is
  replaced at login and at logout.
* Routes pass the signed-in account to every area method as ``owner=`` (``OwnerDep``), so
  every call carries the account as its owner (the areas check the rights).
* :class:`AccessLog` writes one JSON line per request to the ``litdesk.access`` logger:
  worker pid, method, path (never the query string), status, duration, client address and a
  short hash of the account id — never cookies, headers or bodies.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Annotated, Any, Final
from urllib.parse import quote

import anyio
from fastapi import APIRouter, Form, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, LitdeskError, NotFoundError
from litdesk.services.accounts import (
    Accounts,
    AccountView,
    LoginFailed,
    LoginThrottled,
    Sharing,
    readiness,
    sso_configured,
)

from ._deps import app_of
from ._render import page
from ._security import CSRF_COOKIE, read_cookie, session_csrf
from .routes._common import StudyRef

__all__ = [
    "SESSION_COOKIE",
    "AccessLog",
    "SessionGate",
    "api",
    "app_clock",
    "client_address",
    "health",
    "login_data",
    "new_csrf",
    "pages",
    "safe_next",
    "set_session",
]

SESSION_COOKIE: Final = "ld_session"
_OPEN_PREFIXES: Final = ("/static/",)
_OPEN_PATHS: Final = frozenset(
    {
        "/login",
        "/login/oidc",  # single sign-on: the start and the provider's callback
        "/login/oidc/callback",
        "/healthz",
        "/readyz",
        "/favicon.ico",
        "/api/v1/auth/login",
    }
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("litdesk.access")

pages = APIRouter()
api = APIRouter(tags=["team"])
health = APIRouter()


def app_clock(web: Any) -> Clock:
    """The clock the application was opened with (``create_app(clock=...)``; sessions,
    throttles and cookies' lifetimes read it), else the system's (a test's stand-in)."""
    clock: Clock = getattr(app_of(web), "clock", SYSTEM_CLOCK)
    return clock


def _accounts(web: Any) -> Accounts:
    accounts: Accounts = app_of(web).accounts
    return accounts


def _cookie(scope: Scope, name: str) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            return read_cookie(value.decode("latin-1"), name)
    return None


def _account_tag(account_id: str | None) -> str | None:
    if account_id is None:
        return None
    return hashlib.sha256(account_id.encode("utf-8")).hexdigest()[:12]


# --- middleware ---------------------------------------------------------------------------


class SessionGate:
    """Resolve the session cookie; refuse what needs a signed-in account."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        token = _cookie(scope, SESSION_COOKIE)
        account = None
        if token:
            accounts = _accounts(scope["app"])
            account = await anyio.to_thread.run_sync(accounts.resolve, token)
        state = scope.setdefault("state", {})
        state["account"] = account
        if account is None and path not in _OPEN_PATHS and not path.startswith(_OPEN_PREFIXES):
            if path.startswith("/api/"):
                body = json.dumps(
                    {
                        "error": "RefusedError",
                        "code": "login_required",
                        "message": "sign in first (POST /api/v1/auth/login)",
                    }
                ).encode()
                response: Response = Response(body, 401, media_type="application/json")
            else:
                target = "/login?next=" + quote(path, safe="/")
                response = RedirectResponse(target, status_code=303)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class AccessLog:
    """One JSON line per request on ``litdesk.access`` (no query, no credentials)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            account = scope.get("state", {}).get("account")
            client = scope.get("client") or ("", 0)
            access_log.info(
                json.dumps(
                    {
                        "ts": round(time.time(), 3),
                        "pid": os.getpid(),
                        "method": scope.get("method", ""),
                        "path": scope.get("path", "")[:300],
                        "status": status or 500,
                        "ms": round((time.perf_counter() - started) * 1000, 1),
                        "client": client[0],
                        "account": _account_tag(account.id if account else None),
                    },
                    separators=(",", ":"),
                )
            )


def _account(request: Request) -> AccountView:
    account: AccountView | None = request.scope.get("state", {}).get("account")
    if account is None:  # the gate lets no such request through
        raise LoginFailed("sign in first", code="login_required")
    return account


# --- sign-in -------------------------------------------------------------------------------


def _secure(request: Request) -> bool:
    return bool(getattr(request.app.state, "team_secure", False))


def client_address(request: Request) -> str:
    """The client's address (the proxy's X-Forwarded-For when trusted), throttled by."""
    return request.client.host if request.client else "unknown"


def new_csrf() -> str:
    return secrets.token_urlsafe(32)


def set_session(request: Request, response: Response, token: str, max_age: int, csrf: str) -> None:
    """The session cookie of a login (password or single sign-on) and a fresh ``ld_csrf``."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )
    # a fresh browser cookie too (the pages' token is now the new session's: session_csrf)
    response.set_cookie(CSRF_COOKIE, csrf, path="/", httponly=True, samesite="strict")


def _clear_session(request: Request, response: Response) -> None:
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=_secure(request)
    )
    # the signed-out browser's token is a new random cookie, never one it had before
    response.set_cookie(CSRF_COOKIE, new_csrf(), path="/", httponly=True, samesite="strict")


def safe_next(target: str | None) -> str:
    """Only a path on this site (no scheme, no ``//host``, no backslash tricks)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/search"
    return target[:500]


def _login(request: Request, username: str, password: str) -> tuple[int, Any]:
    """``(status, Session | LitdeskError)`` for a login attempt."""
    accounts = _accounts(request.app)
    try:
        return 200, accounts.login(
            username,
            password,
            address=client_address(request),
            previous=_cookie(request.scope, SESSION_COOKIE),
        )
    except LoginThrottled as exc:
        return 429, exc
    except LoginFailed as exc:
        return 401, exc


def login_data(request: Request, message: str | None, next: str | None) -> dict[str, Any]:
    """The login page's view: the message, the local ``next`` and, when single sign-on is
    configured, its button (a link: no script)."""
    target = safe_next(next)
    settings = app_of(request.app).settings
    sso = None
    if sso_configured(settings):
        sso = {
            "name": settings.oidc_display_name,
            "href": "/login/oidc?next=" + quote(target, safe="/"),
        }
    return {"message": message, "next": target, "sso": sso}


@pages.get("/login")
def login_page(request: Request, next: str | None = None) -> Response:
    return page(request, "login.html", login_data(request, None, next), title="Sign in")


@pages.post("/login")
def login_form(
    request: Request,
    username: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=2_000)],
    next: Annotated[str | None, Form(max_length=500)] = None,
) -> Response:
    status, result = _login(request, username, password)
    if isinstance(result, LitdeskError):
        data = login_data(request, result.message, next)
        refused = page(request, "login.html", data, status=status, title="Sign in")
        if status == 429:
            refused.headers["retry-after"] = str(result.details.get("retry_after", 60))
        return refused
    response = RedirectResponse(safe_next(next), status_code=303)
    max_age = int(result.expires_at - app_clock(request.app).now())
    set_session(request, response, result.token, max_age, new_csrf())
    return response


@pages.get("/logout")
def logout_page(request: Request) -> Response:
    return page(request, "logout.html", {"username": _account(request).username}, title="Sign out")


@pages.post("/logout")
def logout_form(request: Request) -> Response:
    _accounts(request.app).logout(_cookie(request.scope, SESSION_COOKIE))
    response = RedirectResponse("/login", status_code=303)
    _clear_session(request, response)
    return response


class LoginBody(BaseModel):
    username: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=2_000)


class ShareBody(BaseModel):
    username: str = Field(min_length=1, max_length=200)
    role: str | None = Field(
        default=None, pattern="^(owner|editor|viewer)$", description="None removes the member."
    )


@api.post(
    "/auth/login", summary="Sign in (a new session cookie; answers the new session's CSRF token)"
)
def login_api(request: Request, body: LoginBody) -> Response:
    status, result = _login(request, body.username, body.password)
    if isinstance(result, LitdeskError):
        headers = {}
        if status == 429:
            headers["retry-after"] = str(result.details.get("retry_after", 60))
        return JSONResponse(result.to_dict(), status_code=status, headers=headers)
    response = JSONResponse(
        {
            "account": result.account.to_dict(),
            "expires_at": round(result.expires_at),
            "csrf_token": session_csrf(result.token),  # the new session's
        }
    )
    left = int(result.expires_at - app_clock(request.app).now())
    set_session(request, response, result.token, left, new_csrf())
    return response


@api.post("/auth/logout", summary="End this session")
def logout_api(request: Request) -> Response:
    _accounts(request.app).logout(_cookie(request.scope, SESSION_COOKIE))
    response = JSONResponse({"signed_out": True})
    _clear_session(request, response)
    return response


@api.get("/auth/me", summary="The signed-in account")
def me_api(request: Request) -> dict[str, Any]:
    return _account(request).to_dict()


# --- sharing and history -------------------------------------------------------------------


def _sharing(request: Request) -> Sharing:
    return Sharing(app_of(request.app).store, _account(request).id)


@api.get("/studies/{ref}/members", summary="A Study's members and their roles")
def members_api(request: Request, ref: StudyRef) -> dict[str, Any]:
    return _sharing(request).members(ref).to_dict()


@api.post("/studies/{ref}/members", summary="Give an account a role in a Study (owners only)")
def share_api(request: Request, ref: StudyRef, body: ShareBody) -> dict[str, Any]:
    return _sharing(request).share(ref, body.username, body.role).to_dict()


def _members_page(
    request: Request, ref: str, *, error: str | None = None, done: str | None = None,
    status: int = 200, form: dict[str, str] | None = None,
) -> Response:  # fmt: skip
    view = _sharing(request).members(ref).to_dict()
    me = _account(request)
    mine = next((m["role"] for m in view["members"] if m["account_id"] == me.id), None)
    data = view | {
        "is_owner": me.id == view["owner"] or mine == "owner",
        "error": error,
        "done": done,
        "form": form or {"username": "", "role": "editor"},
    }
    return page(request, "study_members.html", data, status=status, title="Members and roles")


@pages.get("/study/{ref}/members")
def members_page(request: Request, ref: StudyRef, done: str | None = None) -> Response:
    """The Study's members and their roles; its owner gives and takes roles here."""
    return _members_page(request, ref, done=done[:100] if done else None)


@pages.post("/study/{ref}/members")
def share_form(
    request: Request,
    ref: StudyRef,
    username: Annotated[str, Form(max_length=200)],
    role: Annotated[str, Form(pattern="^(owner|editor|viewer|remove)$")],
) -> Response:
    try:
        view = _sharing(request).share(ref, username, None if role == "remove" else role)
    except (InputError, NotFoundError) as exc:  # shown beside the form
        form = {"username": username, "role": role}  # shown as typed
        return _members_page(request, ref, error=exc.message, status=400, form=form)
    said = f"{username.strip().lower()[:80]}: {'removed' if role == 'remove' else role}"
    where = f"/study/{quote(view.study_id, safe='')}/members?done={quote(said, safe='')}"
    return RedirectResponse(where, status_code=303)


# a Study's history: ``GET /api/v1/studies/{ref}/history`` (routes/study_edit.py, both modes)


# --- health --------------------------------------------------------------------------------


@health.get("/healthz", include_in_schema=False)
def healthz() -> dict[str, str]:
    """The process answers (liveness)."""
    return {"status": "ok"}


@health.get("/readyz", include_in_schema=False)
def readyz(request: Request) -> Response:
    """The database answers and its schema is at the newest migration; a shared object
    store (``object_store`` set) answers."""
    app = app_of(request.app)
    state = readiness(app.store, app.objects if app.settings.object_store else None)
    return JSONResponse(state.to_dict(), status_code=200 if state.ready else 503)
