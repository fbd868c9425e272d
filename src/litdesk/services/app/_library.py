"""A PDF library of an app opened the way the faces open it (``open_app_sync``), for the
tests and benches that use a :class:`Library` on its own: closing the library closes its
app (store, model parts) too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._app import open_app_sync

if TYPE_CHECKING:  # the library's modules are imported when one is made
    from litdesk._settings import Settings
    from litdesk.adapters.embeddings import Embedder
    from litdesk.adapters.llm import ChatBackend
    from litdesk.core.library import RetrievalParams
    from litdesk.services.library import Library, Lookup

__all__ = ["app_library"]


def app_library(
    settings: Settings,
    *,
    lookup: Lookup | None = None,
    embedder: Embedder | None = None,
    backend: ChatBackend | None = None,
    workers: int | None = None,
    params: RetrievalParams | None = None,
) -> Library:
    """``app.make_library(...)`` of a newly opened app; ``close()`` closes both."""
    opened = open_app_sync(settings)
    app = opened.__enter__()
    try:
        lib = app.make_library(
            lookup=lookup, embedder=embedder, backend=backend, workers=workers, params=params
        )
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
