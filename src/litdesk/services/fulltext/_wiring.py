"""Build the reading services from settings (the production wiring of the seams)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from litdesk._errors import ConfigError
from litdesk._settings import Settings, get_settings

from ._allowance import StoreAllowance
from ._service import MAX_FULLTEXT_BYTES, FullTextResult, FullTextService

__all__ = ["fetch_fulltext_sync", "make_transport", "run_with_transport", "store_allowance"]

T = TypeVar("T")


def make_transport(settings: Settings, *, min_body_bytes: int = 0) -> Any:
    """The one provider transport, metered against the persistent daily allowance.

    ``min_body_bytes`` raises the response cap for this transport when the settings'
    cap is lower (full text may be up to 4,000,000 bytes)."""
    try:
        from litdesk.adapters.http import DailyMeter, ProviderTransport
    except ImportError as exc:  # the transport package is another area's; fail clearly
        raise ConfigError(f"the provider transport is not available: {exc}") from None
    if settings.http_max_response_bytes < min_body_bytes:
        settings = settings.model_copy(update={"http_max_response_bytes": min_body_bytes})
    meter = DailyMeter.from_settings(settings, persist=True)
    return ProviderTransport(settings, meter=meter)


def run_with_transport(
    settings: Settings,
    work: Callable[[Any], Awaitable[T]],
    *,
    min_body_bytes: int = 0,
) -> T:
    """Run ``work(transport)`` on a fresh event loop and close the transport after."""

    async def main() -> T:
        transport = make_transport(settings, min_body_bytes=min_body_bytes)
        try:
            return await work(transport)
        finally:
            await transport.aclose()

    return asyncio.run(main())


def store_allowance(settings: Settings) -> StoreAllowance:
    """The store's daily allowance for ``settings`` (opened and migrated)."""
    from litdesk.adapters.store import open_store

    return StoreAllowance(open_store(settings), settings)


def fetch_fulltext_sync(
    paper_id: str, *, refresh: bool = False, settings: Settings | None = None
) -> FullTextResult:
    """CLI helper: resolve and read ``paper_id``'s full text with the default transport."""
    settings = settings or get_settings()
    cache_dir = settings.resolved_data_dir() / "fulltext"

    async def work(transport: Any) -> FullTextResult:
        allowance = store_allowance(settings)
        try:
            service = FullTextService(transport, cache_dir=cache_dir, allowance=allowance)
            return await service.get(paper_id, refresh=refresh)
        finally:
            allowance.close()

    return run_with_transport(settings, work, min_body_bytes=MAX_FULLTEXT_BYTES)
