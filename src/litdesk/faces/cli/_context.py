"""One resource lifetime per CLI process: the settings are built once (through the
factory, ``litdesk._settings.get_settings``) and each command opens the application
(:func:`litdesk.services.app.open_app`) once — on one event loop (``asyncio.run``) when
it reaches a provider, without one for store-only work — and closes everything it opened
once. Heavy modules are imported here, when a command runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from litdesk._settings import Settings
    from litdesk.services.app import App
    from litdesk.services.library import Library

__all__ = [
    "APP_TEST_HOOKS",
    "app_library",
    "demo_on",
    "run_with_app",
    "settings",
    "sync_app",
    "use_demo",
]

T = TypeVar("T")

#: Extra ``open_app`` keywords for tests (``http_transport``: an ``httpx`` mock
#: transport); empty in use.
APP_TEST_HOOKS: dict[str, Any] = {}


#: ``litdesk --demo …``: the commands act on the offline demo workspace
_DEMO: list[bool] = [False]


def use_demo(on: bool) -> None:
    """Make the commands of this invocation act on the demo workspace (or not)."""
    _DEMO[0] = on


def demo_on() -> bool:
    """True when this invocation acts on the demo workspace (``litdesk --demo``)."""
    return _DEMO[0]


def settings() -> Settings:
    """The process's settings (built once; ``get_settings`` caches them); with ``--demo``
    the demo workspace's (its own folder and store; it must have been made)."""
    from litdesk._settings import get_settings

    if not _DEMO[0]:
        return get_settings()
    from litdesk._errors import NotFoundError
    from litdesk.services.demo import demo_place, demo_settings

    place = demo_place(get_settings())
    if not place.exists:
        raise NotFoundError(
            f"there is no demo workspace in {place.directory} yet: make it with "
            "litdesk demo reset (or open it with litdesk serve --demo)",
            code="no_demo",
        )
    return demo_settings(get_settings())


def run_with_app(
    work: Callable[[App], Awaitable[T]],
    *,
    record: Path | None = None,
    replay: Path | None = None,
) -> T:
    """Open the app, await ``work(app)`` on one event loop, close the app."""
    import asyncio

    from litdesk.services.app import open_app

    async def main() -> T:
        async with open_app(settings(), record=record, replay=replay, **APP_TEST_HOOKS) as app:
            return await work(app)

    return asyncio.run(main())


@contextmanager
def sync_app() -> Iterator[App]:
    """The same app for a store-only command (no event loop, no provider calls)."""
    from litdesk.services.app import open_app_sync

    with open_app_sync(settings()) as app:
        yield app


def app_library(work: Callable[[Library], T], *, adopt: bool = False) -> T:
    """``work(library)`` on the app's PDF library in a worker thread; with ``adopt`` the
    library looks identifiers up through the app's one transport (its event loop)."""
    import asyncio

    async def main(app: App) -> T:
        lookup = app.providers.thread_lookup() if adopt else None
        lib = app.make_library(lookup=lookup)
        try:
            return await asyncio.to_thread(work, lib)
        finally:
            lib.close()

    return run_with_app(main)
