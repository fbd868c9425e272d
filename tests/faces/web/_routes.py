"""The routes' request handlers built once per test process instead of once per app.

FastAPI (0.16x) builds an included router's per-route state (dependencies, body and
response fields, the request handler) lazily, on an app's first request, for every app:
~0.2 s of CPU, which every web test pays again since each creates its own app (fresh data
per test). The state depends only on the route and the include's options (prefix, tags,
dependencies, response class, limits…) — the same for every app litdesk creates — and on
the app as the provider of dependency overrides, which litdesk never sets. While
:func:`share_route_contexts` is active, a route's state built for an include with equal
options is reused; anything else (another FastAPI without this builder, an app with
dependency overrides) builds its own as before.

The OpenAPI document (``/api/v1/openapi.json``) is likewise generated once per app, on its
first request for it (~0.25 s of CPU: the IDOR tests and others walk it, each on its own
app). While :func:`share_openapi_documents` is active, an app whose document inputs (title,
version, … and its routes: the same included routers with equal options) equal an earlier
app's gets a deep copy of that document instead of generating it again."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, routing
from fastapi.datastructures import DefaultPlaceholder

__all__ = ["share_openapi_documents", "share_route_contexts"]


def _key(value: object, alive: list[object]) -> object:
    """A hashable key of an include option: plain values as they are, containers by their
    items, other objects by identity (kept alive with the cache entry, so no other object
    can take their id)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return tuple(_key(v, alive) for v in value)
    if isinstance(value, dict):
        return tuple((k, _key(v, alive)) for k, v in value.items())
    if isinstance(value, DefaultPlaceholder):
        return ("default", _key(value.value, alive))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value),
            tuple(_key(getattr(value, f.name), alive) for f in dataclasses.fields(value)),
        )
    alive.append(value)
    return ("id", id(value))


@contextmanager
def share_route_contexts() -> Iterator[None]:
    """Reuse the routes' built state across the apps created inside the block."""
    context_cls: Any = getattr(routing, "_EffectiveRouteContext", None)
    descriptor = vars(context_cls).get("from_api_route") if context_cls is not None else None
    if not isinstance(descriptor, classmethod):  # another FastAPI: nothing to share
        yield
        return
    original: Callable[..., Any] = context_cls.from_api_route
    built: dict[object, tuple[object, list[object]]] = {}

    def from_api_route(cls: type, *, original_route: Any, include_context: Any) -> Any:
        provider = getattr(include_context, "dependency_overrides_provider", None)
        if getattr(provider, "dependency_overrides", None):  # overrides: the app's own
            return original(original_route=original_route, include_context=include_context)
        alive: list[object] = [original_route]
        options = tuple(
            _key(getattr(include_context, f.name), alive)
            for f in dataclasses.fields(include_context)
            if f.name != "dependency_overrides_provider"
        )
        key = (id(original_route), options)
        if key not in built:
            context = original(original_route=original_route, include_context=include_context)
            built[key] = (context, alive)
        return built[key][0]

    context_cls.from_api_route = classmethod(from_api_route)
    try:
        yield
    finally:
        context_cls.from_api_route = descriptor


def _route_key(route: object, alive: list[object]) -> object:
    """What the OpenAPI document reads of one of an app's routes: an included router by
    identity and its include options; any other route by identity (an app's own route is
    never shared), except one the document leaves out (hidden, a mount, a plain route)."""
    inner = getattr(route, "original_router", None)
    context = getattr(route, "include_context", None)
    if inner is not None and dataclasses.is_dataclass(context):
        provider = getattr(context, "dependency_overrides_provider", None)
        if getattr(provider, "dependency_overrides", None):  # overrides: the app's own
            alive.append(route)
            return ("id", id(route))
        alive.append(inner)
        options = tuple(
            _key(getattr(context, f.name), alive)
            for f in dataclasses.fields(context)
            if f.name != "dependency_overrides_provider"
        )
        return ("include", id(inner), options)
    if isinstance(route, routing.APIRoute) and route.include_in_schema:
        alive.append(route)
        return ("id", id(route))
    if isinstance(route, routing.APIRoute):  # hidden from the document
        return ("hidden", route.path, tuple(sorted(route.methods or ())))
    return ("other", type(route), getattr(route, "path", ""))


@contextmanager
def share_openapi_documents() -> Iterator[None]:
    """Reuse the OpenAPI document across the apps created inside the block whose document
    inputs are equal (each app gets its own deep copy, cached on it as FastAPI does)."""
    original = FastAPI.openapi
    built: dict[object, tuple[dict[str, Any], list[object]]] = {}

    def openapi(self: FastAPI) -> dict[str, Any]:
        version = self.router._get_routes_version()  # type: ignore[attr-defined]
        if self.openapi_schema and self._openapi_routes_version == version:  # type: ignore[attr-defined]
            return self.openapi_schema
        alive: list[object] = []
        key = (
            _key(
                [
                    self.title,
                    self.version,
                    self.openapi_version,
                    self.summary,
                    self.description,
                    self.terms_of_service,
                    self.contact,
                    self.license_info,
                    self.openapi_tags,
                    self.servers,
                    self.separate_input_output_schemas,
                    self.openapi_external_docs,
                ],
                alive,
            ),
            tuple(_route_key(r, alive) for r in self.routes),
            tuple(_route_key(r, alive) for r in self.webhooks.routes),
        )
        if key not in built:
            built[key] = (copy.deepcopy(original(self)), alive)
        self.openapi_schema = copy.deepcopy(built[key][0])
        self._openapi_routes_version = version  # type: ignore[attr-defined]
        return self.openapi_schema

    FastAPI.openapi = openapi  # type: ignore[method-assign]
    try:
        yield
    finally:
        FastAPI.openapi = original  # type: ignore[method-assign]
