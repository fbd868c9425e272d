"""Processes of the tests started from a warmed interpreter (issue 26).

``popen(args, **kw)`` and ``run(args, **kw)`` take what :class:`subprocess.Popen` and
:func:`subprocess.run` take. When ``args`` is ``[sys.executable, "-c", CODE, *ARGS]`` (or
``"-m", MODULE``) the process is forked by this test process's fork server
(``tests/_fork_server.py``: it has imported litdesk, its database drivers and its web stack
once) and runs CODE as ``python -c`` (MODULE as ``python -m``) would: a real OS process with its own pid, environment, cwd, stdio, session and signal
dispositions, whose ``kill -9`` kills it. Importing litdesk's web stack costs 1.2–2.5 s of
CPU in a fresh interpreter; a fork costs a few milliseconds.

A plain subprocess is started instead (same call, same result) when:

* ``LITDESK_TEST_FORK=0`` (debugging; measuring the difference);
* ``args`` is anything else (another program, the console script, a script file);
* an option the fork server does not do is given (``shell``, ``preexec_fn``,
  ``pass_fds``, ``user``/``group``, ``close_fds=False``, ``restore_signals=False``, another
  ``executable``);
* the child's environment differs from the server's in a variable read at start-up or at
  import time (:data:`STARTUP_ENV`: the interpreter's own, the locale, the terminal's size
  and colours, the BLAS thread counts…), or one of its stdin/stdout/stderr is a terminal.

Where start-up itself is what a test checks (what a process imports, how long ``litdesk
--help`` takes, the console script) the tests call :mod:`subprocess` directly.

The server is started on first use, one per test process (each xdist worker has its own),
and closed at the end of the session (``tests/conftest.py``) or at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import importlib.machinery
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests._fork_server import MAX_REQUEST, REPLY, WARM_UPS, _entries

__all__ = ["STARTUP_ENV", "ForkPopen", "ForkServerGone", "close", "enabled", "popen", "run"]

#: variables read when an interpreter starts or a pre-imported module is imported: a child
#: whose value differs from the server's gets a fresh interpreter (exact names and prefixes)
STARTUP_ENV = (
    "PYTHON",  # every PYTHON* variable (hash seed, warnings, encoding, buffering…) but
    # PYTHONPATH: a child's is checked against what the server imported (ForkPopen._path)
    "LC_ALL",
    "LC_CTYPE",
    "LANG",
    "COLUMNS",  # rich's consoles are made when litdesk's CLI is imported
    "LINES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "JUPYTER_",
    "GITHUB_ACTIONS",  # typer's rich settings
    "PY_COLORS",
    "TERMINAL_WIDTH",
    "_TYPER_",
    "OMP_",
    "OPENBLAS_",
    "MKL_",
    "NUMPY_",
    "PSYCOPG_",
    "OTEL_",
)
_ROOT = Path(__file__).resolve().parents[1]
_SERVER_CODE = "from tests._fork_server import serve; serve()"
#: a server that pre-imports nothing: for tests of the server's own life (start, close),
#: where what it pre-imports is not what they check (tests/test_fork_server.py)
COLD_SERVER_CODE = "from tests._fork_server import serve; serve(warm=False)"


def enabled() -> bool:
    return os.environ.get("LITDESK_TEST_FORK", "1") != "0"


def _startup(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(STARTUP_ENV) and k != "PYTHONPATH"}


class ForkServerGone(OSError):
    """The fork server ended while a child of it was waited for (its log says why)."""


class _Server:
    def __init__(self) -> None:
        self.startup = _startup(os.environ)
        fd, log = tempfile.mkstemp(prefix="litdesk-fork-", suffix=".log")
        self.log = Path(log)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with contextlib.suppress(OSError):
            mine.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, MAX_REQUEST)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _SERVER_CODE, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=fd,
                cwd=_ROOT,
            )
        finally:
            theirs.close()
            os.close(fd)
        self.ctl = mine
        self.lock = threading.Lock()
        self._where: dict[str, Any] | None = None
        self._paths: dict[str, list[str] | None] = {}

    def where(self) -> dict[str, Any]:
        """The server's paths and module origins (its first message: it is ready)."""
        with self.lock:
            if self._where is None:
                got = self.ctl.recv(MAX_REQUEST)
                if not got:
                    raise ForkServerGone(self.gone())
                self._where = json.loads(got)
            return self._where

    def path(self, pythonpath: str) -> list[str] | None:
        """The ``sys.path`` of a fresh ``python -c`` with this ``PYTHONPATH``, or None when
        it would import one of the server's modules from elsewhere."""
        if pythonpath not in self._paths:
            self._paths[pythonpath] = self._path(pythonpath)
        return self._paths[pythonpath]

    def _path(self, pythonpath: str) -> list[str] | None:
        where = self.where()
        entries = _entries(pythonpath)
        path = ["", *entries, *(p for p in where["base"] if p not in entries)]
        if entries == where["pythonpath"]:
            return path
        listed: dict[str, set[str]] = {}
        for d in path[1:]:
            try:
                listed[d] = set(os.listdir(d))
            except OSError:
                listed[d] = set()
        suffixes = importlib.machinery.all_suffixes()

        def finds(d: str, name: str) -> bool:
            """Whether ``import name`` stops at ``d`` (a module file or a regular package;
            a directory without ``__init__`` is a namespace portion: the search goes on)."""
            if any(name + s in listed[d] for s in suffixes):
                return True
            package = os.path.join(d, name)
            return name in listed[d] and any(
                os.path.isfile(os.path.join(package, "__init__" + s)) for s in suffixes
            )

        for name, origin in where["origins"].items():
            found = next((d for d in path[1:] if finds(d, name)), None)
            if found is not None and found != origin:
                return None
        return path

    def request(self, payload: bytes, fds: list[int]) -> None:
        with self.lock:
            socket.send_fds(self.ctl, [payload], fds)

    def close(self) -> None:
        self.ctl.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.returncode == 0:
            self.log.unlink(missing_ok=True)

    def gone(self) -> str:
        return f"the fork server ended ({self.proc.poll()}): {self.log.read_text()[-3000:]}"


