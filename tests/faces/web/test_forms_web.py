"""A Study's extraction form over HTTP: the form page (template, add/edit/remove/move a
field, without JavaScript), its JSON twins, the reader's evidence form rendered from the
Study's form, the evidence table and CSV following it."""

from __future__ import annotations

import csv
import io
import re

from tests.faces.web._server import Running, csrf_from
from tests.faces.web.test_api import _save_all


def _passage(c, pid: str) -> str:
    abstract = c.get(f"/api/v1/papers/{pid}").json()["paper"]["abstract"]
    return abstract[abstract.index("growth slowed") :][:13]


def test_form_api_and_evidence_with_the_form(running: Running) -> None:
    with running.writer() as c:
        ids = _save_all(c)
        study = c.post("/api/v1/studies", json={"name": "Forms"}).json()
        sid = study["id"]
        shown = c.get(f"/api/v1/studies/{sid}/form").json()
        assert shown["chosen"] is False and shown["form"]["template"] == "default"
        assert shown["can_configure"] and shown["study"]["name"] == "Forms"
        bad = c.post(f"/api/v1/studies/{sid}/form/template", json={"template": "cochrane"})
        assert bad.status_code == 422
        clash = c.put(
            f"/api/v1/studies/{sid}/form",
            json={"fields": [{"key": "a", "label": "A"}, {"key": "a", "label": "B"}]},
        )
        assert clash.status_code == 400 and clash.json()["code"] == "field_key"
        own = c.put(
            f"/api/v1/studies/{sid}/form",
            json={"name": "Own", "fields": [{"key": "dose", "label": "Dose", "type": "number"}]},
        )
        assert own.status_code == 200 and own.json()["form"]["name"] == "Own"
        pico = c.post(f"/api/v1/studies/{sid}/form/template", json={"template": "pico"})
        assert pico.status_code == 200, pico.text
        assert pico.json()["form"]["revision"] == 2
        added = c.post(
            f"/api/v1/studies/{sid}/form/fields",
            json={"action": "add", "key": "blinded", "label": "Blinded", "type": "yesno"},
        )
        assert added.status_code == 200, added.text
        assert added.json()["form"]["fields"][-1]["key"] == "blinded"
        clash = c.post(
            f"/api/v1/studies/{sid}/form/fields",
            json={"action": "add", "key": "blinded", "label": "Again"},
        )
        assert clash.status_code == 400 and "twice" in clash.json()["message"]
        pid = ids[1]
        ok = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={
                "passage": _passage(c, pid),
                "study": sid,
                "values": {
                    "population": "mice",
                    "outcome": "growth",
                    "sample_size": "24",
                    "blinded": "yes",
                },
            },
        )
        assert ok.status_code == 200, ok.text
        rec = ok.json()["evidence"][0]
        assert rec["values"] == {
            "population": "mice",
            "outcome": "growth",
            "sample_size": 24,
            "blinded": True,
        }
        assert rec["recheck"] == "ok"
        wrong = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={
                "passage": _passage(c, pid),
                "study": sid,
                "values": {"population": "mice", "outcome": "o", "sample_size": "a dozen"},
            },
        )
        assert wrong.status_code == 400 and wrong.json()["details"]["field"] == "sample_size"
        table = c.get("/api/v1/evidence", params={"study": sid}).json()
        assert [k for k, _ in table["evidence_fields"]][:2] == ["population", "intervention"]
        assert table["evidence"][0]["field_values"]["blinded"] == "yes"
        rows = list(
            csv.DictReader(io.StringIO(c.get("/evidence/export", params={"study": sid}).text))
        )
        assert rows[0]["sample_size"] == "24" and rows[0]["blinded"] == "yes"
        # removing a field keeps the recorded value, shown as not in the current form
        c.post(
            f"/api/v1/studies/{sid}/form/fields", json={"action": "remove", "key": "blinded"}
        ).raise_for_status()
        page = c.get("/evidence", params={"study": sid}).text
        assert "Not in the current form" in page and "blinded:" in page
        reader = c.get(f"/paper/{pid}", params={"study": sid}).text
        assert "(not in the current form)" in reader
        # the reader's evidence form is the Study's form
        assert 'name="field.sample_size"' in reader and 'name="field.blinded"' not in reader
        assert (
            '<option value="Odds ratio">' in reader and f'<option value="{sid}" selected>' in reader
        )
        plain = c.get(f"/paper/{pid}").text
        plain = plain[plain.index('id="evidence-form"') :]  # the form to record evidence
        assert 'name="field.finding"' in plain and 'name="field.sample_size"' not in plain


