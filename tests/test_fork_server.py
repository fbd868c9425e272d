"""The tests' fork server (``tests/_fork.py``, ``tests/_fork_server.py``): a forked child
behaves as ``python -c CODE ARGS…`` does — exit codes, deaths by signal, environment,
cwd, argv, stdio, kill -9, uncaught exceptions, several children at once — and the
server ends when it is closed. Each behaviour is checked against a plain subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _fork

PY = sys.executable


@pytest.fixture(autouse=True)
def _forking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITDESK_TEST_FORK", "1")


def both(code: str, *args: str, **kw: object) -> tuple[subprocess.CompletedProcess[str], ...]:
    """The same ``python -c`` run forked and as a plain subprocess."""
    forked = _fork.run([PY, "-c", code, *args], capture_output=True, text=True, timeout=60, **kw)
    plain = subprocess.run(
        [PY, "-c", code, *args], check=False, capture_output=True, text=True, timeout=60, **kw
    )
    return forked, plain


def test_a_child_is_forked_with_its_own_pid() -> None:
    proc = _fork.popen([PY, "-c", "import os; print(os.getpid(), os.getppid())"], stdout=-1)
    out, _ = proc.communicate(timeout=60)
    assert isinstance(proc, _fork.ForkPopen)
    pid, ppid = map(int, out.split())
    assert pid == proc.pid != os.getpid()
    assert ppid != os.getpid()  # the server's child, not ours
    assert proc.returncode == 0


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("pass", 0),
        ("raise SystemExit(3)", 3),
        ("import sys; sys.exit(None)", 0),
        ("import sys; sys.exit(True)", 1),
        ("import sys; sys.exit(256 + 7)", 7),
        ("import os; os._exit(9)", 9),
    ],
)
def test_exit_codes(code: str, status: int) -> None:
    forked, plain = both(code)
    assert forked.returncode == plain.returncode == status


def test_a_message_given_to_exit_goes_to_stderr_with_status_1() -> None:
    forked, plain = both("raise SystemExit('no such study')")
    assert forked.returncode == plain.returncode == 1
    assert forked.stderr == plain.stderr == "no such study\n"


def test_an_uncaught_exception_prints_its_traceback_and_exits_1() -> None:
    code = "def f():\n    raise ValueError('bad value')\nf()"
    forked, plain = both(code)
    assert forked.returncode == plain.returncode == 1
    assert forked.stderr == plain.stderr
    assert "_fork_server" not in forked.stderr
    assert forked.stderr.endswith("ValueError: bad value\n")


def test_a_syntax_error_is_reported_as_by_python() -> None:
    forked, plain = both("def (")
    assert forked.returncode == plain.returncode == 1
    assert "SyntaxError" in forked.stderr


def test_an_uncaught_keyboard_interrupt_ends_by_sigint() -> None:
    forked, plain = both("raise KeyboardInterrupt")
    assert forked.returncode == plain.returncode == -signal.SIGINT


def test_a_death_by_signal_is_minus_the_signal() -> None:
    forked, plain = both("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert forked.returncode == plain.returncode == -signal.SIGTERM


def test_signal_dispositions_are_a_fresh_interpreters() -> None:
    code = (
        "import signal\n"
        "print([str(signal.getsignal(s)) for s in"
        " (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD, signal.SIGHUP)])\n"
        "print(signal.pthread_sigmask(signal.SIG_BLOCK, []))"
    )
    forked, plain = both(code)
    assert forked.stdout == plain.stdout
    assert forked.returncode == 0


def test_ignored_signals_stay_ignored_as_over_exec() -> None:
    """A signal this process ignores (nohup's SIGHUP, a background job's SIGINT) is ignored
    by the programs it starts; one it catches is back to its default there."""
    code = "import signal; print([str(signal.getsignal(s)) for s in (1, 2, 10, 15)])"
    saved = {s: signal.getsignal(s) for s in (signal.SIGHUP, signal.SIGUSR1)}
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, lambda *_: None)
    try:
        forked, plain = both(code)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert forked.stdout == plain.stdout
    assert forked.stdout.startswith("['1', ") and forked.stdout.endswith("'0', '0']\n")


def test_argv_env_and_cwd_are_the_requests(tmp_path: Path) -> None:
    code = (
        "import os, sys; print(sys.argv); print(os.getcwd()); "
        "print(os.environ.get('LITDESK_X'), 'LITDESK_TEST_FORK' in os.environ); "
        "print(os.path.expanduser('~'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "LITDESK_TEST_FORK"}
    env |= {"LITDESK_X": "y z", "HOME": str(tmp_path)}
    forked, plain = both(code, "a", "b c", cwd=tmp_path, env=env)
    assert forked.stdout == plain.stdout
    assert forked.stdout.splitlines() == [
        "['-c', 'a', 'b c']",
        str(tmp_path),
        "y z False",
        str(tmp_path),
    ]


def test_a_missing_cwd_raises_as_subprocess_does(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        _fork.popen([PY, "-c", "pass"], cwd=tmp_path / "nowhere")


def test_the_main_namespace_is_fresh() -> None:
    code = "print(__name__, __spec__, __file__ if '__file__' in dir() else '-', sorted(globals()))"
    forked, plain = both(code)
    assert forked.stdout == plain.stdout


def test_stdin_stdout_stderr() -> None:
    code = "import sys; data = sys.stdin.read(); print(data.upper()); print('e', file=sys.stderr)"
    proc = _fork.popen([PY, "-c", code], stdin=-1, stdout=-1, stderr=-1, text=True)
    out, err = proc.communicate("été\n", timeout=60)
    assert (out, err, proc.returncode) == ("ÉTÉ\n\n", "e\n", 0)
    merged = _fork.run(
        [PY, "-c", code], input="x", stdout=-1, stderr=subprocess.STDOUT, text=True, timeout=60
    )
    assert sorted(merged.stdout.split()) == ["X", "e"]


def test_output_to_a_file_and_devnull(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        done = _fork.run(
            [PY, "-c", "print('to the file'); import sys; print('x', file=sys.stderr)"],
            stdout=sink,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
    assert done.returncode == 0
    assert out.read_text() == "to the file\n"


def test_kill_9_kills_the_real_child() -> None:
    proc = _fork.popen(
        [PY, "-c", "import time; print('up', flush=True); time.sleep(60)"], stdout=-1, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "up\n"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)
    proc.stdout.close()


def test_poll_wait_timeout_terminate() -> None:
    proc = _fork.popen([PY, "-c", "import time; time.sleep(60)"])
    assert proc.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(timeout=0.2)
    proc.terminate()
    assert proc.wait(timeout=30) == -signal.SIGTERM
    assert proc.poll() == -signal.SIGTERM
    proc.kill()  # a dead process is not signalled again


def test_communicate_timeout_then_kill() -> None:
    proc = _fork.popen([PY, "-c", "import time; time.sleep(60)"], stdout=-1, text=True)
    with pytest.raises(subprocess.TimeoutExpired):
        proc.communicate(timeout=0.3)
    proc.kill()
    out, _ = proc.communicate(timeout=30)
    assert (out, proc.returncode) == ("", -signal.SIGKILL)


def test_run_check_and_timeout() -> None:
    with pytest.raises(subprocess.CalledProcessError) as info:
        _fork.run([PY, "-c", "raise SystemExit(4)"], check=True, timeout=60)
    assert info.value.returncode == 4
    with pytest.raises(subprocess.TimeoutExpired):
        _fork.run([PY, "-c", "import time; time.sleep(60)"], timeout=0.3)


def test_two_children_at_once(tmp_path: Path) -> None:
    """Two children run together (each waits for the other's file) and end in the order
    they are made to."""
    code = (
        "import sys, time, pathlib\n"
        "me, other = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])\n"
        "me.touch()\n"
        "deadline = time.monotonic() + 60\n"
        "while not other.exists() and time.monotonic() < deadline: time.sleep(0.01)\n"
        "raise SystemExit(int(sys.argv[3]))"
    )
    a, b = tmp_path / "a", tmp_path / "b"
    one = _fork.popen([PY, "-c", code, str(a), str(b), "5"])
    two = _fork.popen([PY, "-c", code, str(b), str(a), "6"])
    assert (two.wait(timeout=60), one.wait(timeout=60)) == (6, 5)
    assert one.pid != two.pid


def test_a_new_session_is_its_own_group() -> None:
    proc = _fork.popen(
        [PY, "-c", "import os; print(os.getsid(0) == os.getpid() == os.getpgid(0))"],
        stdout=-1,
        text=True,
        start_new_session=True,
    )
    out, _ = proc.communicate(timeout=60)
    assert out == "True\n"


def test_non_daemon_threads_are_joined_and_atexit_runs() -> None:
    code = (
        "import atexit, threading, time\n"
        "atexit.register(lambda: print('atexit'))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()"
    )
    forked, plain = both(code)
    assert forked.stdout == plain.stdout == "thread\natexit\n"


def test_random_state_differs_per_child() -> None:
    code = "import random, numpy; print(random.random(), numpy.random.random())"
    outs = {_fork.run([PY, "-c", code], capture_output=True, text=True).stdout for _ in range(3)}
    assert len(outs) == 3


def test_the_heavy_modules_are_imported_already() -> None:
    code = "import sys; print('litdesk.faces.web' in sys.modules, 'sqlalchemy' in sys.modules)"
    forked, plain = both(code)
    assert (forked.stdout, plain.stdout) == ("True True\n", "False False\n")


def test_what_cannot_be_forked_is_a_plain_subprocess(monkeypatch: pytest.MonkeyPatch) -> None:
    code = [PY, "-c", "pass"]
    assert _fork.forkable(code)
    assert not _fork.forkable([PY, "script.py"])
    assert not _fork.forkable(code, shell=False, preexec_fn=lambda: None)
    assert not _fork.forkable(code, env={**os.environ, "PYTHONHASHSEED": "1"})
    assert not _fork.forkable(code, env={**os.environ, "COLUMNS": "33"})
    assert _fork.forkable(code, env={**os.environ, "LITDESK_DATA_DIR": "/x"})
    plain = _fork.popen([PY, "-I", "-c", "pass"], stdout=-1)
    plain.communicate(timeout=60)
    assert type(plain) is subprocess.Popen
    monkeypatch.setenv("LITDESK_TEST_FORK", "0")
    assert not _fork.forkable(code)
    done = _fork.run(
        [PY, "-c", "import sys; print(sys.modules.get('sqlalchemy'))"],
        capture_output=True,
        text=True,
    )
    assert done.stdout == "None\n"


def test_the_server_ends_when_closed_and_a_new_one_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    # This process's warmed server is set aside (not closed) and given back at the end; the
    # servers started and closed here pre-import nothing: what they would pre-import is not
    # what this test checks, and each warm-up costs ~3 s of CPU
    with _fork._server_lock:
        warmed, _fork._server = _fork._server, None
    monkeypatch.setattr(_fork, "_SERVER_CODE", _fork.COLD_SERVER_CODE)
    try:
        _fork.run([PY, "-c", "pass"], check=True, timeout=60)
        server = _fork._server
        assert server is not None and server is not warmed
        live = _fork.popen([PY, "-c", "import time; time.sleep(60)"])
        _fork.close()
        assert server.proc.wait(timeout=30) == 0
        os.kill(live.pid, 0)  # still running after its server ended
        os.kill(live.pid, signal.SIGKILL)
        with pytest.raises(_fork.ForkServerGone):  # its status has nobody to report it
            live.wait(timeout=30)
        live.returncode = -signal.SIGKILL  # what we did to it (nobody else can say)
        assert _fork.run([PY, "-c", "raise SystemExit(2)"], timeout=60).returncode == 2
        assert _fork._server is not None and _fork._server is not server
    finally:
        _fork.close()
        with _fork._server_lock:
            _fork._server = warmed


def test_sys_path_is_a_fresh_interpreters_for_its_pythonpath(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    pythonpath = os.pathsep.join([str(root / "src"), str(root), str(tmp_path)])
    env = {**os.environ, "PYTHONPATH": pythonpath}
    assert _fork.forkable([PY, "-c", "pass"], env=env)
    forked, plain = both("import sys; print(sys.path)", env=env, cwd=tmp_path)
    assert forked.stdout == plain.stdout


def test_a_pythonpath_that_would_import_another_module_is_not_forked(tmp_path: Path) -> None:
    (tmp_path / "sqlalchemy.py").write_text("WHO = 'the shadow'\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    assert not _fork.forkable([PY, "-c", "pass"], env=env)
    done = _fork.run(
        [PY, "-c", "import sqlalchemy; print(sqlalchemy.WHO)"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "the shadow\n"


def test_python_m_runs_the_module_as_main(tmp_path: Path) -> None:
    code = ["-m", "litdesk", "--version"]
    forked = _fork.run([PY, *code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    plain = subprocess.run(
        [PY, *code], capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False
    )
    assert (forked.returncode, forked.stdout) == (plain.returncode, plain.stdout)
    assert forked.returncode == 0 and forked.stdout.strip()
    probe = ["-m", "json.tool", "--no-such-option"]
    forked = _fork.run([PY, *probe], capture_output=True, text=True, timeout=60)
    plain = subprocess.run([PY, *probe], capture_output=True, text=True, timeout=60, check=False)
    assert (forked.returncode, forked.stderr) == (plain.returncode, plain.stderr) != (0, "")


def test_files_without_a_suffix_and_namespace_portions_do_not_shadow(tmp_path: Path) -> None:
    """A ``bin`` folder's ``uvicorn`` script and a directory ``sqlalchemy`` without
    ``__init__`` are not what ``import uvicorn``/``import sqlalchemy`` finds."""
    (tmp_path / "uvicorn").write_text("#!/bin/sh\n")
    (tmp_path / "sqlalchemy").mkdir()
    pythonpath = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(tmp_path)) if p)
    env = {**os.environ, "PYTHONPATH": pythonpath}
    assert _fork.forkable([PY, "-c", "pass"], env=env)
    code = "import sqlalchemy, uvicorn; print(sqlalchemy.__file__, uvicorn.__file__)"
    forked, plain = both(code, env=env)
    assert forked.stdout == plain.stdout


def test_a_warm_up_is_done_before_the_fork_and_kept_for_later_children() -> None:
    """``warm=("web",)`` (a team server's start): the child's pages are compiled and its
    routes' built state is shared before it makes an app, whose routes answer. A later
    child that asks for nothing finds it done too; a name the server does not know is
    refused before anything is sent."""
    code = (
        "import sys\n"
        "from fastapi import routing\n"
        "from fastapi.testclient import TestClient\n"
        "from litdesk import Settings\n"
        "from litdesk.faces.web import create_app\n"
        "from litdesk.faces.web._render import _env\n"
        "env = _env()\n"
        "print(len(env.cache) == len(env.list_templates()) > 20)\n"  # none rendered yet
        "print(routing._EffectiveRouteContext.from_api_route.__qualname__)\n"
        "from types import SimpleNamespace\n"
        "stand_in = SimpleNamespace(owner='o')\n"
        "web = create_app(Settings(data_dir=sys.argv[1]), host='127.0.0.1', port=9, app=stand_in)\n"
        "with TestClient(web, base_url='http://127.0.0.1:9') as c:\n"  # a route's own checks
        "    print(c.get('/api/v1/citations', params={'mode': 'references'}).json()['message'])\n"
    )
    first = _fork.run(
        [PY, "-c", code, "/nonexistent-data"], capture_output=True, text=True, timeout=120,
        warm=("web",),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    compiled, builder, answer = first.stdout.splitlines()
    assert compiled == "True" and builder.startswith("share_route_contexts.")
    assert answer == "ids: Field required"
    later = _fork.run([PY, "-c", code, "/nonexistent-data"], capture_output=True, text=True)
    assert later.returncode == 0 and later.stdout == first.stdout, later.stderr
    with pytest.raises(ValueError, match="no such warm-up"):
        _fork.popen([PY, "-c", "pass"], warm=("everything",))


def test_cheap_passwords_are_the_childs_alone() -> None:
    """``cheap_passwords``: that child hashes with Argon2id's smallest parameters (as the
    test process does); the next child, and the server, keep the production ones."""
    code = (
        "from litdesk.services.accounts import _passwords\n"
        "print(_passwords.hash_password('correct horse battery').split('$')[3])\n"
        "print(_passwords.verify_password(_passwords._dummy(), 'litdesk-no-such-account'))\n"
    )
    cheap = _fork.run([PY, "-c", code], capture_output=True, text=True, cheap_passwords=True)
    real = _fork.run([PY, "-c", code], capture_output=True, text=True)
    plain = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=False)
    assert cheap.returncode == real.returncode == 0, cheap.stderr + real.stderr
    assert cheap.stdout == "m=1024,t=1,p=1\nTrue\n"
    assert real.stdout == plain.stdout != cheap.stdout