_server: _Server | None = None
_server_lock = threading.Lock()


def _the_server() -> _Server:
    global _server
    with _server_lock:
        if _server is None:
            _server = _Server()
        return _server


def close() -> None:
    """Close this process's fork server (its running children go on)."""
    global _server
    with _server_lock:
        server, _server = _server, None
    if server is not None:
        server.close()


def _forget_after_fork() -> None:
    global _server
    _server = None  # a forked copy of this process does not share its server


atexit.register(close)
os.register_at_fork(after_in_child=_forget_after_fork)


class ForkPopen(subprocess.Popen):  # type: ignore[type-arg]
    """A :class:`subprocess.Popen` whose child the fork server forks: ``pid``, ``poll``,
    ``wait``, ``communicate``, pipes, ``send_signal``/``terminate``/``kill`` and the
    ``returncode`` (-N for a death by signal N) as subprocess has them. The exit status
    comes from the server (it reaps the child) over a socket of this Popen's own."""

    _reply: socket.socket | None = None

    def __init__(
        self, args: Any, *, warm: Sequence[str] = (), cheap_passwords: bool = False, **kw: Any
    ) -> None:
        # read by _execute_child, which Popen.__init__ calls
        self._warm, self._cheap_passwords = list(warm), cheap_passwords
        super().__init__(args, **kw)

    def _execute_child(  # type: ignore[override]
        self,
        args: Sequence[str],
        executable: Any,
        preexec_fn: Any,
        close_fds: bool,
        pass_fds: Any,
        cwd: Any,
        env: Mapping[str, str] | None,
        startupinfo: Any,
        creationflags: int,
        shell: bool,
        p2cread: int,
        p2cwrite: int,
        c2pread: int,
        c2pwrite: int,
        errread: int,
        errwrite: int,
        restore_signals: bool,
        gid: Any,
        gids: Any,
        uid: Any,
        umask: int,
        start_new_session: bool,
        process_group: int | None,
    ) -> None:
        server = _the_server()
        env = dict(os.environ if env is None else env)
        path = server.path(env.get("PYTHONPATH", ""))
        if path is None:
            raise ValueError("not forkable (tests._fork.popen starts such processes)")
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            request = {
                "mode": args[1],
                "code": args[2],
                "argv": [os.fsdecode(a) for a in args[3:]],
                "env": env,
                "path": path,
                "cwd": None if cwd is None else os.fsdecode(cwd),
                "new_session": bool(start_new_session),
                "process_group": -1 if process_group is None else process_group,
                "umask": umask,
                "ignored": _ignored(),
                "mask": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
                "warm": self._warm,
                "cheap_passwords": self._cheap_passwords,
            }
            stdio = [
                p2cread if p2cread != -1 else 0,
                c2pwrite if c2pwrite != -1 else 1,
                errwrite if errwrite != -1 else 2,
            ]
            server.request(json.dumps(request).encode(), [theirs.fileno(), *stdio])
            theirs.close()
            got = mine.recv(REPLY.size)
            if not got:
                raise ForkServerGone(server.gone())
            (pid,) = REPLY.unpack(got)
            if pid < 0:
                raise OSError(-pid, os.strerror(-pid), request["cwd"])
            self.pid = pid
            self._child_created = True
            self._reply = mine
        except BaseException:
            mine.close()
            theirs.close()
            raise
        finally:
            self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)

    def _status(self, block: bool) -> int | None:
        """The child's raw wait status from the server, or None while it runs."""
        reply = self._reply
        if reply is None:
            raise ChildProcessError(errno.ECHILD, "no status left")
        reply.setblocking(block)
        try:
            got = reply.recv(REPLY.size)
        except BlockingIOError:
            return None
        self._reply = None
        reply.close()
        if not got:
            server = _server
            raise ForkServerGone(server.gone() if server else "the fork server was closed")
        return int(REPLY.unpack(got)[0])

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        status = self._status(block=not wait_flags & os.WNOHANG)
        return (0, 0) if status is None else (self.pid, status)

    def _internal_poll(self, _deadstate: int | None = None, **_: Any) -> int | None:
        if self.returncode is None:
            if not self._waitpid_lock.acquire(False):
                return None
            try:
                if self.returncode is not None:
                    return self.returncode
                status = self._status(block=False)
                if status is not None:
                    self._handle_exitstatus(status)
            except OSError:
                if _deadstate is not None:
                    self.returncode = _deadstate
                else:
                    raise
            finally:
                self._waitpid_lock.release()
        return self.returncode


