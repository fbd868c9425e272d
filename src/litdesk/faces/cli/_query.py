"""``litdesk query``: show how a query parses and the exact request each provider gets.

Thin: parse the options, call :mod:`litdesk.core.query`, print. Nothing is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from litdesk._errors import InputError
from litdesk.core.providers import PROVIDERS

from ._output import command, console, emit_json, err_console

if TYPE_CHECKING:  # imported when the command runs (fast start)
    from rich.tree import Tree

    from litdesk.core.query import Node, QuerySyntaxError
    from litdesk.core.search import CompiledRequest

__all__ = ["caret_lines", "register"]

_FIELDS = ("all", "title", "abstract", "author")
_TYPES = ("all", "review", "preprint", "journal")
_SORTS = ("relevance", "newest", "cited")
_MODES = ("keyword", "semantic")
#: The providers for the help text (``litdesk.core.providers`` imports no heavy module).
PROVIDER_NAMES = ", ".join(PROVIDERS)
_WINDOW = 60
_FIELD_LABELS = {
    "title": "TITLE",
    "abstract": "ABSTRACT",
    "author": "AUTHOR",
    "author_last": "AUTH_LAST",
    "mesh": "MESH",
}


def _safe(text: str) -> str:
    """``text`` with lone surrogates (undecodable command-line bytes) shown as U+FFFD."""
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


class QueryArgumentError(InputError):
    """An option of ``litdesk query`` has a value it does not accept."""

    default_code = "arguments"


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise QueryArgumentError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def caret_lines(text: str, position: int, end: int) -> tuple[str, str]:
    """The query (a window around the error, whitespace shown as spaces) and a caret
    line marking characters ``position``..``end`` (1-based, inclusive)."""
    flat = "".join(" " if ch in "\t\r\n" else ch for ch in _safe(text))
    start = max(0, position - 1 - _WINDOW)
    stop = min(len(flat), max(end, position) + _WINDOW)
    shown = flat[start:stop]
    lead = ""
    if start > 0:
        shown, lead = "…" + shown, " "
    if stop < len(flat):
        shown += "…"
    width = max(1, min(end, len(flat)) - position + 1) if flat else 1
    caret = lead + " " * (position - 1 - start) + "^" * width
    return shown, caret


def _label(node: Node) -> Text:
    from litdesk.core.query import And, Not, Term

    if isinstance(node, Term):
        field = f"{_FIELD_LABELS[node.field]}: " if node.field else ""
        kind = "phrase" if node.phrase else "truncated term" if node.truncated else "term"
        return Text(f'{field}{kind} "{node.text}"  [{node.position}-{node.end}]')
    if isinstance(node, Not):
        return Text("NOT")
    return Text("AND" if isinstance(node, And) else "OR")


def _tree(node: Node, branch: Tree) -> None:
    from litdesk.core.query import Not, Term

    sub = branch.add(_label(node))
    if isinstance(node, Not):
        _tree(node.child, sub)
    elif not isinstance(node, Term):
        for child in node.children:
            _tree(child, sub)


def _print_request(
    name: str, outcome: dict[str, Any], requests: dict[str, CompiledRequest]
) -> None:
    if "refused" in outcome:
        console.print(Text(f"{name}: refused — {outcome['refused']}"), soft_wrap=True)
        return
    from litdesk.core.query import full_url

    req = requests[name]
    console.print(Text(f"{name} [{req.lane}] {req.operation}", style="bold"))
    console.print(Text(f"  {req.method} {full_url(req)}"), soft_wrap=True)
    console.print(Text(f"  executed: {req.executed_query}"), soft_wrap=True)
    for warning in req.warnings:
        console.print(Text(f"  warning: {warning}"), soft_wrap=True)


def query_cmd(
    query: Annotated[
        str, typer.Argument(help="The query, e.g. 'TITLE:\"gene therapy\" AND crispr'.")
    ],
    provider: Annotated[
        list[str] | None,
        typer.Option("--provider", "-p", help=f"Provider (repeatable): {PROVIDER_NAMES}."),
    ] = None,
    field: Annotated[str, typer.Option("--field", help="all, title, abstract or author.")] = "all",
    type_: Annotated[str, typer.Option("--type", help="all, review, preprint or journal.")] = "all",
    year_from: Annotated[int | None, typer.Option("--from", help="First year (1800-2199).")] = None,
    year_to: Annotated[int | None, typer.Option("--to", help="Last year (1800-2199).")] = None,
    open_access: Annotated[
        bool, typer.Option("--open-access", help="Open-access works only.")
    ] = False,
    include_retracted: Annotated[
        bool, typer.Option("--include-retracted", help="Do not exclude retracted works.")
    ] = False,
    sort: Annotated[str, typer.Option("--sort", help="relevance, newest or cited.")] = "relevance",
    mode: Annotated[str, typer.Option("--mode", help="keyword or semantic.")] = "keyword",
    limit: Annotated[int, typer.Option("--limit", help="Page size.")] = 20,
    cursor: Annotated[
        str | None, typer.Option("--cursor", help="A provider cursor (next page).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show the parse tree and the exact request each provider would get (nothing is sent)."""
    from rich.tree import Tree

    from litdesk.core.query import (
        Query,
        QuerySyntaxError,
        compile_lane,
        parse_plain_text,
        parse_query,
        plan_identifier,
    )
    from litdesk.core.search import CompileRefused, SearchFilters

    names = list(dict.fromkeys(provider or PROVIDERS))
    for name in names:
        _choice("--provider", name, PROVIDERS)
    filters = SearchFilters(
        field=_choice("--field", field, _FIELDS),  # type: ignore[arg-type]
        year_from=year_from,
        year_to=year_to,
        open_access=open_access,
        include_retracted=include_retracted,
        type=_choice("--type", type_, _TYPES),  # type: ignore[arg-type]
        sort=_choice("--sort", sort, _SORTS),  # type: ignore[arg-type]
    )
    _choice("--mode", mode, _MODES)

    identifier = plan_identifier(query, field=filters.field)
    parsed: Query | None = None
    try:
        if mode == "semantic" and filters.field == "all":
            parsed = parse_plain_text(query)  # any number of words; Boolean text still parsed
        else:
            parsed = parse_query(query, field=filters.field)
    except QuerySyntaxError as exc:
        if identifier is None:
            _syntax_error(query, exc, as_json=as_json)

    outcomes: dict[str, dict[str, Any]] = {}
    requests: dict[str, CompiledRequest] = {}
    for name in names:
        try:  # the same decision (lookup or search) the search itself makes
            req = compile_lane(
                name,
                query,
                filters,
                cursor=None if identifier is not None else cursor,
                limit=limit,
                mode=mode,  # type: ignore[arg-type]
            )
        except CompileRefused as exc:
            outcomes[name] = {"refused": exc.reason}
            continue
        requests[name] = req
        outcomes[name] = {"request": req.to_dict()}

    if as_json:
        emit_json(
            {
                "query": _safe(query),
                "ast": parsed.to_dict() if parsed is not None else None,
                "identifier": identifier.to_dict() if identifier is not None else None,
                "providers": outcomes,
            }
        )
        return
    console.print(Text(f"Query: {_safe(query)}", style="bold"), soft_wrap=True)
    if identifier is not None:
        console.print(
            Text(f"Exact identifier: {identifier.namespace} {identifier.value} (lookups)")
        )
    if parsed is not None:
        root = Tree(Text("Parse tree" + (" (Boolean syntax)" if parsed.has_boolean_syntax else "")))
        _tree(parsed.root, root)
        console.print(root)
    for name in names:
        _print_request(name, outcomes[name], requests)


def _syntax_error(text: str, exc: QuerySyntaxError, *, as_json: bool) -> None:
    if as_json:
        emit_json({"query": _safe(text), "error": exc.to_dict()})
    else:
        shown, caret = caret_lines(text, exc.position, exc.end)
        err_console.print(Text(f"litdesk: {exc.message} [{exc.code}]"), soft_wrap=True)
        err_console.print(Text(f"  {shown}"), soft_wrap=True)
        err_console.print(Text(f"  {caret}"), soft_wrap=True)
    raise typer.Exit(exc.exit_code)


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
    app.command("query")(command(query_cmd))
