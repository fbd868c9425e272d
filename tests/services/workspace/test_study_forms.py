"""A Study's extraction form on SQLite and PostgreSQL: set by its owner only, evidence
recorded and edited with it (values typed, each error naming its field, the passage
still checked), a form change losing nothing, and the CSV, notebook and ZIP following
the form."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest

from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import get_study_form
from litdesk.core.forms import ValueInvalid, pico_form
from litdesk.core.records import make_paper
from litdesk.services.studies import FormFieldRequest, SetFormRequest
from litdesk.services.studies._forms import change_field, set_form, study_form
from litdesk.services.workspace import (
    Workspace,
    evidence_csv,
    export_study,
    import_study,
    notebook_markdown,
)

ABSTRACT = "In 1,204 adults over 60, aspirin lowered stroke risk (OR 0.82, 95% CI 0.70 to 0.96)."


def _seed(ws: Workspace) -> str:
    ws.create_study("Stroke")
    ws.save_paper(make_paper(pmid="4242", title="Aspirin trial", abstract=ABSTRACT), study="Stroke")
    return ws.study("Stroke").id


def _pico(ws: Workspace, sid: str) -> str:
    set_form(ws.store, SetFormRequest(sid, template="pico"), ws.owner)
    ev = ws.add_evidence(
        "MED-4242",
        passage="aspirin lowered stroke risk",
        source="abstract",
        study="Stroke",
        values={
            "population": "adults over 60",
            "outcome": "stroke",
            "sample_size": "1,204",
            "effect_measure": "odds ratio",
            "effect_value": "0.82",
            "ci_lower": "0.70",
            "ci_upper": "0.96",
        },
    )
    assert ev.evidence.values["sample_size"] == 1204
    assert ev.evidence.values["effect_measure"] == "Odds ratio"
    assert ev.evidence.form_revision == 1 and ev.evidence.finding is None
    assert ev.recheck == "ok"
    return ev.id


def test_default_form_until_one_is_chosen(ws: Workspace):
    sid = _seed(ws)
    view = study_form(ws.store, sid, ws.owner)
    assert not view.stored and view.form.template == "default" and view.can_configure
    ev = ws.add_evidence(
        "MED-4242",
        finding="F",
        passage="aspirin lowered stroke risk",
        source="abstract",
        study="Stroke",
        values={"method": "trial"},
    )
    stored = ev.evidence.model_dump(mode="json")
    assert "values" not in stored and "form_revision" not in stored  # the shape as before
    assert ev.evidence.method == "trial"
    with pytest.raises(ValueInvalid) as err:
        ws.add_evidence("MED-4242", passage="aspirin", source="abstract", study="Stroke")
    assert err.value.field == "finding"
    header = evidence_csv(ws.evidence(study=sid)[0]).splitlines()[0]
    assert header.split(",")[7:13] == [
        "question",
        "population",
        "method",
        "intervention",
        "finding",
        "limitations",
    ]


def test_pico_values_checked_and_exported(ws: Workspace, ws2: Workspace):
    sid = _seed(ws)
    ev_id = _pico(ws, sid)
    with pytest.raises(ValueInvalid) as err:
        ws.add_evidence(
            "MED-4242",
            passage="aspirin",
            source="abstract",
            study="Stroke",
            values={"population": "p", "outcome": "o", "sample_size": "many"},
        )
    assert err.value.field == "sample_size"
    with pytest.raises(ValueInvalid) as err:  # the six fields are not this form's
        ws.add_evidence(
            "MED-4242", finding="F", passage="aspirin", source="abstract", study="Stroke"
        )
    assert err.value.field == "finding"
    with pytest.raises(RefusedError):  # the passage is still checked against the abstract
        ws.add_evidence(
            "MED-4242",
            passage="not in it",
            source="abstract",
            study="Stroke",
            values={"population": "p", "outcome": "o"},
        )
    views, problems = ws.evidence(study=sid)
    assert not problems
    form = ws.form(sid)
    rows = list(csv.DictReader(io.StringIO(evidence_csv(views, form))))
    assert rows[0]["sample_size"] == "1204" and rows[0]["ci_upper"] == "0.96"
    assert rows[0]["passage"] == "aspirin lowered stroke risk" and rows[0]["other_fields"] == ""
    assert "finding" not in rows[0]
    book = notebook_markdown("Stroke", [v.paper for v in views if v.paper], [], views, form)
    assert "**Sample size:** 1204" in book
    # the ZIP follows the form and carries it; recovery restores it
    data = export_study(ws, sid)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert json.loads(zf.read("form.json"))["template"] == "pico"
        assert "effect_measure" in zf.read("evidence.csv").decode().splitlines()[0]
    out = import_study(ws2, data)
    assert ws2.form(out.study_id).keys == pico_form().keys
    recovered, _ = ws2.evidence(study=out.study_id)
    assert recovered[0].evidence.values["ci_lower"] == 0.7
    assert ev_id


def test_a_form_change_loses_nothing(ws: Workspace):
    sid = _seed(ws)
    old = ws.add_evidence(
        "MED-4242",
        finding="Risk fell",
        passage="aspirin lowered stroke risk",
        source="abstract",
        study="Stroke",
        population="adults",
        method="RCT",
    )
    ev_id = _pico(ws, sid)
    # the PICO record under a custom change: remove a field, add one, move one
    change_field(ws.store, FormFieldRequest(sid, "remove", "ci_upper"), ws.owner)
    change_field(
        ws.store,
        FormFieldRequest(sid, "add", "blinded", label="Blinded", type="yesno", required=False),
        ws.owner,
    )
    change_field(ws.store, FormFieldRequest(sid, "up", "outcome"), ws.owner)
    view = study_form(ws.store, sid, ws.owner)
    assert view.form.revision == 4 and view.form.template is None
    assert view.form.keys[:4] == ("population", "intervention", "outcome", "comparator")
    assert "ci_upper" not in view.form.keys and view.form.keys[-1] == "blinded"
    views = {v.id: v for v in ws.evidence(study=sid)[0]}
    assert views[ev_id].evidence.values["ci_upper"] == 0.96  # kept
    rows = {
        r["evidence_id"]: r
        for r in csv.DictReader(io.StringIO(evidence_csv(views.values(), view.form)))
    }
    assert json.loads(rows[ev_id]["other_fields"]) == {"ci_upper": 0.96}
    assert json.loads(rows[old.id]["other_fields"]) == {"finding": "Risk fell", "method": "RCT"}
    assert rows[old.id]["population"] == "adults"
    # editing the old six-field record under the new form keeps its other values
    up = ws.revise_evidence(old.id, {}, {"outcome": "stroke", "blinded": "yes"})
    assert up.evidence.values == {
        "population": "adults",
        "outcome": "stroke",
        "blinded": True,
        "finding": "Risk fell",
        "method": "RCT",
    }
    assert up.evidence.finding is None and up.evidence.form_revision == 4
    again = ws.revise_evidence(ev_id, {"location": "p. 2"}, {"sample_size": ""})
    assert "sample_size" not in again.evidence.values and again.evidence.values["ci_upper"] == 0.96
    with pytest.raises(ValueInvalid):
        ws.revise_evidence(ev_id, {}, {"blinded": "perhaps"})
    # back to the default form: the values stay; a default edit needs the finding
    set_form(ws.store, SetFormRequest(sid, template="default"), ws.owner)
    with pytest.raises(ValueInvalid) as err:
        ws.revise_evidence(ev_id, {}, {"method": "x"})
    assert err.value.field == "finding"
    with ws.store.read() as conn:
        history = [h.action for h in access.list_history(conn, sid)]
    assert history.count("form_changed") == 5


def test_only_the_owner_configures(ws: Workspace):
    from litdesk.adapters.store import accounts as acc

    sid = _seed(ws)
    now = "2026-01-01T00:00:00+00:00"
    with ws.store.write() as conn:
        ann = acc.insert_account(conn, "acct-ann", "ann", "x" * 60, now).id
        bob = acc.insert_account(conn, "acct-bob", "bob", "x" * 60, now).id
        acc.set_member(conn, sid, ann, "editor", "local", now)
    assert study_form(ws.store, sid, ann).can_configure is False
    with pytest.raises(RefusedError):  # an editor records evidence, not the form
        set_form(ws.store, SetFormRequest(sid, template="pico"), ann)
    with pytest.raises(RefusedError):
        change_field(ws.store, FormFieldRequest(sid, "remove", "finding"), ann)
    with pytest.raises(NotFoundError):  # not a member: no such Study
        study_form(ws.store, sid, bob)
    with pytest.raises(NotFoundError):
        change_field(ws.store, FormFieldRequest(sid, "remove", "finding"), bob)
    with ws.store.read() as conn:
        assert get_study_form(conn, sid) is None
    with pytest.raises(InputError):
        SetFormRequest(sid)
    with pytest.raises(InputError):
        FormFieldRequest(sid, "rename", "finding")