def _ignored() -> list[int]:
    """The signals this process ignores, which a program it starts by exec ignores too
    (SIGPIPE and SIGXFSZ: subprocess restores their default before exec)."""
    ignored = []
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGPIPE, signal.SIGXFSZ):
            continue
        with contextlib.suppress(OSError, ValueError):
            if signal.getsignal(sig) == signal.SIG_IGN:
                ignored.append(int(sig))
    return ignored


def _is_tty(stream: Any, default: int) -> bool:
    if stream is None:
        fd = default
    elif stream in (subprocess.PIPE, subprocess.DEVNULL, subprocess.STDOUT):
        return False
    elif isinstance(stream, int):
        fd = stream
    else:
        fd = stream.fileno()
    try:
        return os.isatty(fd)
    except OSError:
        return False


def forkable(args: Any, **kw: Any) -> bool:
    """Whether the fork server can start this process as a fresh interpreter would."""
    if not enabled() or isinstance(args, (str, bytes, os.PathLike)):
        return False
    args = list(args)
    if len(args) < 3 or args[1] not in ("-c", "-m") or os.fspath(args[0]) != sys.executable:
        return False
    if kw.get("executable") not in (None, sys.executable):
        return False
    if kw.get("shell") or kw.get("preexec_fn") is not None or kw.get("pass_fds"):
        return False
    if kw.get("close_fds", True) is False or kw.get("restore_signals", True) is False:
        return False
    if any(kw.get(k) is not None for k in ("user", "group", "extra_groups")):
        return False
    env = os.environ if kw.get("env") is None else kw["env"]
    server_env = _server.startup if _server is not None else _startup(os.environ)
    if _startup(env) != server_env:
        return False
    if any(_is_tty(kw.get(name), fd) for fd, name in enumerate(("stdin", "stdout", "stderr"))):
        return False
    return _the_server().path(env.get("PYTHONPATH", "")) is not None


def popen(
    args: Any, *, warm: Sequence[str] = (), cheap_passwords: bool = False, **kw: Any
) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **kw)``, forked from the warmed interpreter when it can be.
    ``warm``: warm-ups of the fork server (``tests._fork_server.WARM_UPS``) done before
    the fork, once per server (a plain subprocess does its own work, as ever);
    ``cheap_passwords``: the child hashes passwords with Argon2id's smallest parameters, as
    the test process does (a plain subprocess uses the production ones)."""
    unknown = set(warm) - WARM_UPS.keys()
    if unknown:
        raise ValueError(f"no such warm-up: {sorted(unknown)}")
    if forkable(args, **kw):
        kw.pop("executable", None)
        return ForkPopen(args, warm=warm, cheap_passwords=cheap_passwords, **kw)
    return subprocess.Popen(args, **kw)


def run(
    args: Any,
    *,
    input: Any = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **kw: Any,
) -> subprocess.CompletedProcess[Any]:
    """:func:`subprocess.run` over :func:`popen`."""
    if input is not None:
        if kw.get("stdin") is not None:
            raise ValueError("stdin and input arguments may not both be used.")
        kw["stdin"] = subprocess.PIPE
    if capture_output:
        if kw.get("stdout") is not None or kw.get("stderr") is not None:
            raise ValueError("stdout and stderr arguments may not be used with capture_output.")
        kw["stdout"] = subprocess.PIPE
        kw["stderr"] = subprocess.PIPE
    with popen(args, **kw) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            process.kill()
            exc.stdout, exc.stderr = process.communicate()
            raise
        except BaseException:
            process.kill()
            raise
        retcode = process.wait()
        if check and retcode:
            raise subprocess.CalledProcessError(retcode, process.args, stdout, stderr)
    return subprocess.CompletedProcess(process.args, retcode, stdout, stderr)
