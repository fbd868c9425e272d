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
    "demo_workspace",
    "run_with_app",
    "settings",
    "sync_app",
    "use_demo",
]

T = TypeVar("T")

#: Extra ``open_app`` keywords for tests (``http_transport``: an ``httpx`` mock
#: transport); empty in use.
APP_TEST_HOOKS: dict[str, Any] = {}


#: ``litdesk --demo …``: this process works in the offline demo workspace.
_DEMO = {"on": False}


def use_demo(on: bool = True) -> None:
    """Work in the demo workspace (the root option ``--demo``), or no longer (``on=False``)."""
    _DEMO["on"] = on


def demo_on() -> bool:
    """True when this invocation acts on the demo workspace (``litdesk --demo``)."""
    return _DEMO["on"]


def settings() -> Settings:
    """The process's settings (built once; ``get_settings`` caches them). With the root
    option ``--demo``: the demo workspace's settings, the workspace made first when it does
    not exist yet (as ``litdesk serve --demo`` does); your own workspace is not opened."""
    from litdesk._settings import get_settings

    base = get_settings()
    return demo_workspace(base) if _DEMO["on"] else base


def demo_workspace(base: Settings) -> Settings:
    """The demo workspace's settings, the workspace made first (saying so) when it does not
    exist yet — for ``litdesk --demo …`` and ``litdesk serve --demo`` alike."""
    from litdesk.services.demo import demo_place, demo_settings, ensure_demo

    place = demo_place(base)
    if not place.exists:
        from ._output import err_console

        err_console.print(
            f"Making the demo workspace in {place.directory} (first use: about 10 s) …",
            markup=False,
            highlight=False,
        )
        ensure_demo(base)
    return demo_settings(base)


def run_with_app(
    work: Callable[[App], Awaitable[T]],
    *,
    record: Path | None = None,
    replay: Path | None = None,
    holds_jobs: bool = False,
) -> T:
    """Open the app, await ``work(app)`` on one event loop, close the app.

    ``holds_jobs``: the command runs a job it submitted held (``study add-search``,
    ``study update``, ``study fulltext --check``). Stopped by Ctrl-C or SIGTERM, it ends
    that job at once — failed, saying so, when and what to run again, in one transaction
    (:meth:`~litdesk.services.app.App.interrupt_held`): the job neither waits for its
    lease to run out, counted among the account's active jobs and shown running, nor is
    resumed by another process — and exits 130 (Ctrl-C) or 143 (SIGTERM)."""
    import asyncio

    from litdesk.services.app import open_app

    # the settings before the loop: with --demo on first use they make the demo workspace,
    # which runs its own loop (inside this one: "asyncio.run() cannot be called from a
    # running event loop", e.g. `litdesk --demo study add-search` before any other command)
    chosen = settings()
    stop = _Stop()

    async def main() -> T:
        stop.task = asyncio.current_task()
        async with open_app(chosen, record=record, replay=replay, **APP_TEST_HOOKS) as app:
            try:
                return await work(app)
            except asyncio.CancelledError:  # Ctrl-C (asyncio cancels this task) or SIGTERM
                if holds_jobs:
                    stop.ended = app.interrupt_held(stop.reason())
                raise

    if not holds_jobs:
        return asyncio.run(main())
    try:
        with stop.on_sigterm():
            return asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        stop.report()
        raise SystemExit(143 if stop.signal == "SIGTERM" else 130) from None


class _Stop:
    """How a command holding a job was stopped, and the jobs it ended then."""

    def __init__(self) -> None:
        self.signal = "SIGINT"
        self.ended: list[Any] = []
        #: the command's task, once the loop runs it
        self.task: Any = None

    def reason(self) -> str:
        if self.signal == "SIGTERM":
            return "stopped by a termination signal (SIGTERM)"
        return "interrupted by the user (Ctrl-C)"

    @contextmanager
    def on_sigterm(self) -> Iterator[None]:
        """SIGTERM cancels the command's task as Ctrl-C does (asyncio's own handler); a
        second one, or one before the loop runs, ends the process at once as before."""
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        before = signal.getsignal(signal.SIGTERM)

        def on_term(signum: int, _frame: object) -> None:
            self.signal = "SIGTERM"
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one: at once
            task = self.task
            if task is None or task.done():
                raise SystemExit(128 + signum)
            task.get_loop().call_soon_threadsafe(task.cancel)

        signal.signal(signal.SIGTERM, on_term)
        try:
            yield
        finally:
            signal.signal(signal.SIGTERM, before)

    def report(self) -> None:
        from ._output import err_console

        said = "Ctrl-C" if self.signal == "SIGINT" else "SIGTERM"
        lines = [f"litdesk: stopped ({said})."]
        for job in self.ended:
            lines.append(f"  job {job.id} ended: {job.message}")
        for text in lines:
            err_console.print(text, markup=False, highlight=False, soft_wrap=True)


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
