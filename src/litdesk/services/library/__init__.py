"""The local PDF library: sources, index, retrieval, adoption and grounded answers, and
the library area (``app.library``: :class:`LibraryArea`), every use case of it for the
faces — the page, uploads, the index job, adoption, the model status, answers, the PDF
viewer and the paper chat."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._adoption import search_lookup
    from ._area import LibraryArea, NotInLibrary
    from ._catalogue import Catalogue, Entry, StoredChunk
    from ._chat import (
        CHAT_KIND,
        ChatBusy,
        ChatHistoryChat,
        ChatHistoryItem,
        ChatJob,
        ChatJobNotFound,
        ChatNotFound,
        ChatRound,
        ChatService,
        ChatSession,
        RoundNotFound,
        viewer_link,
    )
    from ._index_job import INDEX_KIND, index_handler
    from ._indexer import IndexReport, IndexWorkerCrashed, extract_job, hash_files, index_files
    from ._library import Adoption, Answer, Hit, Library, Lookup, Retrieval, title_printed
    from ._model_status import ModelCheck, ModelStatus, model_status
    from ._record_views import (
        AttachPdfPaperRequest,
        ConfirmPdfRequest,
        PdfCandidate,
        PdfRecordInputError,
        PdfRecordView,
        SavePdfPaperRequest,
    )
    from ._records import CONFIRMED, PdfNotFound, PdfRecords
    from ._requests import (
        PER_PAGE,
        ZOOMS,
        AdoptRequest,
        AskRequest,
        ChatQuestionRequest,
        ChatRoundsRequest,
        ChatScopeRequest,
        LibraryPageRequest,
        PageRequest,
        ProtocolRequest,
        UploadRequest,
    )
    from ._sources import (
        Corpus,
        LibraryFile,
        Source,
        UnknownPapers,
        add_source,
        discover,
        load_added,
        remove_source,
    )
    from ._uploads import MAX_NAME_BYTES, Upload, UploadRefused, safe_name, store_upload
    from ._viewer import PageImageBytes, PdfNotInLibrary, PdfViewer, ViewerPage
    from ._views import (
        IndexOutcome,
        LibraryStatus,
        LibraryView,
        ProtocolView,
        SourceChange,
        StoredUpload,
        UploadReport,
        VectorIndexSummary,
    )

__all__ = [
    "CHAT_KIND",
    "CONFIRMED",
    "AttachPdfPaperRequest",
    "ConfirmPdfRequest",
    "PdfCandidate",
    "PdfNotFound",
    "PdfRecords",
    "PdfRecordInputError",
    "PdfRecordView",
    "SavePdfPaperRequest",
    "INDEX_KIND",
    "MAX_NAME_BYTES",
    "PER_PAGE",
    "ZOOMS",
    "AdoptRequest",
    "Adoption",
    "Answer",
    "AskRequest",
    "Catalogue",
    "ChatBusy",
    "ChatJob",
    "ChatJobNotFound",
    "ChatQuestionRequest",
    "ChatRoundsRequest",
    "ChatHistoryChat",
    "ChatHistoryItem",
    "ChatNotFound",
    "ChatRound",
    "ChatScopeRequest",
    "ChatService",
    "ChatSession",
    "Corpus",
    "Entry",
    "Hit",
    "IndexOutcome",
    "VectorIndexSummary",
    "IndexReport",
    "IndexWorkerCrashed",
    "Library",
    "LibraryArea",
    "LibraryFile",
    "LibraryPageRequest",
    "LibraryStatus",
    "LibraryView",
    "Lookup",
    "ModelCheck",
    "ModelStatus",
    "NotInLibrary",
    "PageImageBytes",
    "PageRequest",
    "PdfNotInLibrary",
    "PdfViewer",
    "ProtocolRequest",
    "ProtocolView",
    "Retrieval",
    "RoundNotFound",
    "Source",
    "SourceChange",
    "StoredChunk",
    "StoredUpload",
    "UnknownPapers",
    "Upload",
    "UploadRefused",
    "UploadReport",
    "UploadRequest",
    "ViewerPage",
    "add_source",
    "discover",
    "extract_job",
    "hash_files",
    "index_files",
    "index_handler",
    "load_added",
    "model_status",
    "remove_source",
    "safe_name",
    "search_lookup",
    "store_upload",
    "title_printed",
    "viewer_link",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
