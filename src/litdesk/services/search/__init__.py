"""The search service: concurrent provider lanes, the evidence cache and the SearchTrace;
fused search (lane plans, RRF, store cache with coalescing, store allowances, runs)."""

from litdesk.adapters.http import SEMANTIC_GAP_SECONDS, StoreMeter

from ._fused import (
    CACHE_SECONDS,
    DISCOVERY_LIMIT,
    FusedSearch,
    FusedSearchError,
    LanePlan,
    SearchPlan,
    cache_key,
    load_run,
    make_definition,
    plan_search,
    run_fused,
    runs_of,
    save_run,
)
from ._reports import (
    EVAL_INPUT_BYTES,
    EXPORTS,
    ExportArgumentError,
    evaluate_files,
    export_run,
    freeze,
    study_prisma,
)
from ._saved import ExportFormatRefused, SavedRuns, open_runs
from ._service import CompileFn, ProviderKit, SearchService, default_kit, run_search

__all__ = [
    "EVAL_INPUT_BYTES",
    "EXPORTS",
    "ExportArgumentError",
    "ExportFormatRefused",
    "SavedRuns",
    "open_runs",
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
    "LanePlan",
    "ProviderKit",
    "SearchPlan",
    "SearchService",
    "StoreMeter",
    "cache_key",
    "default_kit",
    "load_run",
    "make_definition",
    "plan_search",
    "run_fused",
    "run_search",
    "runs_of",
    "save_run",
]
