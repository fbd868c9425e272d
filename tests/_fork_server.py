"""The fork server of the tests (issue 26): one warmed interpreter per test process that
forks a real OS process per request, which then runs its code as ``python -c CODE ARGS…``
(or ``python -m MODULE ARGS…``) would. The client side (start, requests, a Popen) is ``tests/_fork.py``.

Started by the client as ``python -c "from tests._fork_server import serve; serve()" FD``
with ``FD`` one end of a ``SOCK_SEQPACKET`` pair (the control socket). It imports the heavy
modules once (every ``litdesk`` module, the database drivers, the web stack), checks that
doing so started no thread and left no socket open, freezes what it imported out of the
garbage collector (fewer copied pages in its children), then serves, single-threaded:

* a request is one control message: JSON (argv, env, cwd, session/group, umask, the
  warm-ups it asks for) plus file descriptors by ``SCM_RIGHTS``: the reply socket, then
  the child's stdin, stdout and stderr;
* a warm-up (:data:`WARM_UPS`: a team server's routes and templates, the OpenAI SDK, the
  USE-m3 encoder) is done once, the first time a request asks for it, before the fork:
  that child and every later one start with it done;
* the server forks; the child becomes the process the request describes (:func:`_child`)
  and never returns; the server answers the child's pid (or ``-errno`` when the request's
  cwd is not a directory) on the reply socket;
* on ``SIGCHLD`` (a wake-up pipe) it reaps its children and sends each one's raw wait
  status on its reply socket, then closes it;
* at end of file on the control socket (the client closed it, or died) it exits; children
  still running are left running (as a parent that exits leaves them).

Differences from a fresh interpreter, all guarded or harmless for the tests:

* every pre-imported module is already in ``sys.modules`` (a test of what start-up imports
  must use a fresh interpreter: ``tests/services/test_app_lazy.py``);
* BLAS runs single-threaded in the children (the server imports numpy with the thread
  limits of litdesk's own worker processes, so the import starts no BLAS threads);
* the string hash seed is the server's (one per test process, not one per child);
* ``/proc/PID/cmdline`` is the server's (a fork does not exec);
* once a request asked for the ``web`` warm-up, the apps made in later children share the
  routes' built state of equal includes (as the in-process web tests' apps do), and their
  page templates are compiled already; after ``use-m3`` the encoder is loaded;
* values modules compute from the environment at import time are the server's: the client
  sends a request here only when those variables (``tests/_fork.py: STARTUP_ENV``) are the
  same as the server's and no stdio of the child is a terminal, else it starts a plain
  subprocess.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import gc
import importlib
import importlib.machinery
import io
import json
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
import traceback
import types
from typing import Any

#: the most a request may hold (argv, environment, code): the control socket's message
MAX_REQUEST = 4 * 1024 * 1024
#: a reply: the child's pid (or -errno), then its raw wait status
REPLY = struct.Struct("!i")
#: imported besides every ``litdesk`` module: what litdesk imports only when it runs
_ALSO = (
    "numpy",
    "sqlalchemy",
    "sqlalchemy.dialects.sqlite.pysqlite",
    "sqlalchemy.dialects.postgresql.psycopg",
    "psycopg",
    "psycopg.pq",
    "alembic",
    "alembic.command",
    "alembic.config",
    "alembic.runtime.migration",
    "alembic.script",
    "httpx",
    "uvicorn",
    "uvicorn.main",
    "uvicorn.config",
    "uvicorn.server",
    "uvicorn.supervisors",
    "uvicorn.lifespan.on",
    "uvicorn.loops.auto",
    "uvicorn.loops.asyncio",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.auto",
    "multiprocessing.spawn",
    "concurrent.futures.process",
    "asyncio",
    "sqlite3",
    "ssl",
)
#: ``litdesk`` modules left out: ``__main__`` runs the CLI when imported; alembic loads the
#: migration scripts itself, by path, as modules of its own
_SKIP = (".__main__", ".migrations")

#: what the warm-ups keep alive for the server's life
_KEPT: list[Any] = []


def _warm_web() -> None:
    """A team server's per-process start of its pages and API (about 1 s of CPU that every
    forked ``litdesk serve`` paid again): the routes' built state (FastAPI builds it per app
    on the first requests; from now on, in this server and its children, it is shared by
    every app with equal include options, as in the in-process web tests:
    :func:`tests.faces.web._routes.share_route_contexts`), every page template compiled,
    the report's assets and the static files' fingerprint (each read once per process)."""
    from fastapi import routing

    from litdesk import Settings
    from litdesk.faces.web import create_app
    from litdesk.faces.web._render import _env
    from tests.faces.web._routes import share_route_contexts

    sharing = share_route_contexts()
    sharing.__enter__()  # for good: this process only serves its children
    _KEPT.append(sharing)  # (collected, the generator would undo it)
    included = getattr(routing, "_IncludedRouter", None)

    def build(routes: list[Any]) -> None:
        for route in routes:
            if included is not None and isinstance(route, included):
                build(route.effective_candidates())
                route.effective_low_priority_routes()

    with tempfile.TemporaryDirectory() as data:  # no store is opened (no lifespan)
        for team in (True, False):
            build(create_app(Settings(data_dir=data), team=team).router.routes)
    env = _env()
    for name in env.list_templates():
        env.get_template(name)


def _warm_openai() -> None:
    """The OpenAI SDK (about 0.5 s of CPU to import), which litdesk imports only when a
    process makes its first call to an OpenAI-compatible model."""
    importlib.import_module("openai")


def _warm_use_m3() -> None:
    """The USE-m3 encoder of one BLAS thread loaded (about 1.4 s of CPU; no thread started):
    what a process that embeds with it loads on its first text."""
    from litdesk.adapters.embeddings._embedders import _use_model

    _use_model(1)


#: work a request may ask the server to do once, before it forks (``warm``): what every
#: child that needs it would otherwise do again after its fork. Done in the server, it is
#: checked like the imports (no thread, no socket left), then frozen out of the collector.
WARM_UPS = {"web": _warm_web, "openai": _warm_openai, "use-m3": _warm_use_m3}
_warmed: set[str] = set()


def _warm_up(names: list[str], ours: set[int]) -> None:
    """Do the warm-ups of ``names`` not done yet; ``ours``: the sockets the server holds
    now (its control socket, the replies of the request and of the running children)."""
    todo = [n for n in names if n not in _warmed]
    if not todo:
        return
    from litdesk._workers import limited_threads

    with limited_threads():
        for name in todo:
            WARM_UPS[name]()
            _warmed.add(name)
    _check_quiet(ours)
    gc.collect()
    gc.freeze()


def _warm() -> list[str]:
    """Import what the children would import; the names that failed (left out)."""
    failed: list[str] = []
    from litdesk._workers import limited_threads  # litdesk's own worker BLAS limits

    with limited_threads():
        import litdesk

        names = [
            m.name
            for m in pkgutil.walk_packages(litdesk.__path__, "litdesk.")
            if not any(s in m.name for s in _SKIP)
        ]
        for name in [*_ALSO, *names]:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 -- a module that cannot be pre-imported is left out
                failed.append(name)
    return failed


def _check_quiet(ours: set[int] | None = None) -> None:
    """Fork is only safe from a process with one thread, no socket but its own and no
    connection: what the imports (or warm-ups) left is checked, not assumed. ``ours``: the
    server's own sockets at a warm-up (at start-up: the control socket alone)."""
    threads = os.listdir("/proc/self/task")
    if len(threads) != 1 or threading.active_count() != 1:
        raise SystemExit(f"fork server: the imports started threads ({len(threads)} tasks)")
    sockets = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                sockets.append(int(fd))
    left = [fd for fd in sockets if fd not in ours] if ours is not None else sockets[1:]
    if left or not sockets:
        raise SystemExit(f"fork server: the imports left sockets open (fds {sockets})")


