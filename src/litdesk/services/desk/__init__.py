"""The desk: the use cases of the web workspace over the app's providers (store, provider
transport, fused search); built by :func:`litdesk.services.app.open_app`."""

from ._citations import CitationView, citation_browser
from ._desk import (
    EXPORT_MEDIA,
    MAX_SELECTION,
    Desk,
    SearchForm,
)
from ._listings import Listings
from ._live import cancel_search, live_result, search_progress, start_search, watch_search
from ._progress import MAX_LIVE, LiveRegistry, ProgressView
from ._reader import (
    MAX_OCCURRENCES,
    ReaderDesk,
    ReaderInputError,
    ReaderView,
    SnapshotChanged,
)
from ._selection import (
    MAX_SHARED,
    MIN_SHARED,
    CompareView,
    SharedView,
    compare_evidence,
    listed_citations,
    save_citations,
    shared_references,
)
from ._views import (
    EvidenceTableView,
    Export,
    QueryCheck,
    SearchView,
    SelectionResult,
)

__all__ = [
    "EXPORT_MEDIA",
    "MAX_OCCURRENCES",
    "Listings",
    "LiveRegistry",
    "MAX_LIVE",
    "MAX_SELECTION",
    "MAX_SHARED",
    "MIN_SHARED",
    "CitationView",
    "CompareView",
    "Desk",
    "EvidenceTableView",
    "Export",
    "ProgressView",
    "QueryCheck",
    "ReaderDesk",
    "ReaderInputError",
    "ReaderView",
    "SearchForm",
    "SearchView",
    "SelectionResult",
    "SnapshotChanged",
    "SharedView",
    "cancel_search",
    "citation_browser",
    "compare_evidence",
    "listed_citations",
    "live_result",
    "save_citations",
    "search_progress",
    "shared_references",
    "start_search",
    "watch_search",
]
