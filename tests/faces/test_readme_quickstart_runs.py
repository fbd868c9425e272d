"""The README's quick start ("Your first review in ten minutes") on the command line: every
``litdesk …`` command of its code blocks is RUN, in the README's order, on a demo workspace of
its own — not only parsed (``test_readme_commands`` parses every page's commands).

A newcomer copies these lines one after the other; each must succeed and do what the text
around it says. The only substitutions are the ones the README itself tells the reader to
make: the demo export's path is the one ``litdesk demo path`` prints, and ``RECORD_KEY`` is
the key ``screen next`` printed. ``litdesk serve --demo`` is not run here (it does not return;
the browser walk of the same quick start serves it); ``> file`` redirections write the output
to that file.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from tests.faces.test_readme_commands import README, _args, _command_lines
from typer.testing import CliRunner

from litdesk.faces.cli import app

DEMO_EXPORT_AS_WRITTEN = "~/.local/share/litdesk-demo/files/demo-export.ris"


def _quickstart_commands() -> list[tuple[str, str]]:
    """(where, command) of the quick start's section only, in order."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index("## Your first review in ten minutes") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("## ")) + 1
    return [(w, c) for w, c in _command_lines(README) if start <= int(w.rsplit(":", 1)[1]) < end]


def test_the_quick_start_has_its_commands() -> None:
    commands = [c for _, c in _quickstart_commands()]
    assert len(commands) >= 20
    assert commands[0].startswith("litdesk serve --demo")
    assert any("RECORD_KEY" in c for c in commands)
    assert any(DEMO_EXPORT_AS_WRITTEN in c for c in commands)


def test_every_quick_start_command_runs_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LITDESK_DEMO_DIR", str(tmp_path / "demo"))
    monkeypatch.setenv("LITDESK_JOBS_WORKER_SLOTS", "0")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    export: str | None = None
    record_key: str | None = None
    outputs: dict[str, str] = {}
    ran = 0
    for where, command in _quickstart_commands():
        args = _args(command)
        if args[:1] == ["serve"]:
            continue
        if DEMO_EXPORT_AS_WRITTEN in args:
            assert export is not None, f"{where}: the README names the export before `demo path`"
            args = [export if a == DEMO_EXPORT_AS_WRITTEN else a for a in args]
        if "RECORD_KEY" in args:
            assert record_key is not None, f"{where}: RECORD_KEY before `screen next`"
            args = [record_key if a == "RECORD_KEY" else a for a in args]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, f"{where}: {command!r} -> {result.exit_code}\n{result.output}"
        ran += 1
        tail = shlex_redirect(command)
        if tail is not None:
            (tmp_path / tail).write_text(result.stdout, encoding="utf-8")
        outputs[command] = result.output
        if args[:2] == ["demo", "path"]:
            found = re.search(r"^Demo export:\s+(\S+)$", result.output, re.MULTILINE)
            assert found, result.output
            export = found.group(1)
        if args[1:3] == ["screen", "next"]:
            found = re.search(r"^record (\S+)$", result.output, re.MULTILINE)
            assert found, f"{where}: `screen next` printed no record key:\n{result.output}"
            record_key = found.group(1)
    assert ran >= 19
    text = " ".join(README.read_text(encoding="utf-8").split())
    # step 4: "36 RIS records, 12 of them already in the Study"
    assert "36 RIS records, 12 of them already in the Study" in text
    (imported,) = [o for c, o in outputs.items() if c.startswith("litdesk --demo import ")]
    assert "Saved 36 records" in imported and "(24 new papers)" in imported, imported
    # step 6: the decision on the key `screen next` named
    (decided,) = [o for c, o in outputs.items() if " screen decide " in c]
    assert f"include: {record_key} at title_abstract" in decided.casefold()
    # step 8: the passage is verbatim, so the evidence is recorded and checked
    (evidence,) = [o for c, o in outputs.items() if " evidence add " in c]
    assert evidence.rstrip().endswith("(ok)"), evidence
    # steps 9 and 10: the files the README names are written and are what they say
    assert (tmp_path / "prisma.svg").read_text(encoding="utf-8").startswith("<svg ")
    with zipfile.ZipFile(tmp_path / "knee-oa.zip") as archive:
        assert archive.namelist()
    assert (tmp_path / "evidence.csv").read_text(encoding="utf-8").count("\n") >= 8  # 6 + ours


def shlex_redirect(command: str) -> str | None:
    """The file a ``> file`` redirection of the command line names, if any."""
    found = re.search(r"\s>\s*(\S+)\s*$", command)
    return found.group(1) if found else None


def test_the_readme_says_how_many_processes_make_test_uses() -> None:
    """The README's ``make test`` line names the Makefile's default ``TEST_WORKERS``."""
    makefile = (README.parent / "Makefile").read_text(encoding="utf-8")
    (default,) = re.findall(r"^TEST_WORKERS \?= (\d+)$", makefile, re.MULTILINE)
    (line,) = [
        x for x in README.read_text(encoding="utf-8").splitlines() if x.startswith("make test ")
    ]
    said = re.search(r"\((\d+) processes", line)
    assert said and said.group(1) == default, (
        f"README: {line!r}; Makefile: TEST_WORKERS ?= {default}"
    )


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_names_the_address_it_serves() -> None:
    """``make run`` (the README's first command) names litdesk's default address, and no
    address when ARGS moves it (``ARGS="--port 8838"`` said 8765 before litdesk said 8838)."""

    def echoed(*args: str) -> str:
        out = subprocess.run(
            ["make", "-n", "run", *args],
            check=True,
            cwd=README.parent,
            capture_output=True,
            text=True,
        )
        (line,) = [x for x in out.stdout.splitlines() if "Opening the demo workspace" in x]
        return line

    assert "at http://127.0.0.1:8765" in echoed()
    assert "8765" not in echoed("ARGS=--port 8838")
    assert "8765" not in echoed("ARGS=--host=::1")
