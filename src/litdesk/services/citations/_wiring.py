"""Production wiring: run a discovery with the default transport (CLI helper)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litdesk._errors import ConfigError
from litdesk._settings import Settings, get_settings
from litdesk.services.fulltext import run_with_transport, store_allowance

from ._service import CitationResult, CitationService, Mode

__all__ = ["OPENALEX_KEY_NEEDED", "discover_sync"]

OPENALEX_KEY_NEEDED = (
    "citation discovery uses OpenAlex, which requires an API key (free): create one at "
    "https://openalex.org/settings/api and set LITDESK_OPENALEX_API_KEY; nothing was sent"
)


def discover_sync(
    mode: Mode, seeds: Sequence[str], *, page: int = 1, settings: Settings | None = None
) -> CitationResult:
    settings = settings or get_settings()
    if settings.openalex_api_key is None:
        raise ConfigError(OPENALEX_KEY_NEEDED, code="openalex_key")

    async def work(transport: Any) -> CitationResult:
        allowance = store_allowance(settings)
        try:
            service = CitationService(transport, allowance=allowance)
            return await service.discover(mode, list(seeds), page=page)
        finally:
            allowance.close()

    return run_with_transport(settings, work)
