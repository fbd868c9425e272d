"""The ``litdesk`` command: one Typer app; each area registers its commands.

Start-up stays light: the command modules import only Typer, rich's console pieces and
litdesk's error types at import time; everything heavy is imported inside the command
that needs it. Library log lines (httpx, model clients, …) never reach stderr unless the
root option ``--verbose`` is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from typer.core import TyperGroup

from litdesk import __version__

from . import (
    _assist,
    _dedup,
    _demo,
    _edit,
    _evidence,
    _forms,
    _imports,
    _library,
    _pdf,
    _query,
    _reading,
    _report,
    _runs,
    _screen,
    _screen_team,
    _screening,
    _search,
    _serve,
    _strategy,
    _study_fulltext,
    _study_search,
    _users,
    _workspace,
    _zotero,
)
from ._lazy import defer_commands, write_commands


class _Group(TyperGroup):
    """A command group whose bare invocation prints its help on stdout (exit status 2),
    as the rich help did, with the plain formatter."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help())
            ctx.exit(2)
        return super().parse_args(ctx, args)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """Each command with its whole first paragraph of help, wrapped, never cut off."""
        rows: list[tuple[str, Command]] = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command))
        write_commands(formatter, rows)


app = typer.Typer(
    cls=_Group,
    name="litdesk",
    help="A workbench for literature reviews: search, import, read, record evidence, ask.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

if TYPE_CHECKING:
    import logging

    from typer._click import Command, HelpFormatter
    from typer._click.core import Context

_VERBOSE_FORMAT = "%(levelname)s %(name)s: %(message)s"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"litdesk {__version__}")
        raise typer.Exit(0)


def _logging(verbose: bool) -> logging.Handler | None:
    """Quiet: no log record is emitted while the command runs. Verbose: INFO and up to
    stderr (credentials stay redacted by the transport's filter). Returns the handler
    added, if any."""
    import logging
    import sys

    if not verbose:
        logging.disable(logging.CRITICAL)
        return None
    logging.disable(logging.NOTSET)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(_VERBOSE_FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    return handler


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Show library log lines (HTTP requests, …) on stderr."
    ),
    demo: bool = typer.Option(
        False,
        "--demo",
        help="Work in the offline demo workspace (its own folder, made on first use; "
        "litdesk demo reset restores it), not in your own.",
    ),
) -> None:
    """litdesk — search, import, read, record evidence, ask."""
    import logging

    from ._context import use_demo

    use_demo(demo)

    root = logging.getLogger()
    level = root.level
    handler = _logging(verbose)

    def _restore() -> None:  # the process (or a test runner) gets its logging back
        use_demo(False)
        logging.disable(logging.NOTSET)
        if handler is not None:
            root.removeHandler(handler)
        root.setLevel(level)

    ctx.call_on_close(_restore)


for _module in (_imports, _query, _search, _runs, _workspace, _reading, _library, _dedup, _report):
    _module.register(app)
_evidence.register(app)
_pdf.register(app)
_assist.register(app)
_strategy.register(app)
_serve.register(app)
_users.register(app)
_screen.register(app)
_screening.register(app)
_screen_team.register(app)
_zotero.register(app)
_forms.register(app)  # `litdesk study form`
_study_search.register(app)
_study_fulltext.register(app)
_edit.register(app)
_demo.register(app)


def _plain_help(typer_app: typer.Typer) -> None:
    """Help is plain text (Click's formatter) in every group: rendering it with rich costs
    more start-up time than the rest of the CLI (the 2x start-up budget)."""
    typer_app.rich_markup_mode = None
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            group.typer_instance.info.cls = _Group
            _plain_help(group.typer_instance)


_plain_help(app)
defer_commands(app, _Group)  # built when used: `litdesk --help` reads no signatures


def main() -> None:
    """Console-script entry point."""
    app()
