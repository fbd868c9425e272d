"""The web tests' shared route state (tests/faces/web/_routes.py): apps created in one
test process reuse it, an app with dependency overrides builds its own. Fails when a new
FastAPI no longer builds route state this way (the speed-up would be gone silently)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, routing

from litdesk import Settings
from litdesk.faces.web import create_app


def _contexts(web: FastAPI) -> dict[tuple[str, str], object]:
    """The built state of every API route of ``web`` by path and method."""
    scope: dict[str, Any] = {
        "type": "http",
        "path": "/no/such/page",
        "method": "GET",
        "root_path": "",
        "headers": [],
        "query_string": b"",
    }
    out: dict[tuple[str, str], object] = {}
    for route in web.router.routes:
        route.matches(scope)
        if isinstance(route, routing._IncludedRouter):
            for c in route.effective_candidates():
                if isinstance(c, routing._EffectiveRouteContext):
                    out[(str(c.path), ",".join(sorted(c.methods or ())))] = c
    return out


def test_apps_share_route_state_unless_they_override_dependencies(tmp_settings: Settings) -> None:
    first, second = _contexts(create_app(tmp_settings)), _contexts(create_app(tmp_settings))
    assert len(first) > 100 and first.keys() == second.keys()
    assert all(first[k] is second[k] for k in first)
    team = _contexts(create_app(tmp_settings, team=True))
    assert all(team[k] is first[k] for k in first)
    overriding = create_app(tmp_settings)
    overriding.dependency_overrides[object] = object
    own = _contexts(overriding)
    assert own.keys() == first.keys() and all(own[k] is not first[k] for k in first)
