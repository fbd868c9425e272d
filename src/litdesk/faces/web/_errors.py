"""One translation of the LitdeskError tree (and framework errors) to HTTP: JSON
``{error, code, message, hint}`` under ``/api/`` (``hint``: the error told to a person,
what happened and what to do), an error page elsewhere that says it in plain words with
the code and details folded away. Upstream bodies, request values and stack traces never
reach the client (they go to the server log)."""

from __future__ import annotations

import logging
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from litdesk._errors import (
    ConfigError,
    ExternalError,
    InputError,
    IntegrityError,
    LitdeskError,
    NotFoundError,
    RefusedError,
)

from .._explain import Explained, explain, explain_status, sentence
from ._render import page
from ._security import BodyTooLarge

__all__ = ["CatchAll", "install_error_handlers", "status_of"]

log = logging.getLogger("litdesk.web")

_STATUS: Final[tuple[tuple[type[LitdeskError], int], ...]] = (
    (InputError, 400),
    (RefusedError, 403),
    (NotFoundError, 404),
    (ExternalError, 502),
    (ConfigError, 503),
    (IntegrityError, 500),
)
_BY_CODE: Final = {
    "identity_conflict": 409,
    "study_exists": 409,
    # an update round begun by hand is still empty: the Study's state, not a question of rights
    "round_empty": 409,
    "allowance": 429,
    # the account's queue is full / the imports' memory budget is taken: try again later
    "too_many_jobs": 429,
    "imports_busy": 429,
    # another question of the chat session is in flight (on any worker)
    "chat_busy": 409,
    "anchor_mismatch": 422,
    # no model configured for AI assistance: the request cannot be served in this
    # server's state (a setting the person can change), not a server failure
    "assist_unavailable": 409,
    # a Study over what its ZIP may hold: refused whole (not a question of rights)
    "study_export_too_large": 422,
}


def status_of(exc: LitdeskError) -> int:
    if exc.code in _BY_CODE:
        return _BY_CODE[exc.code]
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def _respond(
    request: Request,
    status: int,
    error: str,
    code: str,
    message: str,
    said: Explained,
    extra: dict[str, Any] | None = None,
) -> Response:
    folders = getattr(request.app.state, "hidden_dirs", ())

    def hidden(text: str) -> str:
        for folder in folders:
            text = text.replace(folder, "…")
        return text

    message, text, hint = hidden(message), hidden(said.text), hidden(said.hint)
    body: dict[str, Any] = {
        "error": error,
        "code": code,
        "message": message,
        "hint": f"{text} {hint}".strip(),
    }
    if extra:
        body["details"] = extra
    if request.url.path.startswith("/api/"):
        return JSONResponse(body, status_code=status)
    shown = {
        "said": text,
        "hint": hint,
        # the technical message, folded: only when it says more than the sentence above
        "details": "" if sentence(message) == text else message,
        "code": code,
        "status": status,
    }
    return page(request, "error.html", shown, status=status, title="Error")


async def _litdesk(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LitdeskError)
    status = status_of(exc)
    extra = None
    if isinstance(exc, InputError):  # positions of a query error, never upstream text
        extra = {
            k: v
            for k, v in exc.details.items()
            if k in ("position", "end", "field") and isinstance(v, (int, str))
        }
    if status >= 500:
        log.warning("%s %s: %s", request.method, request.url.path, exc.message)
    return _respond(request, status, type(exc).__name__, exc.code, exc.message, explain(exc), extra)


def _continued(msg: str) -> str:
    """A validation message continuing a sentence ("page: field required"): pydantic's
    "Value error, " left out and a leading capital lowered only when it begins an ordinary
    word ("Field required"), so the message keeps its own text — "DOI", "PubMed", a quoted
    value (before, the whole message was lowercased: "a pdf", "pubmed")."""
    msg = msg.removeprefix("Value error, ")
    if len(msg) > 1 and msg[0].isupper() and msg[1].islower():
        return msg[0].lower() + msg[1:]
    return msg


async def _validation(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(
        str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "form")
    )
    message = f"{where or 'request'}: {first.get('msg', 'invalid')}"[:300]
    field = where.rsplit(".", 1)[-1].replace("_", " ") if where else "the request"
    said = Explained(
        sentence(f"{field}: {_continued(str(first.get('msg', 'invalid')))}"[:300]),
        "Correct it and try again.",
    )
    return _respond(request, 422, "InputError", "validation", message, said)


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if isinstance(exc.__cause__, BodyTooLarge):
        return _respond(
            request,
            413,
            "RefusedError",
            "body_too_large",
            "the request body is too large",
            explain_status(413),
        )
    messages = {404: "no such page", 405: "method not allowed here"}
    code = {404: "not_found", 405: "method"}.get(exc.status_code, "http")
    error = "NotFoundError" if exc.status_code == 404 else "InputError"
    message = messages.get(exc.status_code, "the request cannot be answered")
    return _respond(request, exc.status_code, error, code, message, explain_status(exc.status_code))


class CatchAll:
    """Inner ASGI middleware: an unexpected exception becomes a plain 500 (logged here,
    never its text or traceback to the client); inside the security middleware, so the
    500 carries the security headers too."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except BodyTooLarge:
            raise
        except Exception:
            log.exception("unhandled error in %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            request = Request(scope)
            response = _respond(
                request,
                500,
                "InternalError",
                "internal",
                "an internal error; see the server log",
                explain_status(500),
            )
            await response(scope, receive, send)


def install_error_handlers(app: FastAPI, *, hide: tuple[str, ...] = ()) -> None:
    """``hide``: the server's directories (a team server's data dir, library folders): an
    error message naming one shows ``…`` in its place (the file's own name stays)."""
    app.state.hidden_dirs = tuple(sorted({d for d in hide if len(d) > 1}, key=len, reverse=True))
    app.add_exception_handler(LitdeskError, _litdesk)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
