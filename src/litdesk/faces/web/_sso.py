"""Single sign-on pages of the team server (OpenID Connect, when configured):

* ``GET /login/oidc?next=…`` starts a sign-in: the service keeps state, nonce and PKCE
  verifier in the store, bound to the short-lived pre-login cookie ``ld_oidc`` (HttpOnly,
  SameSite=Lax, Path=/login/oidc, Secure behind https); the browser is sent to the
  provider's authorization endpoint. Starts are counted per client address in the store
  (429 with ``Retry-After`` past ``oidc_max_starts_address``). A browser whose pre-login
  cookie still binds a sign-in under way keeps that cookie, so two tabs signing in at once
  both finish.
* ``GET /login/oidc/callback`` finishes it: on success the session is set exactly as the
  password login sets it (rotated token, same cookie flags, a fresh CSRF cookie) and the
  browser goes to the local ``next``; otherwise the login page says why (never echoing a
  code, a token or the secret), 429 with ``Retry-After`` while the address is throttled.
  The pre-login cookie is removed once no sign-in under way is bound to it any more.

Both are GET (a link on the login page: no script, and the CSP's ``form-action 'self'``
does not stand in the way of the provider's redirect).
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from litdesk._errors import ConfigError, ExternalError, LitdeskError
from litdesk.services.accounts import LoginThrottled, SingleSignOn

from ._auth import (
    SESSION_COOKIE,
    app_clock,
    client_address,
    login_data,
    new_csrf,
    safe_next,
    set_session,
)
from ._deps import app_of
from ._render import page

__all__ = ["CALLBACK_PATH", "FLOW_COOKIE", "START_PATH", "pages"]

START_PATH: Final = "/login/oidc"
CALLBACK_PATH: Final = "/login/oidc/callback"
FLOW_COOKIE: Final = "ld_oidc"

pages = APIRouter()


def _sso(request: Request) -> SingleSignOn | None:
    """The app's one single sign-on service (its provider client caches discovery and
    keys for the process), or ``None`` when not configured."""
    found: SingleSignOn | None = app_of(request.app).sso()
    return found


def _redirect_uri(request: Request) -> str:
    return str(request.app.state.team_origin) + CALLBACK_PATH


def _secure(request: Request) -> bool:
    return bool(getattr(request.app.state, "team_secure", False))


def _status(exc: LitdeskError) -> int:
    if isinstance(exc, LoginThrottled):
        return 429
    if isinstance(exc, ConfigError):
        return 503
    if isinstance(exc, ExternalError):
        return 502
    return 401


def _forget_flow(request: Request, response: Response) -> None:
    response.delete_cookie(
        FLOW_COOKIE, path=START_PATH, httponly=True, samesite="lax", secure=_secure(request)
    )


def _refused(
    request: Request, exc: LitdeskError, next_path: str | None, *, spent: bool
) -> Response:
    """The login page saying why; ``spent``: a callback, which may have used the last
    sign-in bound to the pre-login cookie (a refused start leaves the cookie alone)."""
    status = _status(exc)
    response = page(
        request, "login.html", login_data(request, exc.message, next_path), status=status,
        title="Sign in",
    )  # fmt: skip
    if status == 429:
        response.headers["retry-after"] = str(exc.details.get("retry_after", 60))
    if spent and not exc.details.get("pending", False):  # else another tab's still needs it
        _forget_flow(request, response)
    return response


@pages.get(START_PATH)
def start(request: Request, next: str | None = None) -> Response:
    sso = _sso(request)
    target = safe_next(next)
    if sso is None:
        return RedirectResponse("/login", status_code=303)
    try:
        begun = sso.start(
            redirect_uri=_redirect_uri(request),
            next_path=target,
            address=client_address(request),
            binding=request.cookies.get(FLOW_COOKIE),
        )
    except LitdeskError as exc:
        return _refused(request, exc, target, spent=False)
    response = RedirectResponse(begun.url, status_code=303)
    response.set_cookie(
        FLOW_COOKIE,
        begun.binding,
        max_age=begun.max_age,
        path=START_PATH,
        httponly=True,
        samesite="lax",  # sent on the provider's top-level redirect back to the callback
        secure=_secure(request),
    )
    return response


@pages.get(CALLBACK_PATH)
def callback(
    request: Request,
    state: str | None = None,
    code: str | None = None,
    error: str | None = None,
) -> Response:
    sso = _sso(request)
    if sso is None:
        return RedirectResponse("/login", status_code=303)
    try:
        done = sso.finish(
            redirect_uri=_redirect_uri(request),
            state=state,
            code=code,
            error=error,
            binding=request.cookies.get(FLOW_COOKIE),
            address=client_address(request),
            previous=request.cookies.get(SESSION_COOKIE),
        )
    except LitdeskError as exc:
        return _refused(request, exc, None, spent=True)
    response = RedirectResponse(safe_next(done.next_path), status_code=303)
    session = done.session
    left = int(session.expires_at - app_clock(request.app).now())
    set_session(request, response, session.token, left, new_csrf())
    if not done.pending:
        _forget_flow(request, response)
    return response
