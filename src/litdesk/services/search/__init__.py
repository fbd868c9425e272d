"""The search area (``app.search``, :class:`SearchArea`): every search use case of both
faces — searches and live searches, selections of a run, saved runs — with its requests
(validated once) and views; and the search machinery under it: concurrent provider lanes,
the evidence cache and the SearchTrace; fused search (lane plans, RRF, store cache with
coalescing, store allowances, runs). Open it through :func:`litdesk.services.app.open_app`
(one transport, one meter)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from litdesk.adapters.http import SEMANTIC_GAP_SECONDS

    from ._adoption import AdoptionLookupFailed, adopted_paper, adoption_request
    from ._area import (
        BOUND_PREFIX,
        EXPORT_MEDIA,
        MAX_KEPT_RUNS,
        MAX_RUN_LIST,
        CursorRefused,
        SearchArea,
        bound_cursor,
        kept_runs,
    )
    from ._bench import BenchArgumentError, BenchRequest, BenchView
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
        run_text,
        runs_of,
        save_run,
        searched_at,
    )
    from ._kit import CompileFn, ProviderKit, default_kit
    from ._live import MAX_LIVE, LiveRegistry, LiveSearch
    from ._reports import (
        EVAL_INPUT_BYTES,
        ExportArgumentError,
        evaluate_files,
        export_run,
        study_prisma,
    )
    from ._requests import (
        EXPORTS,
        FIELDS,
        MAX_PAGE,
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
        in_workspace,
    )
    from ._service import SearchService
    from ._views import (
        Export,
        KeptRun,
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
    "BenchArgumentError",
    "BenchRequest",
    "BenchView",
    "AdoptionLookupFailed",
    "adopted_paper",
    "adoption_request",
    "EVAL_INPUT_BYTES",
    "EXPORTS",
    "ExportArgumentError",
    "EXPORT_MEDIA",
    "MAX_KEPT_RUNS",
    "FIELDS",
    "MAX_LIVE",
    "MAX_QUERY_CHARS",
    "MAX_RUN_LIST",
    "MAX_PAGE",
    "MAX_SELECTION",
    "MODES",
    "SORTS",
    "TYPES",
    "Export",
    "KeptRun",
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
    "CursorRefused",
    "BOUND_PREFIX",
    "bound_cursor",
    "SearchInputError",
    "SearchRequest",
    "SearchView",
    "TraceRequest",
    "SelectionFailure",
    "SelectionResult",
    "StudyChoices",
    "evaluate_files",
    "export_run",
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
    "kept_runs",
    "load_run",
    "make_definition",
    "plan_search",
    "run_document",
    "run_text",
    "runs_of",
    "save_run",
    "searched_at",
    "in_workspace",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
