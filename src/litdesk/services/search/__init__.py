"""The search area (``app.search``, :class:`SearchArea`): every search use case of both
faces — searches and live searches, selections of a run, saved runs — with its requests
(validated once) and views; and the search machinery under it: concurrent provider lanes,
the evidence cache and the SearchTrace; fused search (lane plans, RRF, store cache with
coalescing, store allowances, runs). Open it through :func:`litdesk.services.app.open_app`
(one transport, one meter)."""

from litdesk.adapters.http import SEMANTIC_GAP_SECONDS

from ._adoption import AdoptionLookupFailed, adopted_paper, adoption_request
from ._area import EXPORT_MEDIA, MAX_RUN_LIST, SearchArea
from ._fused import (
    CACHE_SECONDS,
    DISCOVERY_LIMIT,
    FusedSearch,
    FusedSearchError,
    LaneObserver,
    LanePlan,
    SearchPlan,
    cache_key,
    load_run,
    make_definition,
    plan_search,
    run_document,
    runs_of,
    save_run,
)
from ._kit import CompileFn, ProviderKit, default_kit
from ._live import MAX_LIVE, LiveRegistry, LiveSearch
from ._reports import (
    EVAL_INPUT_BYTES,
    EXPORTS,
    ExportArgumentError,
    evaluate_files,
    export_run,
    freeze,
    study_prisma,
)
from ._requests import (
    FIELDS,
    MAX_QUERY_CHARS,
    MAX_SELECTION,
    MODES,
    SORTS,
    TYPES,
    QueryCheckRequest,
    RunExportRequest,
    SaveSelectionRequest,
    SearchInputError,
    SearchRequest,
    TraceRequest,
)
from ._service import SearchService
from ._views import (
    Export,
    KeptRunsView,
    ProgressView,
    QueryCheck,
    RunListView,
    SearchView,
    SelectionFailure,
    SelectionResult,
    StudyChoices,
)

__all__ = [
    "AdoptionLookupFailed",
    "adopted_paper",
    "adoption_request",
    "EVAL_INPUT_BYTES",
    "EXPORTS",
    "ExportArgumentError",
    "EXPORT_MEDIA",
    "FIELDS",
    "MAX_LIVE",
    "MAX_QUERY_CHARS",
    "MAX_RUN_LIST",
    "MAX_SELECTION",
    "MODES",
    "SORTS",
    "TYPES",
    "Export",
    "KeptRunsView",
    "LiveRegistry",
    "LiveSearch",
    "ProgressView",
    "QueryCheck",
    "QueryCheckRequest",
    "RunExportRequest",
    "RunListView",
    "SaveSelectionRequest",
    "SearchArea",
    "SearchInputError",
    "SearchRequest",
    "SearchView",
    "TraceRequest",
    "SelectionFailure",
    "SelectionResult",
    "StudyChoices",
    "evaluate_files",
    "export_run",
    "freeze",
    "study_prisma",
    "CACHE_SECONDS",
    "DISCOVERY_LIMIT",
    "SEMANTIC_GAP_SECONDS",
    "CompileFn",
    "FusedSearch",
    "FusedSearchError",
    "LaneObserver",
    "LanePlan",
    "ProviderKit",
    "SearchPlan",
    "SearchService",
    "cache_key",
    "default_kit",
    "load_run",
    "make_definition",
    "plan_search",
    "run_document",
    "runs_of",
    "save_run",
]
