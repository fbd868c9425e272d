"""Reachability checks of the model servers (the library page's model status panel):
one short GET each, no retries, nothing sent but the server's own API key to its own URL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import httpx

__all__ = ["PROBE_TIMEOUT", "ServerProbe", "probe_ollama", "probe_openai"]

PROBE_TIMEOUT: Final = 3.0
_MAX_BODY: Final = 2_000_000


@dataclass(frozen=True, slots=True)
class ServerProbe:
    """What one check found: whether the server answered, and whether it has the model."""

    reachable: bool
    has_model: bool
    detail: str
    models: tuple[str, ...] = ()


def _get(url: str, headers: dict[str, str], timeout: float) -> httpx.Response | str:
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            resp = client.get(url, headers=headers)
    except httpx.HTTPError as exc:
        return f"not reachable ({type(exc).__name__})"
    if len(resp.content) > _MAX_BODY:
        return "answered more than 2 MB"
    return resp


def _names(payload: object, outer: str, field: str) -> tuple[str, ...] | None:
    if not isinstance(payload, dict) or not isinstance(payload.get(outer), list):
        return None
    out = [m.get(field) for m in payload[outer] if isinstance(m, dict)]
    return tuple(str(n)[:200] for n in out if isinstance(n, str))


def probe_ollama(base_url: str, model: str, *, timeout: float = PROBE_TIMEOUT) -> ServerProbe:
    """Ollama's ``GET /api/tags``: reachable, and ``model`` pulled (``name`` or
    ``name:latest``)."""
    resp = _get(base_url.rstrip("/") + "/api/tags", {}, timeout)
    if isinstance(resp, str):
        return ServerProbe(False, False, resp)
    if resp.status_code != 200:
        return ServerProbe(True, False, f"answered HTTP {resp.status_code}")
    try:
        names = _names(resp.json(), "models", "name")
    except ValueError:
        names = None
    if names is None:
        return ServerProbe(True, False, "answered something that is not Ollama's model list")
    wanted = {model, f"{model}:latest"}
    has = any(n in wanted for n in names)
    return ServerProbe(True, has, "model pulled" if has else "model not pulled", names[:50])


def probe_openai(
    base_url: str, model: str, *, api_key: str | None = None, timeout: float = PROBE_TIMEOUT
) -> ServerProbe:
    """An OpenAI-compatible server's ``GET /models``: reachable, and ``model`` listed."""
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    resp = _get(base_url.rstrip("/") + "/models", headers, timeout)
    if isinstance(resp, str):
        return ServerProbe(False, False, resp)
    if resp.status_code in (401, 403):
        return ServerProbe(True, False, f"refused the API key (HTTP {resp.status_code})")
    if resp.status_code != 200:
        return ServerProbe(True, False, f"answered HTTP {resp.status_code}")
    try:
        names = _names(resp.json(), "data", "id")
    except ValueError:
        names = None
    if names is None:
        return ServerProbe(True, False, "answered something that is not a model list")
    wanted = {model, f"{model}:latest"}
    has = any(n in wanted for n in names)
    return ServerProbe(True, has, "model listed" if has else "model not listed", names[:50])
