"""Shared CLI output helpers: JSON to stdout, errors to stderr, exit codes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console

from litdesk._errors import LitdeskError

from .._explain import explain, sentence

__all__ = ["console", "err_console", "emit_json", "error_lines", "fail", "translate_errors"]

console = Console()
err_console = Console(stderr=True)


def _default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def emit_json(data: Any) -> None:
    """Write ``data`` as JSON (UTF-8, one document) to standard output."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=_default))
    sys.stdout.write("\n")
    sys.stdout.flush()


def fail(error: LitdeskError, *, as_json: bool = False) -> NoReturn:
    """Report ``error`` (one line on stderr, or JSON on stdout) and exit with its status."""
    if as_json:
        emit_json(error.to_dict() | {"hint": str(explain(error))})
    for line in error_lines(error):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(error.exit_code)


def error_lines(error: LitdeskError) -> list[str]:
    """The error for a person: what happened, what to do, and — only when the message
    says more than that — the technical message as a last ``details:`` line."""
    said = explain(error)
    text = error.message if sentence(error.message) == said.text else said.text
    lines = [f"litdesk: {text}"]
    if said.hint:
        lines.append(f"  {said.hint}")
    if sentence(error.message) != said.text:
        lines.append(f"  details ({error.code}): {error.message}")
    return lines


@contextmanager
def translate_errors(*, as_json: bool = False) -> Iterator[None]:
    """Turn any :class:`LitdeskError` raised inside into a clean exit (the CLI boundary)."""
    try:
        yield
    except LitdeskError as exc:
        fail(exc, as_json=as_json)


def command(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: run a Typer command inside :func:`translate_errors`."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with translate_errors(as_json=bool(kwargs.get("as_json"))):
            return fn(*args, **kwargs)

    return wrapper
