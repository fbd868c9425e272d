"""``litdesk serve``: the web workspace on a loopback address (team mode does not exist
yet, so any other address is refused)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

import typer

from litdesk._errors import RefusedError

from ._output import command, err_console

__all__ = ["check_loopback", "register"]


class NotLoopback(RefusedError):
    """``litdesk serve`` listens on loopback addresses only."""

    default_code = "not_loopback"


def check_loopback(host: str) -> str:
    """``host`` when it is a loopback IP address; refused otherwise (names included, since a
    name can resolve anywhere)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise NotLoopback(
            f"--host must be a loopback IP address such as 127.0.0.1, not {host[:80]!r}: "
            "team mode does not exist yet, so litdesk serve listens on this machine only"
        ) from None
    if not address.is_loopback:
        raise NotLoopback(
            f"refusing to listen on {host}: team mode does not exist yet, so litdesk serve "
            "listens on a loopback address (127.0.0.1) only"
        )
    return host


def register(app: typer.Typer) -> None:
    """Add ``litdesk serve`` to ``app``."""

    @app.command("serve")
    @command
    def serve(
        host: Annotated[str, typer.Option(help="Loopback address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8765,
        open_browser: Annotated[
            bool, typer.Option("--open", help="Open the workspace in the default browser.")
        ] = False,
        replay: Annotated[
            Path | None,
            typer.Option(help="Answer provider requests from this cassette folder (no network)."),
        ] = None,
    ) -> None:
        """The web workspace: search, saved papers, reader, Studies (http://127.0.0.1:8765)."""
        import threading
        import webbrowser

        import uvicorn

        from litdesk._settings import get_settings
        from litdesk.faces.web import create_app

        check_loopback(host)
        if replay is not None and not (replay / "index.json").is_file():
            raise NotLoopback(f"{replay} is not a cassette folder (no index.json)", code="replay")
        shown = f"[{host}]" if ":" in host else host
        address = f"http://{shown}:{port}"
        web = create_app(get_settings(), host=shown, port=port, replay=replay)
        err_console.print(
            f"litdesk workspace at {address} (Ctrl+C stops)", markup=False, highlight=False
        )
        if replay is not None:
            err_console.print(
                f"providers answered from the cassette {replay}", markup=False, highlight=False
            )
        if open_browser:
            threading.Timer(1.0, webbrowser.open, args=(address,)).start()
        uvicorn.run(web, host=host, port=port, log_level="warning", access_log=False)
