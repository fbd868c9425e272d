"""``litdesk zotero import``: a Zotero library read offline into Studies, papers, notes and
the PDF library (the Zotero area's one import use case)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .._words import num, plural
from ._context import run_with_app, settings, sync_app
from ._output import command, console, emit_json, err_console

#: The environment variable holding the Zotero Web API key (never a command-line argument:
#: those show in the process list and the shell history).
API_KEY_ENV = "LITDESK_ZOTERO_API_KEY"

if TYPE_CHECKING:  # imported when a command runs (fast start)
    from litdesk.services.zotero import PushPlanView, ZoteroImportView

__all__ = ["register"]

zotero_app = typer.Typer(
    help="Zotero: import a library offline (collections, items, notes, PDFs); push a "
    "Study's statuses, screening decisions and notes back.",
    no_args_is_help=True,
)


def _show(view: ZoteroImportView) -> None:
    if view.library_version is not None:  # read through the Web API
        since = f"changed since version {view.since}" if view.since is not None else "every item"
        head = (
            f"Zotero library ({view.library_label}) at {view.data_dir} (version "
            f"{view.library_version}): {plural(view.items_read, 'item')} read ({since})"
        )
    else:
        head = (
            f"Zotero library ({view.library_label}) in {view.data_dir} "
            f"(schema {view.schema_version}): {plural(view.items_read, 'item')} read, "
            f"{num(view.trashed_left_out)} in the trash left out"
        )
    console.print(head, markup=False, highlight=False)
    if view.asked_again:
        console.print(
            f"asked again: {plural(len(view.asked_again), 'item')} with a problem at the last "
            f"import (not changed in Zotero since): {', '.join(view.asked_again[:20])}"
            + (" …" if len(view.asked_again) > 20 else ""),
            markup=False,
            highlight=False,
        )
    console.print(
        f"added {view.added}, updated {view.updated}, unchanged {view.unchanged}; "
        f"notes added {view.notes_added}, updated {view.notes_changed} (changed in Zotero); "
        f"{plural(view.pdfs_attached, 'PDF')} attached, {num(view.pdfs_new)} new "
        f"({num(view.full_text_caches)} with Zotero's full text)",
        markup=False,
        highlight=False,
    )
    for s in view.studies:
        made = " (new)" if s.created else ""
        held = f" (the Study holds {num(s.total)})" if s.total != s.papers else ""
        console.print(
            f"  Study {s.name}{made}: {plural(s.papers, 'paper')} from Zotero{held}", markup=False
        )
    for r in view.removed:
        console.print(
            f"  removed in Zotero (its paper stays in the Study): {r.key} {r.title}", markup=False
        )
    for m in view.moved:
        console.print(
            f"  moved in Zotero: {m.key} {m.title} ({', '.join(m.before_names) or 'no collection'}"
            f" → {', '.join(m.after_names) or 'no collection'})",
            markup=False,
        )
    for p in view.problems:
        console.print(f"  not imported: {p.key} {p.title}: {p.problem}", markup=False)


@zotero_app.command("import")
@command
def import_cmd(
    data_dir: Annotated[
        Path | None,
        typer.Argument(help="The Zotero data directory (default: the platform's)."),
    ] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", help="Import this collection (with its sub-collections)."),
    ] = None,
    study: Annotated[
        str | None, typer.Option("--study", help="One Study for everything imported.")
    ] = None,
    sub_studies: Annotated[
        bool,
        typer.Option("--sub-studies", help="Each sub-collection its own Study (Parent / Child)."),
    ] = False,
    base_dir: Annotated[
        Path | None,
        typer.Option("--base-dir", help="The linked-attachment base directory."),
    ] = None,
    group: Annotated[
        int | None, typer.Option("--group", help="A group library's id instead of yours.")
    ] = None,
    no_pdfs: Annotated[
        bool, typer.Option("--no-pdfs", help="Leave the PDFs out of the PDF library.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The result as JSON.")] = False,
) -> None:
    """Import a Zotero library (read from a private read-only copy; Zotero may run)."""
    from litdesk.services.zotero import ZoteroImportRequest

    request = ZoteroImportRequest(
        data_dir=str(data_dir) if data_dir is not None else None,
        collections=tuple(collection or ()),
        study=study,
        base_dir=str(base_dir) if base_dir is not None else None,
        group=group,
        pdfs=not no_pdfs,
        sub_studies=sub_studies,
    )
    with sync_app() as app:
        view = app.zotero.import_library(request, owner=app.owner)
    if as_json:
        emit_json(view.to_dict())
        return
    _show(view)


def _api_key(*, prompt: bool) -> str | None:
    """The Zotero API key: the setting (``LITDESK_ZOTERO_API_KEY``), else asked at a
    hidden prompt (empty: a public library); never a command-line argument."""
    import sys

    secret = settings().zotero_api_key
    if secret is not None and secret.get_secret_value().strip():
        return secret.get_secret_value()
    if not prompt or not sys.stdin.isatty():
        return None
    answer = typer.prompt(
        "Zotero API key (empty: a public library)", default="", hide_input=True, err=True,
        show_default=False,
    )  # fmt: skip
    return str(answer).strip() or None


@zotero_app.command("import-web")
@command
def import_web_cmd(
    library: Annotated[
        str, typer.Argument(help="users/<id> or groups/<id> (zotero.org → Settings → Security).")
    ],
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", help="Import this collection (with its sub-collections)."),
    ] = None,
    study: Annotated[
        str | None, typer.Option("--study", help="One Study for everything imported.")
    ] = None,
    sub_studies: Annotated[
        bool,
        typer.Option("--sub-studies", help="Each sub-collection its own Study (Parent / Child)."),
    ] = False,
    with_pdfs: Annotated[
        bool, typer.Option("--with-pdfs", help="Download the stored PDFs into the PDF library.")
    ] = False,
    full: Annotated[
        bool, typer.Option("--full", help="Read every item, not only those changed since.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The result as JSON.")] = False,
) -> None:
    """Import a library of zotero.org through the Web API (key in $LITDESK_ZOTERO_API_KEY or
    asked); importing again reads only what changed since."""
    from litdesk.services.zotero import ZoteroWebImportRequest

    request = ZoteroWebImportRequest(
        library=library,
        api_key=_api_key(prompt=True),
        collections=tuple(collection or ()),
        study=study,
        sub_studies=sub_studies,
        pdfs=with_pdfs,
        full=full,
    )
    view = run_with_app(lambda opened: opened.zotero.import_web(request, owner=opened.owner))
    if as_json:
        emit_json(view.to_dict())
        return
    _show(view)


def _show_plan(plan: PushPlanView) -> None:
    console.print(
        f"Study {plan.study} → Zotero {plan.target}: {plural(len(plan.items), 'item')}",
        markup=False,
        highlight=False,
    )
    for item in plan.items:
        if not item.tags and not item.notes and not item.removed_tags:
            continue
        console.print(f"  {item.key} {item.title}", markup=False, highlight=False)
        for tag in item.tags:
            console.print(f"    + tag {tag}", markup=False, highlight=False)
        for tag in item.removed_tags:
            console.print(f"    - tag {tag}", markup=False, highlight=False)
        for _, text in item.notes:
            first = text.split("\n", 1)[0][:80]
            console.print(f"    + note {first}", markup=False, highlight=False)
    for p in plan.skipped:
        console.print(f"  left out: {p.title}: {p.problem}", markup=False, highlight=False)
    for stage in plan.blind_stages:
        console.print(
            f"  {stage.replace('_', '/')} screening is still blind (dual review, not revealed):"
            " its decisions are not given back",
            markup=False,
            highlight=False,
        )


@zotero_app.command("push")
@command
def push_cmd(
    study: Annotated[str, typer.Argument(help="The Study (name or id).")],
    ris: Annotated[
        Path | None, typer.Option("--ris", help="Write an RIS file Zotero imports instead.")
    ] = None,
    library: Annotated[
        str | None,
        typer.Option(
            "--library", help=f"users/<id> or groups/<id> (Web API; key in ${API_KEY_ENV})."
        ),
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="Zotero's local API (Zotero 10 running).")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Write without asking.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The plan and result as JSON.")] = False,
) -> None:
    """Give a Study's reading statuses and screening decisions (as litdesk: tags) and its
    notes back to its Zotero items."""
    from litdesk._errors import RefusedError
    from litdesk.services.zotero import ZoteroPushRequest

    key = _api_key(prompt=False) if library is not None and not local else None
    request = ZoteroPushRequest(
        study=study,
        ris_path=str(ris) if ris is not None else None,
        library=library,
        api_key=key,
        local=local,
    )
    with sync_app() as app:
        plan = app.zotero.plan_push(request, owner=app.owner)
    if as_json and not yes:
        emit_json({"plan": plan.to_dict(), "written": False})
        return
    if not as_json:
        _show_plan(plan)
    if plan.empty and ris is None:
        if not as_json:
            console.print("nothing to write", markup=False)
        else:
            emit_json({"plan": plan.to_dict(), "written": False})
        return
    if not yes and not typer.confirm("Write this to Zotero?", default=False, err=True):
        err_console.print("nothing written", markup=False)
        raise RefusedError("not confirmed: nothing written", code="zotero_unconfirmed")
    view = run_with_app(
        lambda opened: opened.zotero.push(request, owner=opened.owner, confirm=True)
    )
    if as_json:
        emit_json(view.to_dict())
        return
    where = view.file or plan.target
    console.print(
        f"written to {where}: {plural(view.items_written, 'item')}, {plural(view.notes_written, 'note')}",
        markup=False,
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Add ``litdesk zotero``."""
    app.add_typer(zotero_app, name="zotero")
