"""Non-regular files and kill -9 in the PDF library (issue 13 items 5 and 8): a FIFO, a socket
and a symlink to a device are skipped with a reason by ``library index``/``list``/``report
--all`` (never opened: a FIFO would block), ``library add`` refuses them and ``/dev/zero``; the
index's worker processes die with it when it is killed with SIGKILL.

The real ``litdesk`` process runs where the process is the point: the index (its reader
processes open the files), the kill -9 and the one refusal checked at the process's exit. The
commands that only read what the index stored (``library list``, ``report --all``, ``library
add``) run in this process with the same environment (the console script's app, Click's
runner: a ``litdesk`` process costs ~1.6 s of CPU importing litdesk)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests import _fork
from tests._text_pdfs import numbered_pdfs, write_pdf

from litdesk.adapters.pdf import PdfExcluded, extract, file_sha256, open_pdf

TEXT = (
    "Sediment cores were taken at twelve stations along the estuary. "
    "Cadmium concentrations were highest near the harbour outflow. " * 10
)
#: A run that hangs on a FIFO is caught by this bound instead of the suite's timeout.
BOUND = 120


def _pdf(path: Path, pages: list[str]) -> None:
    write_pdf(path, pages)


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "pdfs"
    _pdf(folder / "estuary.pdf", [TEXT])
    os.mkfifo(folder / "fifo.pdf")
    (folder / "zero.pdf").symlink_to("/dev/zero")
    (folder / "folder.pdf").mkdir()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(folder / "s.pdf"))
    try:
        yield folder
    finally:
        sock.close()


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env["LITDESK_DATA_DIR"] = str(tmp_path / "data")
    return env | extra


@dataclass(frozen=True)
class Done:
    """What an in-process command left: its exit code and its output."""

    returncode: int
    stdout: str
    stderr: str


def _in_process(env: dict[str, str], mp: pytest.MonkeyPatch, *args: str) -> Done:
    """``litdesk ARGS`` in this process with exactly the ``LITDESK_*`` variables of ``env``
    (none of the host's, none the suite sets), as the process would see them."""
    from typer.testing import CliRunner

    from litdesk.faces.cli import app

    with mp.context() as m:
        for key in [k for k in os.environ if k.startswith("LITDESK_")]:
            m.delenv(key)
        for key, value in env.items():
            if key.startswith("LITDESK_"):
                m.setenv(key, value)
        m.chdir(Path(env["LITDESK_DATA_DIR"]).parent)
        done = CliRunner().invoke(app, list(args))
    return Done(done.exit_code, done.stdout, done.stderr)


def _litdesk(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return _fork.run(
        [sys.executable, "-m", "litdesk", *args],
        check=False, env=env, capture_output=True, text=True, timeout=BOUND,
        cwd=Path(env["LITDESK_DATA_DIR"]).parent,
    )  # fmt: skip


def test_index_list_report_skip_non_regular_files(
    hostile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the light embedder: what is tested is which files are read, not the vectors (the
    # default joint one loads a second model in each of the three processes)
    env = _env(
        tmp_path, LITDESK_LIBRARY_DIRS=json.dumps([str(hostile)]), LITDESK_EMBEDDER="wordllama"
    )
    done = _litdesk(env, "library", "index", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["indexed"] == ["estuary.pdf"] and report["files"] == 1
    (warning,) = [w for w in report["warnings"] if "not a regular file" in w]
    for name, kind in [
        ("fifo.pdf", "FIFO"),
        ("zero.pdf", "character device"),
        ("s.pdf", "socket"),
    ]:  # (folder.pdf is a folder: read recursively like any other)
        assert f"{name} (" in warning and kind in warning.split(name, 1)[1].split(")")[0]
    listing = _in_process(env, monkeypatch, "library", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    assert [r["file"] for r in json.loads(listing.stdout)["files"]] == ["estuary.pdf"]
    out = tmp_path / "reports"
    out.mkdir()  # -o names an existing folder (litdesk creates none on the user's behalf)
    rep = _in_process(
        env, monkeypatch, "report", "--all", "--questions", "Where was cadmium highest?",
        "-o", str(out),
    )  # fmt: skip
    assert rep.returncode == 0, rep.stderr
    assert Path(rep.stdout.strip()).is_file()


@pytest.mark.timeout(60)  # a blocking open of the FIFO would hang here
@pytest.mark.parametrize("name", ["fifo.pdf", "zero.pdf", "s.pdf", "/dev/zero", "/dev/null"])
def test_add_refuses_non_regular_paths(
    hostile: Path, tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process (the console script's app, Click's runner: a ``litdesk`` process
    costs ~1.6 s of CPU importing litdesk); the process's own answer is checked below."""
    from typer.testing import CliRunner

    from litdesk.faces.cli import app

    target = name if name.startswith("/") else str(hostile / name)
    for key in [k for k in os.environ if k.startswith("LITDESK_")]:
        monkeypatch.delenv(key)  # the process's environment: none of the host's settings
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir(exist_ok=True)
    done = CliRunner().invoke(app, ["library", "add", target, "--json"])
    assert done.exit_code == 2, (done.stdout, done.stderr, done.exception)
    assert json.loads(done.stdout)["code"] == "not_regular"
    assert not (tmp_path / "data" / "library" / "folders.json").exists()  # nothing stored


def test_the_litdesk_process_refuses_to_add_a_fifo(hostile: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    (tmp_path / "data").mkdir(exist_ok=True)
    done = _litdesk(env, "library", "add", str(hostile / "fifo.pdf"), "--json")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert json.loads(done.stdout)["code"] == "not_regular"
    assert not (tmp_path / "data" / "library" / "folders.json").exists()  # nothing stored


def test_pdf_readers_refuse_non_regular_files_without_blocking(hostile: Path) -> None:
    calls = [
        (file_sha256, hostile / "fifo.pdf"),
        (extract, hostile / "fifo.pdf"),
        (open_pdf, hostile / "fifo.pdf"),
        (file_sha256, hostile / "zero.pdf"),
        (extract, hostile / "zero.pdf"),
        (extract, hostile / "folder.pdf"),
    ]
    results: list[str] = []

    def run() -> None:
        for fn, path in calls:
            try:
                fn(path)
            except PdfExcluded as exc:
                results.append(exc.code)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "a PDF reader blocked on a non-regular file"
    assert results == ["not_regular"] * 5 + ["unreadable"] or results == ["not_regular"] * 6
    with pytest.raises(PdfExcluded) as info:
        extract(hostile / "s.pdf")
    assert info.value.code in {"not_regular", "unreadable"}


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    out: set[int] = set()
    frontier = {pid}
    while frontier:
        nxt = {c for c, p in parents.items() if p in frontier and c not in out}
        out |= nxt
        frontier = nxt
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _pool_workers(pid: int) -> set[int]:
    """The live index-pool workers under ``pid``: spawned ones, or ones forked by
    multiprocessing's fork server (not the fork server or the resource tracker themselves)."""
    out = set()
    for child in _children(pid):
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if "spawn_main" in _cmdline(child) or "multiprocessing.forkserver" in _cmdline(parent):
            out.add(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_library_index_leaves_no_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "many"
    # the light embedder: what is tested is the pool's workers after a kill, not the vectors
    env = _env(
        tmp_path, LITDESK_LIBRARY_DIRS=json.dumps([str(folder)]), LITDESK_EMBEDDER="wordllama"
    )
    (tmp_path / "data").mkdir()
    for round_ in range(3):  # 8 new PDFs each round: every kill lands mid-run
        numbered_pdfs(folder, "p{:02d}.pdf", 8, [TEXT] * 6, first=8 * round_)
        proc = _fork.popen(
            [sys.executable, "-m", "litdesk", "library", "index", "--json"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
        )  # fmt: skip
        workers: set[int] = set()
        deadline = time.time() + BOUND
        while time.time() < deadline and proc.poll() is None:
            if len(_pool_workers(proc.pid)) >= 2:  # the pool's two workers are up
                time.sleep(0.05 * round_)  # 0, 0.05, 0.1 s: a kill at start-up and mid-run
                workers = _children(proc.pid)
                break
            time.sleep(0.05)
        assert proc.poll() is None and workers, f"round {round_}: the index ended too early"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        gone = time.time() + 5
        while time.time() < gone and any(_alive(w) for w in workers):
            time.sleep(0.1)
        survivors = [w for w in workers if _alive(w)]
        for w in survivors:  # do not leave them to the next test
            os.kill(w, signal.SIGKILL)
        assert survivors == [], f"round {round_}: workers alive 5 s after kill -9"
    # the index stays consistent: a full run completes what the killed ones left (in this
    # process: what is checked is the store the killed ones left, not another kill)
    done = _in_process(env, monkeypatch, "library", "index", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report["indexed"]) + report["unchanged"] == 24 and report["excluded"] == []
    assert report["indexed"], "every kill came after its run had indexed all"
    listing = json.loads(_in_process(env, monkeypatch, "library", "list", "--json").stdout)
    assert all(r["indexed"] and r["chunks"] > 0 for r in listing["files"])


ORPHAN = """
import os, subprocess, sys
child = subprocess.Popen(
    [sys.executable, "-c", sys.argv[1], str(os.getpid())],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
print(child.pid, flush=True)
"""
WATCHED = """
import sys, time
import litdesk._workers as indexer
indexer.WATCHDOG_SECONDS = 0.1
time.sleep(0.5)  # the parent exits meanwhile: the watchdog alone must notice
indexer.watch_parent(int(sys.argv[1]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_parent_watchdog_ends_an_orphaned_worker_without_the_kernel_signal() -> None:
    middle = subprocess.run(
        [sys.executable, "-c", ORPHAN, WATCHED],
        check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    orphan = int(middle.stdout.strip())
    deadline = time.time() + 10
    while time.time() < deadline and _alive(orphan):
        time.sleep(0.1)
    alive = _alive(orphan)
    if alive:
        os.kill(orphan, signal.SIGKILL)
    assert not alive, "the watchdog did not end a worker whose parent is gone"
