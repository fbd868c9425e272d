"""``litdesk study form STUDY``: show or set a Study's extraction form (a ready template
or the reviewers' own JSON file); ``--field key=value`` parsing for the evidence commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from litdesk._errors import InputError

from ._context import sync_app
from ._output import command, emit_json
from ._workspace import JsonOpt, _read, _say, study_app

__all__ = ["register"]

MAX_FORM_BYTES = 1_000_000


def _show(data: dict[str, Any]) -> None:
    form = data["form"]
    study = data["study"]
    chosen = "" if data["chosen"] else " (the default: no form chosen yet)"
    _say(f"{study['name']}: {form['name']}{chosen}, revision {form['revision']}")
    for n, f in enumerate(form["fields"], 1):
        extra = []
        if f["required"]:
            extra.append("required")
        if f["options"]:
            extra.append("options: " + " | ".join(f["options"]))
        more = f" ({'; '.join(extra)})" if extra else ""
        _say(f"  {n:2}. {f['key']}  [{f['type']}]  {f['label']}{more}")


def register(app: typer.Typer) -> None:
    """Add ``litdesk study form`` to the ``study`` commands (``app`` holds them)."""
    study_app.command("form")(command(study_form))


def study_form(
    study: Annotated[str, typer.Argument(help="Study name or id.")],
    template: Annotated[
        str | None,
        typer.Option("--template", help="Use a ready form: default, pico (PICO/PECO) or rob2."),
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--from", help="Use the form in this JSON file (as --json shows a form)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Show a Study's extraction form, or set it (its owner only) from a template or a file.

    Recorded values are never changed: values of fields a new form lacks are kept and shown
    as "not in the current form"."""
    from litdesk.services.studies import SetFormRequest

    if template is not None and from_file is not None:
        raise InputError("give --template or --from, not both", code="arguments")
    with sync_app() as app:
        if template is not None:
            view = app.studies.set_form(SetFormRequest(study, template=template), owner=app.owner)
        elif from_file is not None:
            try:
                data = json.loads(_read(from_file, MAX_FORM_BYTES))
            except ValueError:
                raise InputError(f"{from_file.name} is not JSON", code="form_invalid") from None
            form = data.get("form", data) if isinstance(data, dict) else data
            view = app.studies.set_form(SetFormRequest.from_json(study, form), owner=app.owner)
        else:
            view = app.studies.form(study, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
    else:
        _show(view.to_dict())
