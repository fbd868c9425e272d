"""The search service: concurrent provider lanes, the evidence cache and the SearchTrace."""

from ._service import CompileFn, ProviderKit, SearchService, default_kit, run_search

__all__ = ["CompileFn", "ProviderKit", "SearchService", "default_kit", "run_search"]
