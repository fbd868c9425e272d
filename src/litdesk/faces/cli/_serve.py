"""``litdesk serve``: the web workspace on a loopback address for one user, or with
``--team`` a team server on PostgreSQL (accounts, sessions, Study roles) on any address,
with ``--workers N`` processes sharing the one database."""

from __future__ import annotations

import ipaddress
import logging
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import RefusedError

from ._context import demo_on, demo_workspace
from ._output import command, err_console

if TYPE_CHECKING:
    from fastapi import FastAPI

    from litdesk._settings import Settings

__all__ = ["check_loopback", "proxy_options", "register", "team_app"]


class NotLoopback(RefusedError):
    """``litdesk serve`` listens on loopback addresses only (``--team`` aside)."""

    default_code = "not_loopback"


def check_loopback(host: str) -> str:
    """``host`` when it is a loopback IP address; refused otherwise (names included, since a
    name can resolve anywhere)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise NotLoopback(
            f"--host must be a loopback IP address such as 127.0.0.1, not {host[:80]!r}: "
            "without --team (accounts and sign-in), litdesk serve listens on this machine only"
        ) from None
    if not address.is_loopback:
        raise NotLoopback(
            f"refusing to listen on {host}: without --team (accounts and sign-in), litdesk "
            "serve listens on a loopback address (127.0.0.1) only"
        )
    return host


def _access_logging() -> None:
    """The team server's JSON access lines (``litdesk.access``) go to standard error."""
    logger = logging.getLogger("litdesk.access")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's forwarded-header options: ``X-Forwarded-For``/``-Proto`` are read only from
    the configured proxies (``LITDESK_FORWARDED_ALLOW_IPS``); with none configured they are
    never read (a direct client on loopback could otherwise pick its throttled address)."""
    allowed = ",".join(a.strip() for a in settings.forwarded_allow_ips.split(",") if a.strip())
    if not allowed:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": allowed}


def team_app() -> FastAPI:
    """The team app of one worker process (``uvicorn --factory``): host, port and the replay
    folder come from the settings (``LITDESK_WEB_HOST``/``_WEB_PORT``/``_SERVE_REPLAY``)."""
    from litdesk._settings import get_settings
    from litdesk.faces.web import create_app

    settings = get_settings()
    _access_logging()
    host = settings.web_host
    shown = f"[{host}]" if ":" in host else host
    return create_app(
        settings, host=shown, port=settings.web_port, replay=settings.serve_replay, team=True
    )


def _demo_settings(settings: Settings, *, team: bool, replay: Path | None) -> Settings:
    """The demo workspace's settings, the workspace made first when it does not exist."""
    from litdesk.services.demo import demo_place, warm_sample

    if team or replay is not None:
        raise NotLoopback(
            "--demo is the offline demo workspace for one person: no --team or --replay",
            code="demo_options",
        )
    demo = demo_workspace(settings)
    place = demo_place(settings)
    err_console.print(
        f"Demo workspace: {place.directory} (litdesk demo reset restores it; "
        f"your own workspace is untouched). Demo export to import: {place.export}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    warm_sample()
    return demo


def register(app: typer.Typer) -> None:
    """Add ``litdesk serve`` to ``app``."""

    @app.command("serve")
    @command
    def serve(
        host: Annotated[
            str, typer.Option(help="Address to listen on (loopback only without --team).")
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8765,
        open_browser: Annotated[
            bool, typer.Option("--open", help="Open the workspace in the default browser.")
        ] = False,
        replay: Annotated[
            Path | None,
            typer.Option(help="Answer provider requests from this cassette folder (no network)."),
        ] = None,
        team: Annotated[
            bool,
            typer.Option(
                "--team",
                help="Team server: PostgreSQL, accounts (litdesk user add), sign-in, Study "
                "roles, /healthz and /readyz, JSON access logs.",
            ),
        ] = False,
        workers: Annotated[
            int,
            typer.Option(min=1, max=64, help="Server processes (--team only; one database)."),
        ] = 1,
        demo: Annotated[
            bool,
            typer.Option(
                "--demo",
                help="The offline demo workspace (its own folder, made on first use; "
                "litdesk demo reset restores it). Your own workspace is untouched.",
            ),
        ] = False,
    ) -> None:
        """The web workspace: search, saved papers, reader, Studies (http://127.0.0.1:8765)."""
        import os
        import threading
        import webbrowser

        import uvicorn

        from litdesk._settings import get_settings

        if not team:
            check_loopback(host)
            if workers != 1:
                raise NotLoopback("--workers needs --team (one database for every process)")
        if replay is not None and not (replay / "index.json").is_file():
            raise NotLoopback(f"{replay} is not a cassette folder (no index.json)", code="replay")
        shown = f"[{host}]" if ":" in host else host
        address = f"http://{shown}:{port}"
        settings = get_settings()
        demo = demo or demo_on()  # litdesk --demo serve too
        if demo:
            settings = _demo_settings(settings, team=team, replay=replay)
        if team:
            from litdesk.services.accounts import prepare_team_store

            state = prepare_team_store(settings)  # PostgreSQL only; migrations run once here
            err_console.print(
                f"litdesk team server at {address} ({workers} worker"
                f"{'' if workers == 1 else 's'}; schema {state.revision}; Ctrl+C stops)",
                markup=False,
                highlight=False,
            )
            if settings.team_public_origin:
                err_console.print(
                    f"public origin {settings.team_public_origin}", markup=False, highlight=False
                )
            elif not host.startswith("127.") and host not in ("::1", "localhost"):
                err_console.print(
                    f"writes are accepted from {address} only: set LITDESK_TEAM_PUBLIC_ORIGIN "
                    "to the address users open (the reverse proxy's https:// origin)",
                    markup=False,
                    highlight=False,
                )
            # the worker processes read their address from the settings (environment)
            os.environ["LITDESK_WEB_HOST"] = host
            os.environ["LITDESK_WEB_PORT"] = str(port)
            if replay is not None:
                os.environ["LITDESK_SERVE_REPLAY"] = str(replay.resolve())
            get_settings.cache_clear()
            from ._serve_fork import forked_workers

            # several workers: forked with the web face imported, not spawned
            with forked_workers() if workers > 1 else nullcontext(False):
                uvicorn.run(
                    "litdesk.faces.cli._serve:team_app",
                    factory=True,
                    host=host,
                    port=port,
                    workers=workers,
                    log_level="warning",
                    access_log=False,
                    **proxy_options(settings),
                )
            return
        # imported here: a team server's workers build their app themselves (``team_app``);
        # its supervisor imports the web face only to fork them with it (``_serve_fork``)
        from litdesk.faces.web import create_app

        web = create_app(settings, host=shown, port=port, replay=replay)
        what = "litdesk demo workspace" if demo else "litdesk workspace"
        err_console.print(f"{what} at {address} (Ctrl+C stops)", markup=False, highlight=False)
        if replay is not None:
            err_console.print(
                f"providers answered from the cassette {replay}", markup=False, highlight=False
            )
        if open_browser:
            threading.Timer(1.0, webbrowser.open, args=(address,)).start()
        uvicorn.run(web, host=host, port=port, log_level="warning", access_log=False)
