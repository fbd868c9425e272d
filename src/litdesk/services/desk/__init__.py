"""The desk: the use cases of the web workspace over one app-lifetime set of services
(store, provider transport, fused search), opened once with :func:`open_desk`."""

from ._citations import CitationView, citation_browser
from ._dedup import MAX_HISTORY, MAX_QUEUE, DedupDesk, DedupJob, DedupReviewView, DedupRun
from ._desk import (
    EXPORT_MEDIA,
    MAX_SELECTION,
    SAVED_CAP,
    SAVED_PAGE,
    Desk,
    SearchForm,
    open_desk,
)
from ._reader import (
    MAX_OCCURRENCES,
    ReaderDesk,
    ReaderInputError,
    ReaderView,
    SnapshotChanged,
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
    SavedView,
    SearchView,
    SelectionResult,
    StudiesView,
    StudyView,
)

__all__ = [
    "EXPORT_MEDIA",
    "MAX_OCCURRENCES",
    "MAX_HISTORY",
    "MAX_QUEUE",
    "MAX_SELECTION",
    "MAX_STUDY_ZIP_BYTES",
    "PRISMA_FORMATS",
    "SAVED_CAP",
    "SAVED_PAGE",
    "CitationView",
    "DedupDesk",
    "DedupJob",
    "DedupReviewView",
    "DedupRun",
    "Desk",
    "EvidenceTableView",
    "Export",
    "NotebookView",
    "QueryCheck",
    "ReaderDesk",
    "ReaderInputError",
    "ReaderView",
    "SavedView",
    "SearchForm",
    "SearchView",
    "SelectionResult",
    "SnapshotChanged",
    "StudiesView",
    "StudyView",
    "citation_browser",
    "open_desk",
    "prisma_file",
    "prisma_view",
    "recover_study",
    "study_zip",
]
