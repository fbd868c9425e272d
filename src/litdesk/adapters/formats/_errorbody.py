"""Saved provider error responses: refused with the provider's own message.

A JSON body such as OpenAlex's ``{"error": "Invalid query parameters error.",
"message": "..."}``, Crossref's ``{"status": "failed", "message-type":
"validation-failure", "message": [...]}``, Semantic Scholar's ``{"error": "Paper with id
0 not found"}`` or Europe PMC's ``{"errCode": ..., "errMsg": ...}`` holds no records:
importing it must say what the provider said, not "0 records". :func:`refuse_error_body`
is the one check the registry's detection and every JSON reader call.
"""

from __future__ import annotations

import re
from typing import Any, Final

from litdesk.core.imports import ImportRefused

from ._json import loads as json_loads

__all__ = ["MAX_ERROR_BODY_CHARS", "error_message", "refuse_error_body"]

#: Error bodies are small; larger JSON documents are not examined as one.
MAX_ERROR_BODY_CHARS: Final = 1_000_000
_SHOWN: Final = 300
_START: Final = re.compile(
    r'\A[\ufeff\s]*\{\s*"(?:error|errors|status|errCode|errMsg|message|code)"'
)
#: Keys of a response that carries records: such a document is not an error body.
_RECORD_KEYS: Final = frozenset({"results", "resultList", "data", "items", "paperId", "id"})


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        for key in ("message", "errMsg", "error", "detail", "value", "type"):
            if key in value and (t := _text(value[key])):
                return t
        return ""
    if isinstance(value, list):
        return "; ".join(t for t in (_text(v) for v in value[:5]) if t)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


def _provider(doc: dict[str, Any]) -> str:
    if "message-type" in doc:
        return "Crossref"
    if "errCode" in doc or "errMsg" in doc:
        return "Europe PMC"
    if set(doc) == {"error"}:
        return "Semantic Scholar"
    if "error" in doc and "message" in doc:
        return "OpenAlex"
    return "provider"


def error_message(text: str) -> str | None:
    """The provider's message when ``text`` is a saved error response, else None."""
    if len(text) > MAX_ERROR_BODY_CHARS or not _START.match(text):
        return None
    try:
        doc = json_loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or _RECORD_KEYS & doc.keys():
        return None
    status = doc.get("status")
    failed = status in ("failed", "error") or (isinstance(status, int) and status >= 400)
    parts: list[str] = []
    if "error" in doc or "errors" in doc or "errMsg" in doc:
        for key in ("error", "errors", "errMsg", "message"):
            if (t := _text(doc.get(key))) and t not in parts:
                parts.append(t)
    elif (failed or "code" in doc) and (t := _text(doc.get("message"))):
        parts.append(t)
    if not parts:
        return None
    kind = doc.get("message-type")
    label = _provider(doc) + (f" {kind}" if isinstance(kind, str) else "")
    message = ": ".join(parts)
    if len(message) > _SHOWN:
        message = message[:_SHOWN].rstrip() + "…"
    return f"{label} error: {message}"


def refuse_error_body(text: str) -> None:
    """Raise ``ImportRefused(code="provider_error")`` when ``text`` is an error response."""
    message = error_message(text)
    if message is not None:
        raise ImportRefused(
            f"the file is a saved provider error response, not records ({message})",
            code="provider_error",
        )
