"""Every ``litdesk …`` command shown in the README's code blocks names real commands and options.

The README is the user's first contact; a renamed option there is a broken promise. Each command
line (continuations joined, comments and ``> file`` redirections dropped, ``[--opt]`` optional
parts taken as written) is parsed by the real command tree with ``--help`` added, so nothing runs.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk.faces.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _command_lines() -> list[tuple[int, str]]:
    lines = README.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str]] = []
    in_block = False
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(lines, start=1):
        if raw.lstrip().startswith("```"):
            in_block = not in_block
            pending = None
            continue
        if not in_block:
            continue
        text = raw.strip()
        if pending is not None:
            start, head = pending
            joined = head + " " + text
            if text.endswith("\\"):
                pending = (start, joined[:-1])
            else:
                found.append((start, joined))
                pending = None
            continue
        if not text.startswith("litdesk "):
            continue
        if text.endswith("\\"):
            pending = (number, text[:-1])
        else:
            found.append((number, text))
    return found


def _args(line: str) -> list[str]:
    tokens = shlex.split(line, comments=True)[1:]
    if ">" in tokens:
        tokens = tokens[: tokens.index(">")]
    out: list[str] = []
    for token in tokens:
        # "[--json]", "[-o", "report.html]", "[--undo N]": optional parts, as written
        out.append(re.sub(r"^\[|\]$", "", token))
    return [t for t in out if t]


COMMANDS = _command_lines()


def test_readme_has_commands() -> None:
    assert len(COMMANDS) >= 40


@pytest.mark.parametrize(("line", "command"), COMMANDS, ids=[str(n) for n, _ in COMMANDS])
def test_readme_command_parses(line: int, command: str) -> None:
    # ``--help`` is eager: the command line is parsed (unknown commands and options, options
    # missing their value fail here) and the help printed, nothing runs.
    result = CliRunner().invoke(app, [*_args(command), "--help"])
    assert result.exit_code == 0, f"README line {line}: {command!r}: {result.output}"
    assert "Usage:" in result.output
