"""The root command group builds its commands when they are used, not at start-up.

Typer turns every command into a Click command before it parses anything: it reads each
function's signature and evaluates its annotations (``Annotated[..., typer.Option(...)]``),
which is most of what ``litdesk --help`` costs beyond importing Typer and rich. The root
group here keeps the registrations and builds one command (or sub-group, with its own
commands) when it is called or its help is asked; ``litdesk --help`` lists the commands from
their help text alone, through stand-ins built from the same fields Typer uses.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from gettext import gettext as _
from typing import Any

import typer
from typer._click import Command, Context, HelpFormatter
from typer.core import MarkupMode, TyperCommand, TyperGroup
from typer.main import (
    get_command_from_info,
    get_command_name,
    get_group_from_info,
    solve_typer_info_defaults,
)
from typer.models import CommandInfo, TyperInfo

__all__ = ["defer_commands", "listing_help", "write_commands"]


def listing_help(command: Command) -> str:
    """What a command list says of ``command``: its ``short_help``, else the whole first
    paragraph of its help, whitespace collapsed. Click's own listing cuts that paragraph to
    the terminal's width and ends it with "..." (``get_short_help_str(limit)``); here the
    help formatter wraps it instead, so no help is ever cut off."""
    if command.short_help:
        text = inspect.cleandoc(command.short_help)
    else:
        text = (command.help or "").split("\n\n", 1)[0]
    words = text.split()
    if words and words[0] == "\b":  # Click's "no rewrap" marker
        words = words[1:]
    if command.deprecated:
        words.append(
            f"(DEPRECATED: {command.deprecated})"
            if isinstance(command.deprecated, str)
            else "(DEPRECATED)"
        )
    return " ".join(words)


def write_commands(formatter: HelpFormatter, rows: list[tuple[str, Command]]) -> None:
    """The "Commands" section of a group's help: each name with its whole listing help,
    wrapped to the formatter's width."""
    if rows:
        with formatter.section(_("Commands")):
            formatter.write_dl([(name, listing_help(command)) for name, command in rows])


class _Entry:
    """One registration: how to build its Click command, and a cheap stand-in that answers
    ``hidden`` and ``get_short_help_str`` as the built command would.

    The built command is kept here, not in one root group: Typer makes a new root group
    each time the app is called (``app()``, ``CliRunner().invoke(app, ...)``), and a
    process that calls it more than once (a notebook, a test suite, an embedding program)
    would otherwise read the same signatures again on every call."""

    def __init__(self, build: Callable[[], Command], stand_in: Command) -> None:
        self._build = build
        self.stand_in = stand_in
        self.built: Command | None = None

    def command(self) -> Command:
        """The built command, built on the first call."""
        built = self.built
        if built is None:
            built = self.built = self._build()
        return built


class _LazyCommands(MutableMapping[str, Command]):
    """A group's ``commands``: every name is known at once, each command built on first
    access and kept (by its :class:`_Entry`: for every later root group too)."""

    def __init__(self, entries: Mapping[str, _Entry]) -> None:
        self._entries = dict(entries)
        self._built: dict[str, Command] = {}

    def __getitem__(self, name: str) -> Command:
        built = self._built.get(name)
        if built is None:
            built = self._entries[name].command()
            self._built[name] = built
        return built

    def __setitem__(self, name: str, command: Command) -> None:
        self._built[name] = command
        self._entries.pop(name, None)

    def __delitem__(self, name: str) -> None:
        known = name in self._built or name in self._entries
        self._built.pop(name, None)
        self._entries.pop(name, None)
        if not known:
            raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        yield from self._entries
        yield from (name for name in self._built if name not in self._entries)

    def __len__(self) -> int:
        return len(set(self._entries) | set(self._built))

    def for_listing(self, name: str) -> Command | None:
        """The built command when there is one, else its stand-in (nothing is built)."""
        built = self._built.get(name)
        if built is not None:
            return built
        entry = self._entries.get(name)
        if entry is None:
            return None
        return entry.stand_in if entry.built is None else entry.built


def _command_entry(info: CommandInfo, *, short: bool, markup: MarkupMode) -> tuple[str, _Entry]:
    assert info.callback is not None, "a command has a callback"
    name = info.name or get_command_name(info.callback.__name__)
    text = inspect.getdoc(info.callback) if info.help is None else inspect.cleandoc(info.help)
    stand_in = (info.cls or TyperCommand)(
        name=name,
        help=text,
        short_help=info.short_help,
        hidden=info.hidden,
        deprecated=info.deprecated,
        rich_markup_mode=markup,
    )

    def build() -> Command:
        return get_command_from_info(info, pretty_exceptions_short=short, rich_markup_mode=markup)

    return name, _Entry(build, stand_in)


def _group_entry(
    info: TyperInfo, *, short: bool, markup: MarkupMode, suggest: bool
) -> tuple[str, _Entry]:
    solved = solve_typer_info_defaults(info)
    name = solved.name or ""
    stand_in = TyperGroup(
        name=name,
        help=solved.help,
        short_help=solved.short_help,
        hidden=solved.hidden,
        deprecated=solved.deprecated,
        rich_markup_mode=markup,
    )

    def build() -> Command:
        return get_group_from_info(
            info, pretty_exceptions_short=short, rich_markup_mode=markup, suggest_commands=suggest
        )

    return name, _Entry(build, stand_in)


def defer_commands(app: typer.Typer, group: type[TyperGroup]) -> None:
    """Move ``app``'s registered commands and sub-groups into a root group class (a
    subclass of ``group``) that builds each one when it is used; Typer's order is kept
    (commands, then groups). Call once, after every registration."""
    short = app.pretty_exceptions_short
    markup = app.rich_markup_mode
    suggest = app.suggest_commands
    entries: dict[str, _Entry] = {}
    for command in app.registered_commands:
        name, entry = _command_entry(command, short=short, markup=markup)
        entries[name] = entry
    for sub in app.registered_groups:
        if not solve_typer_info_defaults(sub).name:
            raise ValueError("every sub-group of the litdesk command has a name")
        name, entry = _group_entry(sub, short=short, markup=markup, suggest=suggest)
        entries[name] = entry
    app.registered_commands = []
    app.registered_groups = []

    class _Root(group):  # type: ignore[valid-type,misc]
        """The root group: commands built on first use (see the module's docstring)."""

        def __init__(self, **attrs: Any) -> None:
            super().__init__(**attrs)
            lazy = _LazyCommands(entries)
            lazy.update(attrs.get("commands") or {})  # anything registered afterwards
            self.commands = lazy

        def list_commands(self, ctx: Context) -> list[str]:
            return list(self.commands)  # Typer's reads every item (builds every command)

        def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
            commands = self.commands
            assert isinstance(commands, _LazyCommands)
            rows: list[tuple[str, Command]] = []
            for name in self.list_commands(ctx):
                command = commands.for_listing(name)
                if command is not None and not command.hidden:
                    rows.append((name, command))
            write_commands(formatter, rows)

    app.info.cls = _Root
