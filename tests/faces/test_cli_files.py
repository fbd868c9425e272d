"""Every command that writes ``-o`` against every failure form, with and without --force
(issue 13, class 6); every input position against FIFOs, devices and folders (class 5);
settings errors through the real CLI process (class 9)."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests import _fork
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.faces.cli import app
from litdesk.services.search import make_definition, plan_search

CROSSREF = json.dumps(
    {
        "status": "ok",
        "message-type": "work-list",
        "message": {
            "total-results": 2,
            "items": [
                {"DOI": "10.1000/xyz123", "title": ["Sepsis one"], "type": "journal-article"},
                {"DOI": "10.1000/abc456", "title": ["Sepsis two"], "type": "journal-article"},
            ],
        },
    }
).encode()
RIS = (
    "TY  - JOUR\nTI  - Deep learning for sepsis\nDO  - 10.1000/xyz123\nPY  - 2021\nER  - \n"
    "TY  - JOUR\nTI  - Fluids in septic shock\nDO  - 10.1000/other9\nPY  - 2019\nER  - \n"
)


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A data dir with a Study, a saved run attached to it and a frozen-runs file."""
    root = tmp_path_factory.mktemp("world")
    with pytest.MonkeyPatch.context() as mp:
        for key in list(os.environ):
            if key.startswith("LITDESK_") and key not in {"LITDESK_FIXTURES"}:
                mp.delenv(key, raising=False)
        mp.setenv("LITDESK_DATA_DIR", str(root / "data"))
        get_settings.cache_clear()
        cas = root / "cas"
        req = plan_search(make_definition("sepsis", providers=["crossref"])).lanes[0].request
        CassetteRecorder(cas).record(
            Exchange(
                provider="crossref",
                method=req.method,
                url=sanitised_url(req),
                request_body=None,
                status=200,
                headers={},
                body=CROSSREF,
                received_at=datetime(2026, 11, 30, tzinfo=UTC),
            ),
            Redactor(),
        )
        assert _invoke("study", "new", "Sepsis")[0] == 0
        assert _invoke("paper", "save", "--doi", "10.1000/xyz123", "--title", "Sepsis one")[0] == 0
        code, out = _invoke(
            "search",
            "sepsis",
            "-p",
            "crossref",
            "--replay",
            str(cas),
            "--json",
            "--study",
            "Sepsis",
        )
        assert code == 0, out
        run_id = json.JSONDecoder().raw_decode(out[out.index("{") :])[0]["id"]
        ris = root / "refs.ris"
        ris.write_text(RIS)
        frozen = root / "frozen.json"
        assert _invoke("runs", "freeze", run_id, "-o", str(frozen))[0] == 0
        yield {"run": run_id, "ris": str(ris), "frozen": str(frozen)}
    get_settings.cache_clear()


#: Every command that writes an output file: its arguments around OUT, and whether it
#: takes --force (eval never overwrites).
WRITERS: dict[str, tuple[Callable[[dict[str, str], str], list[str]], bool]] = {
    "convert": (lambda w, o: ["convert", w["ris"], "--to", "csv", "-o", o], True),
    "dedup": (lambda w, o: ["dedup", w["ris"], "-o", o], True),
    "runs export": (lambda w, o: ["runs", "export", w["run"], "--to", "ris", "-o", o], True),
    "runs freeze": (lambda w, o: ["runs", "freeze", w["run"], "-o", o], True),
    "report prisma": (lambda w, o: ["report", "prisma", "--study", "Sepsis", "-o", o], True),
    "eval": (lambda w, o: ["eval", "--runs", w["frozen"], "-o", o], False),
    "study export": (lambda w, o: ["study", "export", "Sepsis", "-o", o], True),
    "evidence export": (lambda w, o: ["evidence", "export", "-o", o], True),
    "notebook export": (lambda w, o: ["notebook", "export", "-o", o], True),
}


def _args(world: dict[str, str], name: str, out: Path, force: bool) -> list[str]:
    build, takes_force = WRITERS[name]
    return build(world, str(out)) + (["--force"] if force and takes_force else [])


def _special(kind: str, folder: Path) -> Path:
    path = folder / f"out-{kind}.x"
    if kind == "dir":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private null device
        except PermissionError:
            pytest.skip("mknod needs root here")
    elif kind == "missing":
        path = folder / "missing" / "dir" / "out.x"
    return path


