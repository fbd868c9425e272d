"""The ``litdesk`` command: one Typer app; each area registers its commands."""

from __future__ import annotations

import typer

from litdesk import __version__

from . import (
    _dedup,
    _imports,
    _library,
    _query,
    _reading,
    _report,
    _runs,
    _search,
    _serve,
    _workspace,
)

app = typer.Typer(
    name="litdesk",
    help="A workbench for literature reviews: search, import, read, record evidence, ask.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"litdesk {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """litdesk — search, import, read, record evidence, ask."""


for _module in (_imports, _query, _search, _runs, _workspace, _reading, _library, _dedup, _report):
    _module.register(app)
_serve.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
