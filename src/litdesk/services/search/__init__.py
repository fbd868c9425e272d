"""The search service: concurrent provider lanes, the evidence cache and the SearchTrace;
fused search (lane plans, RRF, store cache with coalescing, store allowances, runs).
Open them through :func:`litdesk.services.open_app` (one transport, one meter)."""

from litdesk.adapters.http import SEMANTIC_GAP_SECONDS

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
from ._reports import (
    EVAL_INPUT_BYTES,
    EXPORTS,
    ExportArgumentError,
    evaluate_files,
    export_run,
    freeze,
    study_prisma,
)
from ._saved import ExportFormatRefused, SavedRuns
from ._service import SearchService

__all__ = [
    "EVAL_INPUT_BYTES",
    "EXPORTS",
    "ExportArgumentError",
    "ExportFormatRefused",
    "SavedRuns",
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