def _where() -> dict[str, Any]:
    """Where this interpreter imports from: its ``sys.path`` without the ``PYTHONPATH``
    entries (``base``), those entries, and the directory of ``sys.path`` each imported
    top-level module came from (a child whose own ``PYTHONPATH`` would find one of them
    elsewhere is not forked: its pre-imported module would not be the one it imports)."""
    pythonpath = _entries(os.environ.get("PYTHONPATH", ""))
    base = [p for p in sys.path[1:] if p not in pythonpath]
    origins: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if "." in name or not file:
            continue
        where = os.path.dirname(file)
        if os.path.basename(file).startswith("__init__."):
            where = os.path.dirname(where)
        origins[name] = where
    return {"base": base, "pythonpath": pythonpath, "origins": origins}


def _entries(pythonpath: str) -> list[str]:
    """``PYTHONPATH``'s directories as ``sys.path`` holds them (absolute, once each)."""
    seen: list[str] = []
    for entry in pythonpath.split(os.pathsep):
        if entry and os.path.abspath(entry) not in seen:
            seen.append(os.path.abspath(entry))
    return seen


def serve(*, warm: bool = True) -> None:
    """Serve forks on the control socket ``sys.argv[1]`` until the client closes it, after
    importing what the children would import (``warm``; without it, only this module's)."""
    ctl = socket.socket(fileno=int(sys.argv[1]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C stops the tests; the client closes us
    failed = _warm() if warm else []
    if failed:
        print(f"fork server: not pre-imported: {', '.join(failed)}", file=sys.stderr)
    _check_quiet()
    gc.collect()
    gc.freeze()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}
    sel = selectors.DefaultSelector()
    sel.register(ctl, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    ctl.send(json.dumps(_where()).encode())  # ready: what the client checks requests by
    print(f"fork server {os.getpid()}: ready, {len(sys.modules)} modules", file=sys.stderr)
    sys.stderr.flush()
    try:
        while True:
            for key, _ in sel.select():
                if key.fileobj is ctl:
                    msg, fds, _flags, _addr = socket.recv_fds(ctl, MAX_REQUEST, 8)
                    if not msg:
                        for fd in fds:
                            os.close(fd)
                        return  # the client closed the control socket
                    _start(msg, fds, children, ctl)
                else:
                    with contextlib.suppress(BlockingIOError):
                        os.read(wake_r, 4096)
            _reap(children)
    finally:
        _reap(children)


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        reply = children.pop(pid, None)
        if reply is not None:
            with contextlib.suppress(OSError):
                reply.send(REPLY.pack(status))
            reply.close()


def _start(
    msg: bytes,
    fds: list[int],
    children: dict[int, socket.socket],
    ctl: socket.socket,
) -> None:
    reply = socket.socket(fileno=fds[0])
    stdio = fds[1:4]
    request = json.loads(msg)
    cwd = request["cwd"]
    warm = request.get("warm", [])
    code = 0
    if cwd is not None and not os.path.isdir(cwd):
        code = errno.ENOTDIR if os.path.exists(cwd) else errno.ENOENT
    elif not set(warm) <= WARM_UPS.keys():  # the client checks the names first
        code = errno.EINVAL
    if code:
        with contextlib.suppress(OSError):
            reply.send(REPLY.pack(-code))
        reply.close()
        for fd in stdio:
            os.close(fd)
        return
    _warm_up(warm, {ctl.fileno(), *fds, *(s.fileno() for s in children.values())})
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            # the server's sockets are not the child's (their fds are closed below, and an
            # object collected later must not close a file the child opened on that number)
            for sock in (ctl, reply, *children.values()):
                sock.detach()
            status = _child(request, stdio)
        except BaseException:  # noqa: BLE001 -- a failure of this module, not of the code run
            with contextlib.suppress(BaseException):
                os.write(2, f"fork server child: {traceback.format_exc()}".encode())
        finally:
            os._exit(status)
    for fd in stdio:
        os.close(fd)
    try:
        reply.send(REPLY.pack(pid))
    except OSError:
        reply.close()
        return
    children[pid] = reply


# --- the child ---------------------------------------------------------------------------


def _cheap_passwords() -> None:
    """Argon2id with its smallest parameters in this child, as in the test process
    (``tests/conftest.py``: ``_cheap_password_hashes``): the same code paths, about 0.2 s of
    CPU less per login (a hash made with the production parameters, or a rehash to them).
    Those parameters and the rehash are checked in-process (``real_password_hash``)."""
    from argon2 import PasswordHasher

    from litdesk.services.accounts import _passwords

    hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    dummy = hasher.hash("litdesk-no-such-account")
    _passwords._HASHER = hasher  # type: ignore[misc]
    _passwords._dummy = lambda: dummy  # type: ignore[assignment]


def _child(request: dict[str, Any], stdio: list[int]) -> int:
    """Become ``python -c CODE ARGS…`` with the request's environment, cwd and stdio;
    run it; the exit status."""
    signal.set_wakeup_fd(-1)
    # what exec leaves of the requester's dispositions: the ignored signals stay ignored
    # (but SIGPIPE and SIGXFSZ: subprocess's restore_signals), the caught ones are reset;
    # and its signal mask is kept
    ignored = set(request["ignored"])
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_IGN if sig in ignored else signal.SIG_DFL)
    # then what CPython installs at start-up
    if signal.SIGINT not in ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, request["mask"])
    sys.excepthook = sys.__excepthook__
    sys.unraisablehook = sys.__unraisablehook__
    threading.excepthook = threading.__excepthook__
    if request.get("cheap_passwords"):
        _cheap_passwords()
    if request["new_session"]:
        os.setsid()
    elif request["process_group"] >= 0:
        os.setpgid(0, request["process_group"])
    if request["umask"] >= 0:
        os.umask(request["umask"])
    for target, fd in enumerate(stdio):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the server's sockets, the received fds
    if request["cwd"] is not None:
        os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    tempfile.tempdir = None
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()  # type: ignore[attr-defined]  # a fresh interpreter's own seed
    _fresh_stdio()
    sys.argv = [request["mode"], *request["argv"]]
    sys.path[:] = request["path"]
    main = types.ModuleType("__main__")
    main.__loader__ = importlib.machinery.BuiltinImporter  # type: ignore[assignment]
    main.__annotations__ = {}
    sys.modules["__main__"] = main
    if request["mode"] == "-m":
        sys.path[0] = os.getcwd()  # python -m puts the cwd first, as a full path
    return _run(request["mode"], request["code"], main.__dict__)


