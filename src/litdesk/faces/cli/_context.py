"""One resource lifetime per CLI process: the settings are built once (through the
factory, ``litdesk._settings.get_settings``) and each command that reaches a provider
opens the service runtime once, runs on one event loop (``asyncio.run``) and closes
everything it opened once. Heavy modules are imported here, when a command runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from litdesk._settings import Settings
    from litdesk.services import Runtime

__all__ = ["RUNTIME_TEST_HOOKS", "run_with_runtime", "settings"]

T = TypeVar("T")

#: Extra ``open_runtime`` keywords for tests (``http_transport``: an ``httpx`` mock
#: transport); empty in use.
RUNTIME_TEST_HOOKS: dict[str, Any] = {}


def settings() -> Settings:
    """The process's settings (built once; ``get_settings`` caches them)."""
    from litdesk._settings import get_settings

    return get_settings()


def run_with_runtime(
    work: Callable[[Runtime], Awaitable[T]],
    *,
    record: Path | None = None,
    replay: Path | None = None,
) -> T:
    """Open the runtime, await ``work(runtime)`` on one event loop, close the runtime."""
    import asyncio

    from litdesk.services import open_runtime

    async def main() -> T:
        async with open_runtime(
            settings(), record=record, replay=replay, **RUNTIME_TEST_HOOKS
        ) as runtime:
            return await work(runtime)

    return asyncio.run(main())
