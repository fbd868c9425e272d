"""AI suggestions for a Study's own extraction form, end to end over the service layer with
a scripted model server on loopback (both wire protocols): the request names the form's
fields, the answer's schema is the form's, every kept value's quote is verified in its
block and the value checked against its field (each drop a warning naming the field), the
reviewed values are recorded through the form-values use case (checked again), and no call
is made without consent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from tests._model_servers import Scripted, ScriptedModelServer, assist_settings, user_payload
from tests.services.assist._extract_kit import ABSTRACT, the_paper

from litdesk._errors import NotFoundError, RefusedError
from litdesk.core.assist import AnswerRefused, ConsentRequired
from litdesk.core.forms import Form, FormField, ValueInvalid
from litdesk.services.app import open_app
from litdesk.services.assist import EvidenceAssistant
from litdesk.services.studies import FormFieldRequest, SetFormRequest
from litdesk.services.studies._forms import change_field, set_form
from litdesk.services.workspace import Workspace, evidence_csv

PAPER = "MED-424242"
FORM = Form(
    (
        FormField("sample_size", "Sample size", "number", help="Participants randomised."),
        FormField("design", "Design", "choice", options=("RCT", "cohort", "case-control")),
        FormField("blinded", "Blinded", "yesno"),
        FormField("setting", "Setting", max_length=30),
    ),
    name="Trial form",
)
FINDING = {
    "value": "Artesunate cleared parasites faster than quinine",
    "quote": "parasite clearance was faster with artesunate than with\nquinine",
    "block": "abstract",
}


def _answer(
    fields: dict[str, tuple[str, str, str]], finding: dict[str, str] = FINDING, **extra: Any
) -> str:
    out = {
        "finding": finding,
        "fields": {
            f.key: dict(
                zip(("value", "quote", "block"), fields.get(f.key, ("", "", "")), strict=True)
            )
            for f in FORM.fields
        },
    }
    out["fields"].update(extra)
    return json.dumps(out)


GOOD = {
    "sample_size": ("120", "120 children aged 2-10 years", "abstract"),
    "design": ("rct", "artesunate than with quinine", "abstract"),  # case-insensitive
    "blinded": ("No", "we gave  artesunate 4 mg/kg", "abstract"),
    "setting": ("Mali", "children aged 2-10 years in   Mali", "abstract"),
}


def run(coro_fn, server: ScriptedModelServer, tmp_path, *, form: Form | None = FORM) -> Any:
    settings = assist_settings(server, tmp_path / "data")

    async def go() -> Any:
        async with open_app(settings) as rt_app:
            rt = rt_app.providers
            ws = Workspace(rt.store, owner="ann")
            ws.create_study("Malaria")
            ws.save_paper(the_paper(), study="Malaria")
            if form is not None:
                set_form(rt.store, SetFormRequest("Malaria", form=form), "ann")
            ea = EvidenceAssistant(rt, owner="ann")
            try:
                return await coro_fn(ea)
            finally:
                ea.close()

    return asyncio.run(go())


async def _suggest(ea: EvidenceAssistant) -> Any:
    prev = await ea.preview(PAPER, study="Malaria")
    return await ea.suggest(PAPER, consent=prev.notice.token, study="Malaria")


def test_form_fields_asked_checked_and_recorded(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(_answer(GOOD)))

    async def go(ea: EvidenceAssistant) -> Any:
        prev = await ea.preview(PAPER, study="Malaria")
        assert prev.form is not None and prev.form.keys == FORM.keys
        draft = await ea.suggest(PAPER, consent=prev.notice.token, study="Malaria")
        with pytest.raises(RefusedError) as unreviewed:
            ea.save_form(draft.id, reviewed=False)
        with pytest.raises(Exception) as standard:  # not the six fields' save
            ea.save(draft.id, reviewed=True)
        saved = ea.save_form(draft.id, reviewed=True, values={"setting": "Mali, 2 sites"})
        with pytest.raises(RefusedError) as twice:
            ea.save_form(draft.id, reviewed=True)
        rows, problems = Workspace(ea.providers.store, owner="ann").evidence(study="Malaria")
        return draft, saved, rows, problems, unreviewed.value, standard.value, twice.value

    draft, saved, rows, problems, unreviewed, standard, twice = run(go, server, tmp_path)
    sent = user_payload(server.requests[0].body)
    assert [f["key"] for f in sent["fields"]] == list(FORM.keys)
    assert sent["fields"][1]["options"] == ["RCT", "cohort", "case-control"]
    assert sent["fields"][0]["help"] == "Participants randomised." and "finding" in sent
    raw = json.dumps(server.requests[0].body)
    assert '"sample_size": {"type": "object"' in raw  # the answer's schema is the form's
    d = draft.to_dict()
    assert d["warnings"] == [] and d["study_id"] and d["form"]["asked"] == list(FORM.keys)
    assert {k: v["value"] for k, v in d["form_fields"].items()} == {
        "sample_size": 120,
        "design": "RCT",
        "blinded": False,
        "setting": "Mali",
    }
    assert d["form_fields"]["setting"]["quote"] == "children aged 2-10 years in Mali"
    assert unreviewed.code == "review_required" and getattr(standard, "code", "") == "form_draft"
    assert twice.code == "draft_saved"
    assert problems == [] and len(rows) == 1 and rows[0].recheck == "ok"
    ev = rows[0].evidence
    assert ev.values == {"sample_size": 120, "design": "RCT", "blinded": False,
                         "setting": "Mali, 2 sites"}  # fmt: skip
    assert ev.passage == "parasite clearance was faster with artesunate than with quinine"
    assert ev.form_revision == 1 and rows[0].study_id == saved.study_id
    p = saved.provenance.to_dict()
    assert p["ok"] and set(p["checks"]) == {"finding", *FORM.keys}
    assert p["fields"]["setting"]["edited"] and not p["fields"]["design"]["edited"]
    assert p["fields"]["blinded"] == {"suggestion": "no", "quote": "we gave artesunate 4 mg/kg",
                                      "block": "abstract", "final": "no", "edited": False}  # fmt: skip
    assert rows[0].assisted is not None and rows[0].assisted.suggestions["design"] == "RCT"
    assert "Mali, 2 sites" in evidence_csv(rows)


BAD = {
    "sample_size": ("about a hundred", "120 children aged 2-10 years", "abstract"),
    "design": ("crossover", "artesunate than with quinine", "abstract"),
    "blinded": ("yes", "a double-blind trial", "abstract"),  # not in the abstract
    "setting": ("Rural villages of southern Mali", "in Mali", "abstract"),  # over 30 chars
}


def test_each_unfit_value_dropped_with_its_warning(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(_answer(BAD)))
    draft = run(_suggest, server, tmp_path)
    d = draft.to_dict()
    assert d["form_fields"] == {} and sorted(d["dropped"]) == sorted(FORM.keys)
    w = "\n".join(d["warnings"])
    assert "Sample size (sample_size) dropped: 'about a hundred' does not fit" in w
    assert "a number expected" in w
    assert "Design (design) dropped: 'crossover' does not fit" in w and "RCT, cohort" in w
    assert "Blinded (blinded) dropped: its quote does not occur in block abstract" in w
    assert "Setting (setting) dropped:" in w and "at most 30 characters" in w
    assert d["fields"]["finding"]["value"] == FINDING["value"]  # the finding survives


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (_answer(GOOD, extra={"value": "x", "quote": "y", "block": "abstract"}), "extra_keys"),
        (_answer({"setting": ("x" * 5_000, "in Mali", "abstract")}), "field_too_long"),
        (json.dumps({"finding": FINDING}), "bad_shape"),
        (
            _answer(GOOD, FINDING | {"quote": "artesunate cures malaria in adults"}),
            "no_finding",
        ),
    ],  # fmt: skip
)
def test_hostile_answers_refused_nothing_saved(model_server_fixture, tmp_path, text, code):
    server = model_server_fixture
    server.script(Scripted(text))

    async def go(ea: EvidenceAssistant) -> Any:
        with pytest.raises(AnswerRefused) as err:
            await _suggest(ea)
        rows, _ = Workspace(ea.providers.store, owner="ann").evidence(study="Malaria")
        return err.value, rows

    err, rows = run(go, server, tmp_path)
    assert err.code == code and rows == []


def test_no_call_without_consent_or_after_the_form_changed(model_server_fixture, tmp_path):
    server = model_server_fixture

    async def go(ea: EvidenceAssistant) -> Any:
        with pytest.raises(ConsentRequired) as none:
            await ea.suggest(PAPER, consent=None, study="Malaria")
        prev = await ea.preview(PAPER, study="Malaria")
        assert "Participants randomised." in prev.notice.text  # the form is part of the text
        request = FormFieldRequest("Malaria", "update", "design", "Design", "choice",
                                   ("RCT", "cohort", "cross-sectional"))  # fmt: skip
        change_field(ea.providers.store, request, "ann")
        with pytest.raises(ConsentRequired) as stale:
            await ea.suggest(PAPER, consent=prev.notice.token, study="Malaria")
        return none.value, stale.value

    none, stale = run(go, server, tmp_path)
    assert none.code == "consent_required" and stale.code == "consent_stale"
    assert server.requests == []


def test_accepting_checks_the_values_again(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(_answer(GOOD)))

    async def go(ea: EvidenceAssistant) -> Any:
        draft = await _suggest(ea)
        with pytest.raises(ValueInvalid) as bad_choice:
            ea.save_form(draft.id, reviewed=True, values={"design": "crossover"})
        with pytest.raises(ValueInvalid) as unknown:
            ea.save_form(draft.id, reviewed=True, values={"dose": "4"})
        change_field(ea.providers.store, FormFieldRequest("Malaria", "up", "design"), "ann")
        with pytest.raises(RefusedError) as changed:
            ea.save_form(draft.id, reviewed=True)
        rows, _ = Workspace(ea.providers.store, owner="ann").evidence(study="Malaria")
        return bad_choice.value, unknown.value, changed.value, rows

    bad_choice, unknown, changed, rows = run(go, server, tmp_path)
    assert bad_choice.field == "design" and unknown.field == "dose"
    assert changed.code == "form_changed" and "revision 1 → 2" in changed.message
    assert rows == []  # nothing recorded by the refused saves


def test_default_form_keeps_the_six_fields(model_server_fixture, tmp_path):
    """A Study without its own form: the standard suggestion, unchanged."""
    server = model_server_fixture
    six = {n: {"value": "", "quote": "", "block": ""} for n in
           ("question", "population", "method", "intervention", "limitations")}  # fmt: skip
    server.script(Scripted(json.dumps(six | {"finding": FINDING})))
    draft = run(_suggest, server, tmp_path, form=None)
    assert draft.to_dict()["form"] is None and set(draft.data["fields"]) == {"finding"}
    assert "fields" in user_payload(server.requests[0].body)
    assert user_payload(server.requests[0].body)["fields"][0] == {
        "name": "question",
        "label": "Research question",
    }
    assert user_payload(server.requests[0].body)["blocks"][0]["text"] == ABSTRACT


def test_another_account_reaches_neither_the_study_form_nor_the_draft(
    model_server_fixture, tmp_path
):
    server = model_server_fixture
    server.script(Scripted(_answer(GOOD)))

    async def go(ea: EvidenceAssistant) -> Any:
        draft = await _suggest(ea)
        study_id = draft.data["study_id"]
        Workspace(ea.providers.store, owner="bob").save_paper(the_paper())
        bob = EvidenceAssistant(ea.providers, owner="bob")
        try:
            with pytest.raises((NotFoundError, RefusedError)) as study:
                await bob.preview(PAPER, study=study_id)
            with pytest.raises(NotFoundError) as other:
                bob.save_form(draft.id, reviewed=True)
        finally:
            bob.close()
        rows, _ = Workspace(ea.providers.store, owner="ann").evidence(study="Malaria")
        return study.value, other.value, rows

    study, other, rows = run(go, server, tmp_path)
    assert other.code == "draft_not_found" and rows == []
    assert "Trial form" not in str(study) and len(server.requests) == 1