def _stream(fd: int, reference: Any, name: str) -> io.TextIOWrapper:
    """A standard stream on ``fd`` made as CPython made the server's own at start-up: the
    same environment (``PYTHONUNBUFFERED``, the locale) and neither is a terminal (the
    client sends a terminal's requests to a fresh interpreter)."""
    reading = fd == 0
    raw = io.FileIO(fd, "rb" if reading else "wb", closefd=False)
    raw.name = name  # type: ignore[misc]
    buffer: Any = raw
    if not isinstance(reference.buffer, io.FileIO):
        buffer = io.BufferedReader(raw) if reading else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        buffer,
        encoding=reference.encoding,
        errors=reference.errors,
        newline="\n",
        line_buffering=reference.line_buffering,
        write_through=reference.write_through,
    )


def _fresh_stdio() -> None:
    sys.stdin = sys.__stdin__ = _stream(0, sys.__stdin__, "<stdin>")
    sys.stdout = sys.__stdout__ = _stream(1, sys.__stdout__, "<stdout>")
    sys.stderr = sys.__stderr__ = _stream(2, sys.__stderr__, "<stderr>")


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def _run(mode: str, code: str, namespace: dict[str, Any]) -> int:
    """What CPython's ``pymain_run_command`` (``-c``) or ``pymain_run_module`` (``-m``) and
    then ``Py_FinalizeEx`` do: the exit status."""
    interrupted = False
    try:
        if mode == "-m":
            runpy._run_module_as_main(code, alter_argv=True)  # type: ignore[attr-defined]
        else:
            exec(compile(code, "<string>", "exec"), namespace)
        status = 0
    except SystemExit as exc:
        status = _exit_code(exc)
    except BaseException as exc:  # noqa: BLE001 -- the interpreter's own last resort
        interrupted = isinstance(exc, KeyboardInterrupt)
        tb = exc.__traceback__
        exc = exc.with_traceback(tb.tb_next if tb is not None else None)  # not this frame
        sys.excepthook(type(exc), exc, exc.__traceback__)
        status = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # non-daemon threads are joined
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001
        status = 120
    with contextlib.suppress(BaseException):
        sys.stderr.flush()
    if interrupted:  # CPython ends a process stopped by an uncaught Ctrl+C by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status
