"""The desk: the use cases of the web workspace over the app's providers (store, provider
transport, fused search); built by :func:`litdesk.services.app.open_app`."""

from litdesk.services.search import MAX_SELECTION

from ._citations import CitationView, citation_browser
from ._desk import EXPORT_MEDIA, SAVED_CAP, SAVED_PAGE, Desk
from ._import_run import IMPORT_KIND, study_import
from ._imports import ImportDesk, ImportOutcome, import_handlers
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
    SavedView,
    StudiesView,
    StudyView,
)

__all__ = [
    "EXPORT_MEDIA",
    "MAX_OCCURRENCES",
    "IMPORT_KIND",
    "ImportDesk",
    "Listings",
    "ImportOutcome",
    "import_handlers",
    "study_import",
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
    "ReaderDesk",
    "ReaderInputError",
    "ReaderView",
    "SavedView",
    "SnapshotChanged",
    "SharedView",
    "StudiesView",
    "StudyView",
    "citation_browser",
    "compare_evidence",
    "listed_citations",
    "prisma_file",
    "prisma_view",
    "recover_study",
    "save_citations",
    "shared_references",
    "study_zip",
]
