"""Bounded reads of input files: regular files only, never blocking, never past the limit;
and every side input of the CLI (decisions, evaluation inputs, exports, full-text XML, Study
ZIPs) refuses a FIFO or a device quickly with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from litdesk._errors import NotFoundError
from litdesk.adapters.files import FileRefused, read_bounded


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "x.json"
    os.mkfifo(path)
    return path


def _refused(path: Path | str, limit: int = 1000) -> FileRefused:
    with pytest.raises(FileRefused) as info:
        read_bounded(path, limit=limit, label="the input")
    return info.value


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 1000)
    assert read_bounded(path, limit=1000) == b"x" * 1000
    assert read_bounded(path, limit=5000) == b"x" * 1000
    err = _refused(path, limit=999)
    assert err.code == "too_large" and "1,000 bytes" in err.message


def test_a_fifo_is_refused_without_blocking(fifo: Path) -> None:
    t0 = time.perf_counter()
    err = _refused(fifo)
    assert time.perf_counter() - t0 < 1
    assert err.code == "not_regular" and "FIFO" in err.message


def test_a_fifo_with_a_writer_is_refused_too(fifo: Path) -> None:
    def writer() -> None:
        with open(fifo, "wb") as fh:  # blocks until a reader opens it; none ever does
            fh.write(b"x")

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    assert _refused(fifo).code == "not_regular"
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # let the writer finish
    thread.join(5)
    os.close(fd)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_devices_are_refused(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} missing")
    err = _refused(device)
    assert err.code == "not_regular" and "character device" in err.message


def test_a_symlink_to_a_device_and_a_folder_are_refused(tmp_path: Path) -> None:
    link = tmp_path / "decisions.json"
    link.symlink_to("/dev/zero")
    assert _refused(link).code == "not_regular"
    assert "folder" in _refused(tmp_path).message


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read_bounded(tmp_path / "nope.json", limit=10)
    secret = tmp_path / "secret.json"
    secret.write_bytes(b"{}")
    secret.chmod(0)
    try:
        if os.geteuid() == 0:
            assert read_bounded(secret, limit=10) == b"{}"  # root reads anything
        else:
            assert _refused(secret).code == "unreadable"
    finally:
        secret.chmod(0o600)


def test_a_file_swapped_after_the_stat_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fifo: Path
) -> None:
    """The stat says regular file, the descriptor is a FIFO: the fstat refuses it."""
    regular = tmp_path / "r.json"
    regular.write_bytes(b"{}")
    real_open = os.open

    def swapped(path: object, flags: int, *args: object) -> int:
        return real_open(fifo, flags)

    monkeypatch.setattr(os, "open", swapped)
    assert _refused(regular).code == "not_regular"


def test_a_file_longer_than_its_stat_is_not_read_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that grows after the stat (here: a stat that under-reports) is cut at limit+1."""
    path = tmp_path / "grow.json"
    path.write_bytes(b"y" * 5000)
    real_fstat = os.fstat

    class Small:
        def __init__(self, st: os.stat_result) -> None:
            self.st_mode, self.st_size = st.st_mode, 10

    monkeypatch.setattr(Path, "stat", lambda self, **kw: Small(os.stat(self)))
    monkeypatch.setattr(os, "fstat", lambda fd: Small(real_fstat(fd)))
    err = _refused(path, limit=100)
    assert err.code == "too_large" and "grew" in err.message


# -- every side input of the CLI ------------------------------------------------------------
def _cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """``litdesk ARGS`` as its own process (``python -m litdesk``)."""
    env = {**os.environ, "LITDESK_DATA_DIR": str(home / "data"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "litdesk", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def _cli_in_process(
    args: list[str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """``litdesk ARGS`` in this process (the console script's app, Click's runner): the exit
    status, stdout and stderr. A process costs ~1.6 s of CPU importing litdesk; what is
    checked here is the command's refusal, which the process test below checks end to end."""
    from typer.testing import CliRunner

    from litdesk.faces.cli import app

    monkeypatch.setenv("LITDESK_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("NO_COLOR", "1")
    result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # an uncaught error: the process would print a traceback
    return result.exit_code, result.stdout, result.stderr


RIS = b"TY  - JOUR\nTI  - One\nDO  - 10.1000/one\nER  - \nTY  - JOUR\nTI  - Two\nER  - \n"


def _side_inputs(tmp_path: Path, command: list[str], kind: str) -> list[str]:
    ris = tmp_path / "a.ris"
    ris.write_bytes(RIS)
    runs = tmp_path / "runs.json"
    runs.write_text("[]")
    x = tmp_path / "side.json"
    if kind == "fifo":
        os.mkfifo(x)
    else:
        x.symlink_to("/dev/zero")
    return [a.format(x=x, ris=ris, runs=runs) for a in command]


@pytest.mark.timeout(60)  # a blocking open of the FIFO would hang here
@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize(
    "command",
    [
        ["import", "{x}"],
        ["dedup", "{ris}", "--decisions", "{x}"],
        ["eval", "--runs", "{x}"],
        ["eval", "--runs", "{runs}", "--judgments", "{x}"],
        ["study", "import", "{x}"],
    ],
    ids=["import", "dedup-decisions", "eval-runs", "eval-judgments", "study-import"],
)
def test_cli_side_inputs_refuse_fifos_and_devices(
    tmp_path: Path, command: list[str], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = _side_inputs(tmp_path, command, kind)
    t0 = time.perf_counter()
    code, out, err = _cli_in_process(args, tmp_path, monkeypatch)
    assert time.perf_counter() - t0 < 30
    assert code == 2, (out, err)
    assert "not a regular file" in out + err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_the_litdesk_process_refuses_a_side_input_with_status_2(tmp_path: Path, kind: str) -> None:
    """The same refusal end to end: the real process exits with 2, no traceback."""
    args = _side_inputs(tmp_path, ["study", "import", "{x}"], kind)
    t0 = time.perf_counter()
    done = _cli(args, tmp_path)
    assert time.perf_counter() - t0 < 30
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "not a regular file" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
