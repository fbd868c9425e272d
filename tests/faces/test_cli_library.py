"""``litdesk library add|list|index|remove`` and ``litdesk ask`` through the real CLI app."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import _fork
from tests._text_pdfs import numbered_pdfs, write_pdf
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli._app import app

TEXT = (
    "Sediment cores were taken at twelve stations along the estuary. "
    "Cadmium concentrations were highest near the harbour outflow. " * 10
)


def _pdf(path: Path, text: str) -> None:
    write_pdf(path, [text])


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for key in [k for k in __import__("os").environ if k.startswith("LITDESK_")]:
        if key not in {"LITDESK_FIXTURES", "LITDESK_LIBRARY_INDEX_WORKERS"}:  # conftest's
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    folder = tmp_path / "pdfs"
    folder.mkdir()
    _pdf(folder / "estuary.pdf", TEXT)
    _pdf(folder / "other.pdf", "Wheat plants under heat stress lost yield. " * 20)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nbroken")
    yield folder
    get_settings.cache_clear()


@pytest.fixture(params=["sqlite", "postgres"])
def env_both(request: pytest.FixtureRequest, env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``env`` with its store on SQLite, then on PostgreSQL (a fresh schema)."""
    if request.param == "postgres":
        monkeypatch.setenv("LITDESK_DATABASE_URL", request.getfixturevalue("pg_schema"))
        get_settings.cache_clear()
    return env


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_add_index_list_ask_remove(env_both: Path) -> None:
    code, out, _ = _run("library", "add", str(env_both), "--json")
    assert code == 0 and json.loads(out) == {"path": str(env_both.resolve()), "added": True}
    code, out, _ = _run("library", "index", "--json")
    assert code == 0
    report = json.loads(out)
    assert sorted(report["indexed"]) == ["estuary.pdf", "other.pdf"]
    assert (
        report["excluded"][0]["file"] == "broken.pdf" and report["excluded"][0]["code"] == "broken"
    )
    code, out, _ = _run("library", "index", "--json")
    assert json.loads(out)["unchanged"] == 3 and json.loads(out)["indexed"] == []
    code, out, _ = _run("library", "list", "--json")
    rows = {r["file"]: r for r in json.loads(out)["files"]}
    assert rows["estuary.pdf"]["pages"] == 1 and rows["estuary.pdf"]["text_layer"] is True
    assert rows["broken.pdf"]["excluded_code"] == "broken"
    code, out, _ = _run(
        "ask", "Where was cadmium highest?", "--paper", "estuary.pdf", "--top-k", "2", "--json"
    )
    assert code == 0
    answer = json.loads(out)
    assert answer["grounded"] is True
    assert answer["citations"][0]["file"] == "estuary.pdf" and answer["citations"][0]["page"] == 1
    assert set(answer["citations"][0]) >= {"label", "file", "page", "text"}
    assert isinstance(answer["warnings"], list)
    code, out, _ = _run("ask", "cadmium")
    assert code == 0 and "[1]" in out and "estuary.pdf" in out
    code, out, _ = _run("library", "remove", str(env_both), "--json")
    assert code == 0 and json.loads(out)["removed"] is True


def test_errors_exit_codes(env: Path) -> None:
    _run("library", "add", str(env))
    code, _, err = _run("ask", "x", "--paper", "missing.pdf")
    assert code == 4 and "missing.pdf" in err and "estuary.pdf" in err
    code, _, _ = _run("ask", "x", "--top-k", "50")
    assert code == 2
    code, _, _ = _run("ask", "x", "--all", "--paper", "estuary.pdf")
    assert code == 2
    code, _, _ = _run("library", "add", str(env / "nope"))
    assert code == 2
    code, out, _ = _run("library", "remove", str(env / "nope"), "--json")
    assert code == 4 and json.loads(out)["code"] == "no_such_source"


def test_human_list_and_index(env_both: Path) -> None:
    _run("library", "add", str(env_both))
    code, out, _ = _run("library", "index")
    assert code == 0 and "2 indexed" in out and "excluded: broken.pdf: broken" in out
    code, out, _ = _run("library", "list")
    assert code == 0 and "estuary.pdf" in out


_AS_IN_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'litdesk'; runpy.run_module('litdesk', run_name='__main__', alter_sys=True)"
)


def test_ctrl_c_stops_index_cleanly_and_resumes(
    env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    # enough files that the index is still running when the first entry is seen, also on a
    # loaded machine (the workers start slowly there, then the small files go quickly)
    numbered_pdfs(env, "many{:03d}.pdf", 120, [TEXT * 3])  # 4.3 s of CPU laid out one by one
    # ``python -m litdesk library index`` with SIGINT as in a terminal: a pytest started in
    # the background of a non-interactive shell (``pytest … &``) ignores SIGINT, a child
    # inherits that (Python then installs no handler) and the index ran to its end, exit 0
    cmd = [sys.executable, "-c", _AS_IN_A_TERMINAL, "library", "index"]
    # the light embedder: what is tested is the interrupt and the resume, not the vectors
    envvars = dict(
        os.environ,
        LITDESK_LIBRARY_DIRS=json.dumps([str(env)]),
        LITDESK_EMBEDDER="wordllama",
        LITDESK_LIBRARY_INDEX_WORKERS="2",  # the reader processes, as in production
    )
    # forked from the tests' warmed interpreter (tests/_fork.py): a real process that the
    # SIGINT reaches, with its own reader processes; a fresh interpreter's imports are not
    # what is checked
    proc = _fork.popen(cmd, env=envvars, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = tmp_path / "data" / "litdesk.sqlite3"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    if conn.execute("select count(*) from library_entries").fetchone()[0] >= 1:
                        break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in err and "Traceback" not in err
    # the resume and the listing in this process, with the interrupted run's settings
    # (what is checked is the store the interrupted process left)
    for key in ("LITDESK_LIBRARY_DIRS", "LITDESK_EMBEDDER", "LITDESK_LIBRARY_INDEX_WORKERS"):
        monkeypatch.setenv(key, envvars[key])
    get_settings.cache_clear()
    code, out, err = _run("library", "index", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["indexed"], "the first run was interrupted before the end"
    code, out, err = _run("library", "list", "--json")
    assert code == 0, err
    rows = json.loads(out)["files"]
    assert len(rows) == 123
    assert sum(r["indexed"] for r in rows) == 122  # all but broken.pdf


def test_ask_with_a_model_counts_its_calls_and_exits_3_beyond_the_allowance(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests._model_servers import Scripted, model_server

    with model_server("openai") as server:
        server.respond_with(
            lambda body: Scripted(
                "Where was cadmium highest?"
                if "Translate the user's question" in json.dumps(body)
                else "Cadmium was highest near the harbour outflow [1]."
            )
        )
        monkeypatch.setenv("LITDESK_LLM_BACKEND", "openai")
        monkeypatch.setenv("LITDESK_CHAT_MODEL", "scripted-model")
        monkeypatch.setenv("LITDESK_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("LITDESK_CHAT_OWNER_DAILY_REQUESTS", "3")
        get_settings.cache_clear()
        _run("library", "add", str(env))
        code, out, err = _run("ask", "Where was cadmium highest?", "--paper", "estuary.pdf")
        assert code == 0, err
        assert "harbour outflow [1]" in out and len(server.requests) == 2
        code, out, err = _run("ask", "Where was cadmium highest?", "--paper", "estuary.pdf")
        assert code == 3, (out, err)  # a RefusedError: the variant was call 3, the answer 4
        assert "allowance of 3 model calls" in err and "not answered" in err
        assert len(server.requests) == 3
