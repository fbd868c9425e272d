"""Every command's ``--help`` at 80 columns says everything it has to say.

Click's command lists cut each command's help to the terminal's width and end it with "..."
(``get_short_help_str(limit)``); litdesk's groups list each command's whole first paragraph,
wrapped. Here every command and group of the tree is asked for its help at ``COLUMNS=80``:
no line is wider than 80, no line ends cut off ("..." / "…" other than Click's ``ARGS...``
usage notation), each sub-command's listing holds its whole first paragraph, and each
option's and argument's help text appears whole (wrapping aside).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from litdesk.faces.cli import app

WIDTH = 80


def _tree() -> Iterator[tuple[list[str], object]]:
    root = get_command(app)

    def walk(command: object, path: list[str]) -> Iterator[tuple[list[str], object]]:
        yield path, command
        list_commands = getattr(command, "list_commands", None)
        if list_commands is None:
            return
        for name in list_commands(None):
            sub = command.get_command(None, name)  # type: ignore[attr-defined]
            if sub is not None and not sub.hidden:
                yield from walk(sub, [*path, name])

    yield from walk(root, [])


TREE = list(_tree())


def _flat(text: str) -> str:
    """Text with every white space removed: wrapping (also at a hyphen) changes nothing."""
    return re.sub(r"\s+", "", text)


def _first_paragraph(command: object) -> str:
    short = getattr(command, "short_help", None)
    if short:
        return str(short)
    return str(getattr(command, "help", None) or "").split("\n\n", 1)[0].replace("\b", "")


def _help(path: list[str]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, (path, result.output)
    return result.output


def test_the_tree_is_walked() -> None:
    # the root, its groups and their commands: far more than the root's own list
    assert len(TREE) > 80
    assert any(path == ["study", "add-search"] for path, _ in TREE)


@pytest.mark.parametrize(("path", "command"), TREE, ids=[" ".join(p) or "litdesk" for p, _ in TREE])
def test_help_is_whole_at_80_columns(path: list[str], command: object) -> None:
    text = _help(path)
    flat = _flat(text)
    for line in text.splitlines():
        assert len(line) <= WIDTH, f"{path}: wider than {WIDTH}: {line!r}"
        stripped = line.rstrip()
        if stripped.startswith("Usage:"):
            continue  # "COMMAND [ARGS]..." / "FILES...": Click's notation for many values
        assert not stripped.endswith(("...", "…")), f"{path}: cut off: {line!r}"
    for param in getattr(command, "params", []):
        words = getattr(param, "help", None)
        if words and not getattr(param, "hidden", False):
            assert _flat(words) in flat, f"{path}: {param.name}'s help is not whole: {words!r}"
    list_commands = getattr(command, "list_commands", None)
    if list_commands is not None:
        for name in list_commands(None):
            sub = command.get_command(None, name)  # type: ignore[attr-defined]
            if sub is None or sub.hidden:
                continue
            listed = _first_paragraph(sub)
            assert listed.strip(), f"{path} {name}: no help to list"
            assert _flat(listed) in flat, f"{path}: {name}'s help is cut in the list: {listed!r}"
