"""The local PDF library: sources, index, retrieval, adoption and grounded answers."""

from ._adoption import search_lookup
from ._ask import AskRequest, ask_library
from ._catalogue import Catalogue, Entry, StoredChunk
from ._chat import (
    CHAT_KIND,
    ChatBusy,
    ChatJob,
    ChatJobNotFound,
    ChatRound,
    ChatService,
    ChatSession,
    RoundNotFound,
    viewer_link,
)
from ._indexer import IndexReport, IndexWorkerCrashed, extract_job, hash_files, index_files
from ._library import Adoption, Answer, Hit, Library, Lookup, Retrieval, title_printed
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
from ._viewer import ZOOMS, PageImageBytes, PdfNotInLibrary, PdfViewer, ViewerPage

__all__ = [
    "CHAT_KIND",
    "Adoption",
    "Answer",
    "AskRequest",
    "ZOOMS",
    "Catalogue",
    "ChatBusy",
    "ChatJob",
    "ChatJobNotFound",
    "ChatRound",
    "ChatService",
    "ChatSession",
    "Corpus",
    "Entry",
    "Hit",
    "IndexReport",
    "IndexWorkerCrashed",
    "Library",
    "LibraryFile",
    "Lookup",
    "PageImageBytes",
    "PdfNotInLibrary",
    "PdfViewer",
    "Retrieval",
    "RoundNotFound",
    "Source",
    "StoredChunk",
    "UnknownPapers",
    "ViewerPage",
    "add_source",
    "ask_library",
    "discover",
    "extract_job",
    "hash_files",
    "index_files",
    "load_added",
    "remove_source",
    "search_lookup",
    "title_printed",
    "viewer_link",
]
