"""``litdesk user add|list|disable|enable|reset-password|link|unlink``: the team server's
accounts and their single sign-on identities, administered from the server's shell (the
store named by the settings). Passwords are read
at a hidden prompt (twice) or, for scripts, as one line from standard input
(``--password-stdin``); never from an option, which would land in the shell history."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from litdesk._errors import InputError

from .._words import when
from ._context import sync_app
from ._output import command, console, emit_json

__all__ = ["register"]

users = typer.Typer(
    help="Team accounts (litdesk serve --team): add, list, disable, reset, link SSO identities."
)

PasswordStdin = Annotated[
    bool,
    typer.Option("--password-stdin", help="Read the password as one line from standard input."),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        if not line:
            raise InputError("no password on standard input", code="no_password")
        return line.rstrip("\r\n")
    value: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return value


@users.command("add")
@command
def add(
    username: Annotated[str, typer.Argument(help="Lower-case name, 2 to 80 characters.")],
    password_stdin: PasswordStdin = False,
    as_json: Json = False,
) -> None:
    """Create an account (password: at least 12 characters, hashed with Argon2id)."""

    password = _password(password_stdin)
    with sync_app() as app:
        accounts = app.accounts
        view = accounts.add(username, password)
    if as_json:
        emit_json(view)
    else:
        console.print(f"account {view.username} created", markup=False, highlight=False)


@users.command("list")
@command
def list_(as_json: Json = False) -> None:
    """Every account, with whether it is disabled."""

    with sync_app() as app:
        accounts = app.accounts
        views = accounts.list()
        identities = accounts.identities()
    linked: dict[str, list[dict[str, str | None]]] = {}
    for i in identities:
        linked.setdefault(i.username, []).append(
            {"issuer": i.issuer, "subject": i.subject, "email": i.email, "linked_at": i.linked_at}
        )
    if as_json:
        emit_json([{**v.to_dict(), "identities": linked.get(v.username, [])} for v in views])
        return
    if not views:
        console.print("no accounts yet (litdesk user add NAME)", markup=False, highlight=False)
    for v in views:
        state = "disabled" if v.disabled else "active"
        console.print(f"{v.username}\t{state}\t{when(v.created_at)}", markup=False, highlight=False)
        for one in linked.get(v.username, []):
            console.print(
                f"  sso\t{one['issuer']}\t{one['subject']}", markup=False, highlight=False
            )


@users.command("disable")
@command
def disable(
    username: Annotated[str, typer.Argument(help="The account to disable.")],
    enable: Annotated[bool, typer.Option("--enable", help="Enable it again instead.")] = False,
    as_json: Json = False,
) -> None:
    """Disable an account (its sessions end at once), or enable it again with --enable."""

    with sync_app() as app:
        accounts = app.accounts
        view = accounts.set_disabled(username, not enable)
    if as_json:
        emit_json(view)
    else:
        word = "disabled" if view.disabled else "enabled"
        console.print(f"account {view.username} {word}", markup=False, highlight=False)


@users.command("reset-password")
@command
def reset_password(
    username: Annotated[str, typer.Argument(help="The account whose password is replaced.")],
    password_stdin: PasswordStdin = False,
    as_json: Json = False,
) -> None:
    """Set a new password; every session of the account ends."""

    password = _password(password_stdin)
    with sync_app() as app:
        accounts = app.accounts
        view = accounts.reset_password(username, password)
    if as_json:
        emit_json(view)
    else:
        console.print(f"password of {view.username} replaced", markup=False, highlight=False)


Subject = Annotated[
    str, typer.Option("--subject", help="The identity's subject ('sub') at the provider.")
]
Issuer = Annotated[
    str | None,
    typer.Option("--issuer", help="The provider's issuer URL (default: LITDESK_OIDC_ISSUER)."),
]


@users.command("link")
@command
def link(
    username: Annotated[str, typer.Argument(help="The account the identity signs in as.")],
    subject: Subject,
    issuer: Issuer = None,
    as_json: Json = False,
) -> None:
    """Let a single sign-on identity (issuer, subject) sign in as an account."""

    with sync_app() as app:
        accounts = app.accounts
        view = accounts.link(username, subject, issuer)
    if as_json:
        emit_json(view)
    else:
        console.print(
            f"{view.issuer} {view.subject} now signs in as {view.username}",
            markup=False,
            highlight=False,
        )


@users.command("unlink")
@command
def unlink(
    username: Annotated[str, typer.Argument(help="The account the identity is linked to.")],
    subject: Subject,
    issuer: Issuer = None,
    as_json: Json = False,
) -> None:
    """Remove a single sign-on identity from an account (its open sessions stay until they
    end or the account is disabled)."""

    with sync_app() as app:
        accounts = app.accounts
        view = accounts.unlink(username, subject, issuer)
    if as_json:
        emit_json(view)
    else:
        console.print(
            f"{view.issuer} {view.subject} no longer signs in as {view.username}",
            markup=False,
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add ``litdesk user …`` to ``app``."""
    app.add_typer(users, name="user")
