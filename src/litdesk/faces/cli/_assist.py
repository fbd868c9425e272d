"""AI assistance commands: ``litdesk extract`` (a model suggests evidence from a saved
paper's abstract or a full-text section; nothing is saved), ``litdesk extract-save``
(save a reviewed draft as evidence) and ``litdesk extract-provenance`` (how an evidence
record was assisted, every quote re-checked). Thin: arguments, services, printing.

What will be sent, and to which host, is always shown first; it is sent only with
``--consent`` or an interactive yes — also for a local model on loopback."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from litdesk._errors import InputError, RefusedError

from ._context import run_with_app
from ._output import command, console, emit_json, err_console

if TYPE_CHECKING:
    from litdesk.services.app import App

__all__ = ["register"]


class Source(StrEnum):
    abstract = "abstract"
    fulltext = "fulltext"


class AssistArgumentError(InputError):
    """The command's arguments do not fit together."""

    default_code = "arguments"


def _say(text: str, style: str | None = None) -> None:
    console.print(text, markup=False, highlight=False, style=style, soft_wrap=True)


def _print_notice(preview: dict[str, Any]) -> None:
    consent = preview["consent"]
    _say("What will be sent", style="bold")
    _say(consent["headline"])
    for line in preview["bounded"]["disclosure"]:
        _say(f"partial: {line}", style="yellow")
    _say("-" * 60)
    _say(consent["text"])
    _say("-" * 60)


def _print_form_draft(draft: dict[str, Any]) -> None:
    form = draft["form"]
    _say(
        f"Suggested values for the Study's form \u201c{form['name']}\u201d "
        f"(draft {draft['draft_id']}) — not saved", style="bold",
    )  # fmt: skip
    finding = draft["fields"]["finding"]
    _say(f"Finding (its quote is the record's passage): {finding['value']}")
    _say(f"    quote [{finding['block']}]: \u201c{finding['quote']}\u201d", style="dim")
    suggested = draft["form_fields"]
    for f in form["fields"]:
        s = suggested.get(f["key"])
        if f["key"] == "finding" and form["finding_field"]:
            continue
        if s is None:
            _say(f"{f['label']} ({f['key']}): no verified suggestion", style="dim")
            continue
        _say(f"{f['label']} ({f['key']}): {s['text']}")
        _say(f"    quote [{s['block']}]: \u201c{s['quote']}\u201d", style="dim")
    for line in form["disclosure"]:
        _say(f"partial: {line}", style="yellow")
    for w in draft["warnings"]:
        _say(f"warning: {w}", style="yellow")
    call = draft["call"]
    _say(f"from {call['backend']} {call['model']} at {call['host']}, {call['answered_at']}")
    _say(
        "Review every value against its quote, then record them in the Study with: litdesk "
        f"extract-save {draft['draft_id']} --reviewed --form [--set key=value]"
    )


def _print_draft(draft: dict[str, Any]) -> None:
    if draft.get("form") is not None:
        _print_form_draft(draft)
        return
    _say(f"Suggested evidence (draft {draft['draft_id']}) — not saved", style="bold")
    for name, label in draft["labels"].items():
        f = draft["fields"].get(name)
        if f is None:
            continue
        _say(f"{label}: {f['value']}")
        _say(f"    quote [{f['block']}]: \u201c{f['quote']}\u201d", style="dim")
    for w in draft["warnings"]:
        _say(f"warning: {w}", style="yellow")
    call = draft["call"]
    _say(f"from {call['backend']} {call['model']} at {call['host']}, {call['answered_at']}")
    _say(
        "Review every field against its quote, then save it with: litdesk extract-save "
        f"{draft['draft_id']} --reviewed [--set field=value]"
    )


