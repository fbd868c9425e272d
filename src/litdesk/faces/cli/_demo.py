"""``litdesk demo reset|path``: the offline demo workspace — its own folder (never your
data directory), a demo Study built from bundled CC0 records, the demo sample as its
search source. ``litdesk serve --demo`` opens it (made on first use)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._output import command, console, emit_json

__all__ = ["register"]

demo = typer.Typer(
    help="The offline demo workspace (its own folder; litdesk serve --demo opens it)."
)
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


@demo.command("reset")
@command
def reset(as_json: Json = False) -> None:
    """(Re)make the demo workspace from the bundled files (your own workspace is untouched)."""
    from litdesk._settings import get_settings
    from litdesk.services.demo import demo_place, reset_demo

    settings = get_settings()
    place = demo_place(settings)
    if not as_json:
        _say(f"Making the demo workspace in {place.directory} (about 10 s) …")
    made = reset_demo(settings)
    if as_json:
        emit_json(made.to_dict())
        return
    study = made.study
    _say(
        f'Demo workspace ready in {made.seconds:.0f} s: the Study "{study.name}" '
        f"({study.search_records} records from the demo sample, {study.imported_records} "
        f"imported; {study.title_abstract} title/abstract and {study.full_text} full-text "
        f"decisions; {study.evidence} evidence records)."
    )
    _say(f"Demo export to import: {made.place.export}")
    _say("Open it with: litdesk serve --demo")


@demo.command("path")
@command
def path(as_json: Json = False) -> None:
    """Where the demo workspace is, and the demo export file to import."""
    from litdesk._settings import get_settings
    from litdesk.services.demo import demo_place

    place = demo_place(get_settings())
    if as_json:
        emit_json(place.to_dict())
        return
    _say(f"Demo workspace: {place.directory}")
    _say(f"Demo export:    {place.export}")
    if not place.exists:
        _say("(not made yet: litdesk demo reset, or litdesk serve --demo)")


def register(app: typer.Typer) -> None:
    """Add ``litdesk demo …`` to ``app``."""
    app.add_typer(demo, name="demo")