@pytest.mark.timeout(60)
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("kind", ["dir", "missing", "fifo", "device"])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_bad_output_paths_refused(
    world: dict[str, str], tmp_path: Path, name: str, kind: str, force: bool
) -> None:
    path = _special(kind, tmp_path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK) if kind == "fifo" else None
    try:
        before = os.lstat(path) if kind != "missing" else None
        code, out = _invoke(*_args(world, name, path, force))
    finally:
        if reader is not None:
            os.close(reader)
    assert code == 2, out
    assert "Traceback" not in out and str(path) in out.replace("\n", "")
    if before is None:
        assert not (tmp_path / "missing").exists()  # no folder created
    else:
        after = os.lstat(path)
        assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
        assert after.st_ino == before.st_ino
    if kind == "dir":
        assert list(path.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_regular_outputs_written_and_replaced_only_with_force(
    world: dict[str, str], tmp_path: Path, name: str
) -> None:
    out = tmp_path / "out.file"
    code, text = _invoke(*_args(world, name, out, False))
    assert code == 0, text
    first = out.read_bytes()
    assert first
    code, text = _invoke(*_args(world, name, out, False))
    assert code == 2 and "exists" in text and out.read_bytes() == first
    if WRITERS[name][1]:
        out.write_bytes(b"old")
        code, text = _invoke(*_args(world, name, out, True))
        assert code == 0, text
        assert out.read_bytes() != b"old"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


#: Every command that reads a file the user names, with the file in place of FILE.
READERS: dict[str, Callable[[dict[str, str], str], list[str]]] = {
    "import": lambda w, f: ["import", f],
    "convert": lambda w, f: ["convert", f, "--to", "ris"],
    "dedup": lambda w, f: ["dedup", f],
    "study import": lambda w, f: ["study", "import", f],
    "dedup --decisions": lambda w, f: ["dedup", w["ris"], "--decisions", f],
    "eval --runs": lambda w, f: ["eval", "--runs", f],
    "eval --judgments": lambda w, f: ["eval", "--runs", w["frozen"], "--judgments", f],
    "fulltext --file": lambda w, f: ["fulltext", "--file", f],
    "evidence --fulltext-xml": lambda w, f: [
        "evidence",
        "add",
        "DOI:10.1000/xyz123",
        "--finding",
        "x",
        "--passage",
        "x",
        "--fulltext-xml",
        f,
        "--block",
        "p1",
    ],  # fmt: skip
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dir", "device"])
@pytest.mark.parametrize("name", sorted(READERS))
def test_inputs_other_than_regular_files_refused(
    world: dict[str, str], tmp_path: Path, name: str, kind: str
) -> None:
    """No writer ever opens the FIFO: a blocking open would hang until the timeout."""
    if kind == "dev-zero":
        path = Path("/dev/zero")
    elif kind == "fifo":
        path = tmp_path / "refs.ris"
        os.mkfifo(path)
    else:
        path = _special(kind, tmp_path)
    code, out = _invoke(*READERS[name](world, str(path)))
    assert code == 2, out
    assert "Traceback" not in out and "not a regular file" in out.replace("\n", " ")


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("LITDESK_HTTP_READ_TIMEOUT", "abc", "a valid number"),
        ("LITDESK_HTTP_READ_TIMEOUT", "0", "greater than 0"),
        ("LITDESK_WEB_PORT", "99999", "less than or equal to 65535"),
        ("LITDESK_LIBRARY_DIRS", "not json", "valid JSON"),
        ("LITDESK_THINKING", "extreme", "match pattern"),
    ],
)
def test_settings_errors_are_config_errors(
    tmp_path: Path, variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process (the console script's app, Click's runner: a ``litdesk`` process
    costs ~1.6 s of CPU importing litdesk); the process's own answer is checked by the
    .env test below."""
    for key in [k for k in os.environ if k.startswith("LITDESK_")]:
        monkeypatch.delenv(key)  # the process's environment: none of the host's settings
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(variable, value)
    result = CliRunner().invoke(app, ["runs", "list"])
    stderr = result.stderr
    assert result.exit_code == 6, (stderr, result.exception)
    assert "Traceback" not in stderr and "pydantic" not in stderr
    assert variable in stderr and expected in stderr
    if len(value) > 3:
        assert value not in stderr.replace(variable, "")  # the value is not echoed


def test_settings_error_from_a_dotenv_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LITDESK_HTTP_CONNECT_TIMEOUT=soon\n")
    proc = _fork.run(
        [sys.executable, "-m", "litdesk", "study", "list"],
        env={k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
        | {"LITDESK_DATA_DIR": str(tmp_path / "d")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 6 and "LITDESK_HTTP_CONNECT_TIMEOUT" in proc.stderr, proc.stderr


@pytest.mark.parametrize("value", ["bogus", "READ", "none", ""])
def test_unknown_reading_status_refused_with_the_valid_ones(
    world: dict[str, str], value: str
) -> None:
    code, out = _invoke("paper", "list", "--status", value)
    assert code == 2, out
    assert "to-read, reading, read" in out
    code, out = _invoke("paper", "list", "--status", "read", "--json")
    assert code == 0 and json.loads(out) == []