def extract_cmd(
    paper: Annotated[str, typer.Argument(help="A saved paper: id, DOI, PMID or PMCID.")],
    source: Annotated[
        Source, typer.Option("--source", help="Send the abstract or a full-text section.")
    ] = Source.abstract,
    section: Annotated[
        str | None, typer.Option("--section", help="Full-text section (e.g. Results).")
    ] = None,
    consent: Annotated[
        bool, typer.Option("--consent", help="Send the text shown to the model backend.")
    ] = False,
    study: Annotated[
        str | None,
        typer.Option("--study", help="Read in this Study: its own form's fields are suggested."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Suggest evidence with a model: shows what is sent and where, then a verified draft
    (in a Study with its own form: values for the form's fields)."""
    from litdesk.core.assist import ConsentRequired
    from litdesk.services.assist import CANCELLED_NOTICE, EvidenceSource, SuggestEvidence

    what = EvidenceSource(paper, source.value, section, study)

    async def work(app: App) -> dict[str, Any]:
        prev = await app.assist.evidence_preview(what, owner=app.owner)
        shown = prev.to_dict()
        if not as_json:
            _print_notice(shown)
        agreed = consent
        if not agreed and not as_json and sys.stdin.isatty():
            agreed = typer.confirm("Send this text to the model?", default=False)
        if not agreed:
            raise ConsentRequired(
                "nothing was sent: " + prev.notice.headline() + " Run again with --consent "
                "to send it.",
                code="consent_required",
                preview=shown,
            )
        request = SuggestEvidence(paper, prev.notice.token, source.value, section, study)
        draft = await app.assist.suggest_evidence_now(request, owner=app.owner)
        return {"preview": shown, "draft": draft.to_dict()}

    try:
        out = run_with_app(work)
    except KeyboardInterrupt:
        err_console.print(f"litdesk: {CANCELLED_NOTICE}", markup=False, highlight=False)
        raise typer.Exit(130) from None
    if as_json:
        emit_json(out)
    else:
        _print_draft(out["draft"])


def _edits(values: list[str]) -> dict[str, str | None]:
    """``--set field=value`` items (the request checks the field names)."""
    out: dict[str, str | None] = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep:
            raise AssistArgumentError("--set takes field=value")
        out[name.strip()] = value
    return out


def _print_provenance(p: dict[str, Any]) -> None:
    call = p.get("call") or {}
    _say(f"evidence {p['evidence_id']}: assisted by {call.get('backend')} {call.get('model')} "
         f"at {call.get('host')} ({call.get('requested_at')} – {call.get('answered_at')}), "
         f"reviewed {p.get('reviewed_at')}")  # fmt: skip
    for name, f in (p.get("fields") or {}).items():
        edited = " (edited)" if f.get("edited") else ""
        final = f.get("final")
        saved = f"saved \u201c{final}\u201d" if final is not None else "not recorded"
        _say(f"{name}{edited}: suggested \u201c{f.get('suggestion')}\u201d, {saved}")
        _say(f"    quote [{f.get('block')}]: check {p['checks'].get(name)}", style="dim")


def extract_save_cmd(
    draft: Annotated[str, typer.Argument(help="The draft id printed by `litdesk extract`.")],
    reviewed: Annotated[
        bool, typer.Option("--reviewed", help="I checked every field against its quote.")
    ] = False,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Edit a field: field=value (blank value leaves it out)."),
    ] = None,
    study: Annotated[str | None, typer.Option("--study", help="Record it in this Study.")] = None,
    form: Annotated[
        bool,
        typer.Option(
            "--form",
            help="The draft fills its Study's own form: record the suggested values "
            "(--set key=value changes one) in that Study.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Save a reviewed draft as evidence, with its assistance provenance."""
    from litdesk.services.assist import SaveEvidence, SaveFormEvidence

    if not reviewed:
        raise RefusedError(
            "review the draft first, then confirm with --reviewed", code="review_required"
        )
    if form and study is not None:
        raise AssistArgumentError("a form draft is recorded in its own Study: drop --study")
    edits = _edits(set_ or [])
    request = (
        SaveFormEvidence(draft, True, edits) if form else SaveEvidence(draft, True, edits, study)
    )

    async def work(app: App) -> dict[str, Any]:
        if isinstance(request, SaveFormEvidence):
            return app.assist.save_form_evidence(request, owner=app.owner).to_dict()
        return app.assist.save_evidence(request, owner=app.owner).to_dict()

    out = run_with_app(work)
    if as_json:
        emit_json(out)
    else:
        _say(f"saved evidence {out['evidence_id']}")
        _print_provenance(out["provenance"])


def extract_provenance_cmd(
    evidence: Annotated[str, typer.Argument(help="An evidence record id (ev-…).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """How an evidence record was assisted; every stored quote re-checked now."""

    async def work(app: App) -> dict[str, Any]:
        return app.assist.evidence_provenance(evidence, owner=app.owner).to_dict()

    out = run_with_app(work)
    if as_json:
        emit_json(out)
    else:
        _print_provenance(out)


class Role(StrEnum):
    chat = "chat"
    generation = "generation"


def assist_check_cmd(
    role: Annotated[
        Role, typer.Option("--role", help="Which configured backend to check.")
    ] = Role.generation,
    consent: Annotated[
        bool, typer.Option("--consent", help="Send the short fixed check request.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Check the model live (thinking behaviour, stop reason, strict JSON) before use."""
    from litdesk.core.assist import ConsentRequired
    from litdesk.services.assist import CheckModel

    async def work(app: App) -> dict[str, Any]:
        notice = app.assist.check_notice(CheckModel(role.value))
        if not as_json:
            _say(notice.headline())
            _say(f"text: {notice.text}")
        agreed = consent or (not as_json and sys.stdin.isatty() and typer.confirm(
            "Send this check to the model?", default=False))  # fmt: skip
        if not agreed:
            raise ConsentRequired(
                "nothing was sent: " + notice.headline() + " Run again with --consent.",
                code="consent_required",
            )
        request = CheckModel(role.value, notice.token)
        return (await app.assist.check_model(request, owner=app.owner)).to_dict()

    out = run_with_app(work)
    if as_json:
        emit_json(out)
    else:
        _say(("ok: " if out["ok"] else "problem: ") + out["verdict"])
    if not out["ok"]:
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""
    app.command("extract")(command(extract_cmd))
    app.command("extract-save")(command(extract_save_cmd))
    app.command("extract-provenance")(command(extract_provenance_cmd))
    app.command("assist-check")(command(assist_check_cmd))
