"""The desk: the use cases of the web workspace over one app-lifetime set of services
(store, provider transport, fused search), opened once with :func:`open_desk`."""

from ._citations import CitationView, citation_browser
from ._desk import (
    EXPORT_MEDIA,
    MAX_SELECTION,
    SAVED_CAP,
    SAVED_PAGE,
    Desk,
    SearchForm,
    open_desk,
)
from ._live import cancel_search, live_result, search_progress, start_search, watch_search
from ._progress import MAX_LIVE, ProgressView
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
from ._study_files import (
    MAX_STUDY_ZIP_BYTES,
    PRISMA_FORMATS,
    prisma_file,
    prisma_view,
    recover_study,
    study_zip,
)
from ._views import (
    EvidenceTableView,
    Export,
    NotebookView,
    QueryCheck,
    ReaderView,
    SavedView,
    SearchView,
    SelectionResult,
    StudiesView,
    StudyView,
)

__all__ = [
    "EXPORT_MEDIA",
    "MAX_LIVE",
    "MAX_SELECTION",
    "MAX_SHARED",
    "MIN_SHARED",
    "MAX_STUDY_ZIP_BYTES",
    "PRISMA_FORMATS",
    "SAVED_CAP",
    "SAVED_PAGE",
    "CitationView",
    "CompareView",
    "Desk",
    "EvidenceTableView",
    "Export",
    "NotebookView",
    "ProgressView",
    "QueryCheck",
    "ReaderView",
    "SavedView",
    "SearchForm",
    "SearchView",
    "SelectionResult",
    "SharedView",
    "StudiesView",
    "StudyView",
    "cancel_search",
    "citation_browser",
    "compare_evidence",
    "listed_citations",
    "live_result",
    "open_desk",
    "prisma_file",
    "prisma_view",
    "recover_study",
    "save_citations",
    "search_progress",
    "shared_references",
    "start_search",
    "study_zip",
    "watch_search",
]
