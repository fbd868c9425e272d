"""The web workspace (``litdesk serve``): FastAPI + Jinja2 pages and the JSON API under
``/api/v1/``, built by :func:`create_app` (nothing happens at import time)."""

from ._app import API_PREFIX, create_app

__all__ = ["API_PREFIX", "create_app"]
