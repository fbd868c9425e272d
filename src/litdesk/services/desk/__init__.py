"""The desk: the use cases of the web workspace over the app's providers (store, provider
transport, fused search); built by :func:`litdesk.services.app.open_app`."""

from litdesk.services.search import MAX_SELECTION

from ._citations import CitationView, citation_browser
from ._desk import Desk
from ._listings import Listings
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
from ._views import EvidenceTableView

__all__ = [
    "MAX_OCCURRENCES",
    "Listings",
    "MAX_SELECTION",
    "MAX_SHARED",
    "MIN_SHARED",
    "CitationView",
    "CompareView",
    "Desk",
    "EvidenceTableView",
    "ReaderDesk",
    "ReaderInputError",
    "ReaderView",
    "SnapshotChanged",
    "SharedView",
    "citation_browser",
    "compare_evidence",
    "listed_citations",
    "save_citations",
    "shared_references",
]
