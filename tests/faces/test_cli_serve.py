"""``litdesk serve``: loopback only (a clear refusal otherwise), and a real start that
prints the address and answers on it (then stopped by its process id)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests import _fork
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from typer.testing import CliRunner

from litdesk.faces.cli._app import app
from litdesk.faces.cli._serve import NotLoopback, check_loopback


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.org", "localhost"])
def test_non_loopback_hosts_are_refused(host: str, tmp_settings) -> None:
    result = CliRunner().invoke(app, ["serve", "--host", host])
    assert result.exit_code == 3
    assert "without --team" in result.output


def test_loopback_addresses_pass() -> None:
    assert check_loopback("127.0.0.1") == "127.0.0.1"
    assert check_loopback("::1") == "::1"
    with pytest.raises(NotLoopback):
        check_loopback("10.0.0.1")


def test_serve_prints_the_address_and_answers(tmp_path: Path, tmp_settings) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env["LITDESK_DATA_DIR"] = str(tmp_path / "data")
    proc = _fork.popen(
        [
            sys.executable,
            "-c",
            "from litdesk.faces.cli import main; main()",
            "serve",
            "--port",
            str(port),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert f"http://127.0.0.1:{port}" in line
        deadline = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/search", timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert r.status_code == 200 and "litdesk" in r.text
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()


def test_a_team_supervisor_forks_its_workers_with_the_web_face_imported(
    tmp_path: Path,
    pg_schema: str,  # noqa: F811
) -> None:
    """``serve --team --workers 2``: the supervisor hands uvicorn the workers' app factory,
    imports the web face once (~2 s of CPU) and has uvicorn fork its workers from it instead
    of spawning fresh interpreters that each import it again; a forked worker starts with a
    fresh interpreter's signal handlers (not the supervisor's, which queue signals for its
    loop) and logging (not the CLI's, which silences every record), as a spawned one did."""
    import json
    import textwrap

    script = textwrap.dedent(
        """
        import json, logging, os, signal, sys
        import uvicorn
        from uvicorn import _subprocess
        seen = {}
        # what this interpreter started with (SIG_IGN when the tests run in the background)
        first = {"hup": signal.getsignal(signal.SIGHUP), "int": signal.getsignal(signal.SIGINT)}
        def report(out):
            seen = {"hup": signal.getsignal(signal.SIGHUP) == first["hup"],
                    "int": signal.getsignal(signal.SIGINT) == first["int"],
                    "logging": logging.root.manager.disable == 0 and not logging.root.handlers,
                    "web": "litdesk.faces.web" in sys.modules}
            os.write(out, json.dumps(seen).encode())
        def run(target, **kw):
            seen.update(target=target, workers=kw.get("workers"),
                        web="litdesk.faces.web" in sys.modules,
                        start=_subprocess.spawn.get_start_method())
            # as uvicorn's supervisor does before it starts the workers
            signal.signal(signal.SIGHUP, lambda sig, frame: None)
            signal.signal(signal.SIGINT, lambda sig, frame: None)
            read, write = os.pipe()
            worker = _subprocess.spawn.Process(target=report, args=(write,))
            worker.start()
            worker.join()
            os.close(write)
            seen["worker"] = json.loads(os.read(read, 1000))
        uvicorn.run = run
        from litdesk.faces.cli import main
        sys.argv = ["litdesk", "serve", "--team", "--workers", "2", "--port", "1"]
        try:
            main()
        except SystemExit:
            pass
        print(json.dumps(seen))
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {"LITDESK_DATA_DIR": str(tmp_path / "data"), "LITDESK_DATABASE_URL": pg_schema}
    # a fresh interpreter: what the supervisor imports is what is checked
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {
        "target": "litdesk.faces.cli._serve:team_app",
        "workers": 2,
        "web": True,
        "start": "fork",
        "worker": {"hup": True, "int": True, "logging": True, "web": True},
    }
