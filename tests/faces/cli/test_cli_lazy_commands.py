"""The root group builds a command when it is used and keeps it for every later call of the
app in the process (Typer makes a new root group per call: ``app()``, ``CliRunner.invoke``)."""

from __future__ import annotations

import typer
from typer._click import Context

from litdesk.faces.cli import app


def test_a_built_command_is_kept_across_calls_of_the_app() -> None:
    first, second = typer.main.get_command(app), typer.main.get_command(app)
    assert first is not second  # a new root group per call
    assert isinstance(first, typer.core.TyperGroup) and isinstance(second, typer.core.TyperGroup)
    study = first.get_command(Context(first), "study")
    assert study is not None and study.name == "study"
    assert second.get_command(Context(second), "study") is study  # not built again
    assert first.get_command(Context(first), "no-such-command") is None