def test_form_page_without_javascript(running: Running) -> None:
    with running.writer() as c:
        ids = _save_all(c)
        sid = c.post("/api/v1/studies", json={"name": "Page"}).json()["id"]
        page = c.get(f"/study/{sid}/form")
        assert page.status_code == 200 and "<h1>Extraction form</h1>" in page.text
        assert f'<a href="/study/{sid}">Page</a></nav>' in page.text  # the Study in the crumbs
        assert "the default: no form chosen yet" in page.text
        assert f'href="/study/{sid}/form"' in c.get(f"/study/{sid}").text
        token = csrf_from(page.text)
        headers = {"content-type": "application/x-www-form-urlencoded"}

        def post(path: str, data: dict[str, str]):
            return c.post(path, data={"csrf_token": token, **data}, headers=headers)

        r = post(f"/study/{sid}/form/template", {"template": "rob2"})
        assert r.status_code == 303 and r.headers["location"] == f"/study/{sid}/form"
        text = c.get(f"/study/{sid}/form").text
        assert "Risk of bias (RoB 2)" in text and "Some concerns" in text
        r = post(
            f"/study/{sid}/form/fields",
            {
                "action": "add",
                "key": "notes_on_trial",
                "label": "Notes",
                "type": "choice",
                "options": "first\nsecond",
                "help": "Pick one",
            },
        )
        assert r.status_code == 303 and r.headers["location"].endswith("#field-notes_on_trial")
        r = post(
            f"/study/{sid}/form/fields",
            {
                "action": "update",
                "key": "notes_on_trial",
                "label": "Trial notes",
                "type": "text",
                "required": "true",
                "max_length": "300",
            },
        )
        assert r.status_code == 303
        r = post(f"/study/{sid}/form/fields", {"action": "up", "key": "notes_on_trial"})
        assert r.status_code == 303
        form = c.get(f"/api/v1/studies/{sid}/form").json()["form"]
        keys = [f["key"] for f in form["fields"]]
        assert keys[-2] == "notes_on_trial" and form["revision"] == 4
        last = form["fields"][-2]
        assert last["label"] == "Trial notes" and last["required"] and last["max_length"] == 300
        r = post(f"/study/{sid}/form/fields", {"action": "remove", "key": "notes_on_trial"})
        assert r.status_code == 303
        refused = post(f"/study/{sid}/form/fields", {"action": "remove", "key": "nope"})
        assert refused.status_code == 400
        # a reader page follows: RoB 2 judgements as choices
        reader = c.get(f"/paper/{ids[0]}", params={"study": sid}).text
        assert re.search(r'<select id="ev-d1_judgement" name="field.d1_judgement"', reader)
        # recording through the page form (no JavaScript)
        pid = ids[1]
        r = post(
            f"/paper/{pid}/evidence",
            {
                "study": sid,
                "passage": _passage(c, pid),
                "source": "abstract",
                "field.d1_judgement": "Low risk",
                "field.overall_judgement": "Some concerns",
            },
        )
        assert r.status_code == 303 and f"study={sid}" in r.headers["location"]
        rec = c.get("/api/v1/evidence", params={"study": sid}).json()["evidence"][0]
        assert rec["values"] == {"d1_judgement": "Low risk", "overall_judgement": "Some concerns"}


def test_form_evidence_edited_on_the_web(running: Running) -> None:
    """Evidence recorded with a Study's form is edited in the reader with that form's
    fields (their help, choices and yes/no, filled with the record's values), and over the
    JSON API by field key."""
    with running.writer() as c:
        ids = _save_all(c)
        sid = c.post("/api/v1/studies", json={"name": "Edit forms"}).json()["id"]
        c.post(f"/api/v1/studies/{sid}/form/template", json={"template": "pico"}).raise_for_status()
        c.post(
            f"/api/v1/studies/{sid}/form/fields",
            json={"action": "add", "key": "blinded", "label": "Blinded", "type": "yesno",
                  "help": "Were assessors blinded?"},
        ).raise_for_status()  # fmt: skip
        pid = ids[1]
        ok = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={
                "passage": _passage(c, pid),
                "study": sid,
                "values": {
                    "population": "mice",
                    "outcome": "growth",
                    "sample_size": "24",
                    "blinded": "no",
                },
            },
        )
        assert ok.status_code == 200, ok.text
        eid = ok.json()["evidence"][0]["id"]
        reader = c.get(f"/paper/{pid}", params={"study": sid}).text
        edit = reader[reader.index(f'action="/evidence/{eid}/edit"') :]
        edit = edit[: edit.index("</form>")]
        assert f'id="ee-{eid}-population"' in edit and ">mice</textarea>" in edit
        assert 'name="field.sample_size"' in edit and 'value="24"' in edit
        assert '<option value="no" selected>no</option>' in edit
        assert "Were assessors blinded?" in edit and 'name="field.finding"' not in edit
        assert "litdesk evidence update" not in reader  # no longer sent to the CLI
        token = csrf_from(reader)
        r = c.post(
            f"/evidence/{eid}/edit",
            data={
                "csrf_token": token,
                "field.population": "adult mice",
                "field.sample_size": "30",
                "field.blinded": "yes",
                "field.intervention": "",
            },
            headers={"content-type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        assert r.headers["location"] == f"/paper/{pid}?study={sid}#evidence"
        rec = next(e for e in c.get(f"/api/v1/papers/{pid}").json()["evidence"] if e["id"] == eid)
        assert rec["values"]["population"] == "adult mice"
        assert (rec["values"]["sample_size"], rec["values"]["blinded"]) == (30, True)
        bad = c.post(
            f"/evidence/{eid}/edit",
            data={"csrf_token": token, "field.sample_size": "thirty"},
            headers={"content-type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )
        assert bad.status_code == 400, bad.text
        api = c.post(f"/api/v1/evidence/{eid}/edit", json={"values": {"sample_size": 31}})
        assert api.status_code == 200, api.text
        assert api.json()["values"]["sample_size"] == 31
        empty = c.post(f"/api/v1/evidence/{eid}/edit", json={})  # its owner: told why
        assert empty.status_code == 400 and empty.json()["code"] == "arguments", empty.text
