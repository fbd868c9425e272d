"""The desk: the use cases of the web workspace over the app's providers (store, provider
transport, fused search); built by :func:`litdesk.services.app.open_app`."""

from ._desk import (
    EXPORT_MEDIA,
    MAX_SELECTION,
    Desk,
    SearchForm,
)
from ._live import cancel_search, live_result, search_progress, start_search, watch_search
from ._progress import MAX_LIVE, LiveRegistry, ProgressView
from ._views import (
    Export,
    QueryCheck,
    SearchView,
    SelectionResult,
)

__all__ = [
    "EXPORT_MEDIA",
    "LiveRegistry",
    "MAX_LIVE",
    "MAX_SELECTION",
    "Desk",
    "Export",
    "ProgressView",
    "QueryCheck",
    "SearchForm",
    "SearchView",
    "SelectionResult",
    "cancel_search",
    "live_result",
    "search_progress",
    "start_search",
    "watch_search",
]
