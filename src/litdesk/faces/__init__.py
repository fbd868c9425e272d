"""Thin faces over the services: the CLI (Typer + rich) and, later, the web workspace."""
