"""The PDF library of an app opened the way the faces open it (``open_app_sync``), for
tests that used to build a :class:`Library` on its own: closing the library closes its
app (store, model parts) too."""

from __future__ import annotations

from typing import Any

from litdesk.services.app import open_app_sync
from litdesk.services.library import Library

__all__ = ["app_library"]


def app_library(settings: Any, **kw: Any) -> Library:
    """``app.make_library(**kw)`` of a newly opened app; ``close()`` closes both."""
    opened = open_app_sync(settings)
    app = opened.__enter__()
    try:
        lib = app.make_library(**kw)
    except BaseException:
        opened.__exit__(None, None, None)
        raise
    close_catalogue = lib.close

    def close() -> None:
        try:
            close_catalogue()
        finally:
            opened.__exit__(None, None, None)

    lib.close = close  # type: ignore[method-assign]
    return lib
