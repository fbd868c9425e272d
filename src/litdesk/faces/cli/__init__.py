"""The command-line face: ``litdesk …`` (Typer + rich)."""

from ._app import app, main

__all__ = ["app", "main"]
