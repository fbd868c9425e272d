"""Short, sanitised messages from provider error bodies: bounded, one line, no markup,
and no credential-shaped query values echoed back by a provider."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ._common import (
    ProviderParseError,
    as_dict,
    as_list,
    as_str,
    load_xml,
    local,
    one_line,
    plain_text,
)

__all__ = ["MAX_MESSAGE", "error_message"]

MAX_MESSAGE: Final = 300
_SECRET = re.compile(
    r"(?i)\b(api[_-]?key|apikey|key|token|access[_-]?token|mailto|email|password|secret|x-api-key)"
    r"(\s*[=:]\s*)([^\s&\"'<>]+)"
)
_BEARER = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+")
_TITLE = re.compile(r"(?is)<title[^>]*>(.*?)</title>")
_H1 = re.compile(r"(?is)<h1[^>]*>(.*?)</h1>")


def error_message(provider: str, status: int, body: bytes) -> str:
    """A short message for an error response of ``provider`` (never raises)."""
    head = body[:200_000] if isinstance(body, (bytes, bytearray)) else b""
    try:
        message = _extract(provider, bytes(head))
    except (ProviderParseError, ValueError, TypeError, RecursionError):
        message = None
    return _sanitise(message) or f"HTTP {status}"


def _extract(provider: str, body: bytes) -> str | None:
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    if text[:1] in "{[":
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            doc = None
        if doc is not None:
            return _from_json(doc)
    if text[:1] == "<":
        low = text[:500].lower()
        if "<html" in low or "<!doctype html" in low or "<body" in low:
            return _from_html(text)
        return _from_xml(provider, body) or _from_html(text)
    return text.splitlines()[0] if text else None


def _from_json(doc: Any) -> str | None:
    if isinstance(doc, list):
        doc = next((d for d in doc if isinstance(d, dict)), {})
    doc = as_dict(doc)
    parts: list[str] = []
    # OpenAlex {"error", "message"}; S2 {"error"} or {"message"}; Europe PMC {"errMsg"}.
    for key in ("error", "errMsg", "message", "detail", "description"):
        value = doc.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip())
        elif isinstance(value, dict):
            inner = as_str(value.get("message")) or as_str(value.get("description"))
            if inner:
                parts.append(inner)
        elif isinstance(value, list):  # Crossref validation-failure: [{"message": …}]
            parts.extend(m for m in (as_str(as_dict(v).get("message")) for v in value) if m)
    header = as_dict(doc.get("header"))
    if not parts and (res := as_dict(doc.get("esearchresult"))):  # PubMed JSON
        if err := as_str(res.get("ERROR")):
            parts.append(err)
        for k, v in as_dict(res.get("errorlist")).items():
            if as_list(v):
                parts.append(f"{k}: {', '.join(str(x) for x in as_list(v))}")
    if not parts and header:
        parts.append(str(header.get("type", "")))
    seen: list[str] = []
    for p in parts:
        if p not in seen:
            seen.append(p)
    return ": ".join(seen[:2]) or None


def _from_html(text: str) -> str | None:
    text = text[:20_000]  # bounded: the patterns below must stay cheap on hostile bodies
    for pattern in (_H1, _TITLE):
        m = pattern.search(text)
        if m and (t := plain_text(m.group(1))):
            return t
    return plain_text(text)


def _from_xml(provider: str, body: bytes) -> str | None:
    root = load_xml(provider, body)
    name = local(root)
    if name == "feed":  # arXiv Atom error entry
        for entry in root:
            if local(entry) != "entry":
                continue
            ident = next((c.text or "" for c in entry if local(c) == "id"), "")
            if "api/errors" in ident:
                return next((one_line(c.text) for c in entry if local(c) == "summary"), None)
        return None
    messages: list[str] = []
    for el in root.iter():
        tag = local(el)
        if tag in {"ERROR", "errMsg", "message"} and (t := one_line(el.text)):
            messages.append(t)
        elif tag == "ErrorList":
            messages.extend(f"{local(e)}: {t}" for e in el if (t := one_line(e.text)))
    return "; ".join(messages[:5]) or None


def _sanitise(message: str | None) -> str | None:
    if not message:
        return None
    text = plain_text(message) or ""
    text = _BEARER.sub("Bearer [redacted]", text)
    text = _SECRET.sub(lambda m: f"{m.group(1)}{m.group(2)}[redacted]", text)
    text = " ".join(text.replace("<", " ").replace(">", " ").split())
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 1] + "…"
    return text or None
