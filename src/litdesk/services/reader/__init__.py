"""The reader area (``app.reader``): one paper and its citations — the paper's page with
its licensed full text, highlights, comments, reading status, occurrences, evidence
(record, edit, table, CSV), the citation browser and the search page's compare-evidence
and shared-references actions. Built once by :func:`litdesk.services.app.open_app`."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._area import MAX_OCCURRENCES, PdfNotAvailable, ReaderArea
    from ._listings import LISTING_MAX_AGE, MAX_LISTINGS, Listings
    from ._requests import (
        EVIDENCE_EDITABLE,
        MAX_SEEDS,
        MAX_SELECTION,
        MAX_SHARED,
        MIN_SHARED,
        CitationsRequest,
        CiteRequest,
        CommentRequest,
        CompareRequest,
        EvidenceRequest,
        EvidenceUpdateRequest,
        FullTextRequest,
        HighlightRequest,
        OccurrencesRequest,
        OpenPaperRequest,
        PassageSource,
        ReaderInputError,
        SaveCitationsRequest,
        SavePaperRequest,
        SharedRequest,
        SnapshotChanged,
        StatusRequest,
    )
    from ._views import (
        CitationListView,
        CitationView,
        CiteView,
        CompareView,
        EvidenceRecordView,
        EvidenceTableView,
        Occurrence,
        OccurrencesView,
        ReaderView,
        Segment,
        SharedView,
        abstract_segments,
        evidence_row,
        marked_segments,
    )

__all__ = [
    "EVIDENCE_EDITABLE",
    "LISTING_MAX_AGE",
    "MAX_LISTINGS",
    "MAX_OCCURRENCES",
    "MAX_SEEDS",
    "MAX_SELECTION",
    "MAX_SHARED",
    "MIN_SHARED",
    "CitationListView",
    "CitationView",
    "CitationsRequest",
    "CiteRequest",
    "CiteView",
    "CommentRequest",
    "CompareRequest",
    "CompareView",
    "EvidenceRecordView",
    "EvidenceRequest",
    "EvidenceTableView",
    "EvidenceUpdateRequest",
    "FullTextRequest",
    "HighlightRequest",
    "Listings",
    "Occurrence",
    "OccurrencesRequest",
    "OccurrencesView",
    "OpenPaperRequest",
    "PassageSource",
    "PdfNotAvailable",
    "ReaderArea",
    "ReaderInputError",
    "ReaderView",
    "SaveCitationsRequest",
    "SavePaperRequest",
    "Segment",
    "SharedRequest",
    "SharedView",
    "SnapshotChanged",
    "StatusRequest",
    "abstract_segments",
    "evidence_row",
    "marked_segments",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
