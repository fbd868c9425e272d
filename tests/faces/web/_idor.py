"""Shared pieces of the generated IDOR tests (the JSON API's, from its OpenAPI document, and
the HTML pages' and forms', from the app's routes): ana's private records made over HTTP,
the probes built from a route's parameters and body schema, and the leak checks."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from tests._model_servers import Scripted, ScriptedModelServer, model_server, user_payload
from tests._store_template import store_at_head
from tests.conftest import INDEX_WORKERS_VAR
from tests.faces.web._assist_jobs import settle
from tests.faces.web._library import make_pdfs
from tests.faces.web._oa_citations import write_openalex
from tests.faces.web._pdfchat import follow_chat_job
from tests.faces.web._team import TeamServer, add_accounts, team_server
from tests.faces.web.conftest import write_web_cassette

from litdesk import Settings
from litdesk.adapters.vocab import MESH, package_version

MARKERS = (
    "Ana secret study qx41",
    "ana's secret description qx42",
    "ana secret note qx43",
    "ana secret finding qx44",
)
#: fields that name a record; any other path parameter fails the test (add it here)
RECORD_FIELDS = (
    "paper_id",
    "ref",
    "study",
    "run_id",
    "paper_ids",
    "job_id",
    "draft_id",
    "evidence_id",
    "report_id",
    "build_id",
    "sha",
    "number",
    "live_id",
    "listing",
    "note_id",
    "import_id",
    "item_id",
    "chat_id",
    "record_key",
    "vocabulary",
    "subject_id",
)
#: records shared by every account of the server (the PDF library, a vocabulary's
#: subjects): routes naming one are not checked for 404, only for ana's data
SHARED_FIELDS = ("sha", "vocabulary", "subject_id")
#: the subject ana's evidence is linked to (when MeSH is installed): its page is every
#: account's, the evidence on it only ana's
SUBJECT = ("mesh", "D003920")
#: writes that make the caller's own private record (a note) on a paper it may read
OWN_RECORD_WRITES = {
    ("POST", "/api/v1/papers/{paper_id}/highlights"),
    ("POST", "/api/v1/papers/{paper_id}/comments"),
}
#: routes that write nothing and name no record of anyone (sign-in of bob himself)
EXEMPT = {("POST", "/api/v1/auth/login"), ("POST", "/api/v1/auth/logout")}
PLAIN_VALUES: dict[str, Any] = {
    "name": "renamed by bob",
    "description": "bob's text",
    "comment": "bob was here",
    "text": "tumour growth",
    "finding": "bob's finding",
    "passage": "tumour growth",
    "source": "abstract",
    "status": "read",
    "username": "bob",
    "role": "owner",
    "consent": "sha256:" + "0" * 64,  # a well-formed token of nothing bob was shown
    "format": None,  # each route's default
    "fields": [{"key": "bobs_field", "label": "Bob's field"}],  # a well-formed form
    # a well-formed Zotero Web API target (a plan only: the probes never confirm a push)
    "library": "users/12345",
    "api_key": "bobskey0123456789abcdefg",
}
#: POSTs that read a Study a viewer may read, drafting for the viewer alone (a summary is
#: the viewer's own draft; saving it into the Study as a report needs an editor)
VIEWER_DRAFTS = {
    ("POST", "/api/v1/studies/{ref}/summary/notice"),
    ("POST", "/api/v1/studies/{ref}/summary"),
    # a push reads a Study the viewer may read and writes only to the viewer's own Zotero
    ("POST", "/api/v1/zotero/pushes"),
}


@dataclass
class AnaRecords:
    private_paper: str
    study_paper: str
    study_id: str
    study_name: str
    run_id: str
    file: str = ""
    values: dict[str, list[Any]] = field(default_factory=dict)
    #: the ids of the works ana's citation listing shows (``values["listing"]``)
    listed: list[str] = field(default_factory=list)
    #: the papers of ana's Study: her kept run's hits (a kept run's hits are its papers)
    study_papers: list[str] = field(default_factory=list)


@dataclass
class Served:
    team: TeamServer
    model: ScriptedModelServer
    ids: dict[str, str]

    def signed_in(self, username: str) -> Any:
        return self.team.signed_in(username)


def _model_settings(settings: Settings, model: ScriptedModelServer) -> Settings:
    return settings.model_copy(
        update={
            "llm_backend": "openai",
            "chat_model": "scripted-model",
            "openai_base_url": model.base_url,
            "openai_api_key": SecretStr("sk-openai-TESTSECRET-idor"),
            "assist_spacing_seconds": 0,
        }
    )


@pytest.fixture
def server(team_settings: Settings, cassette: Path) -> Iterator[Served]:
    write_openalex(cassette)  # ana's citation listing (references of OpenAlex work W100)
    with model_server("openai") as model:
        settings = _model_settings(team_settings, model)
        ids = add_accounts(settings, "ana", "bob")
        with team_server(settings, cassette) as running:
            yield Served(running, model, ids)


#: the accounts of a module's shared server: ana, and one prober per test (each test signs
#: in its own, so what one test's prober makes or is given is another account's)
SHARED_ACCOUNTS = ("ana", "bob", "carol", "dave")
#: the settings variables a shared server keeps from the environment (as ``tmp_settings``)
_KEPT = {"LITDESK_FIXTURES", "LITDESK_TEST_POSTGRES_URL", INDEX_WORKERS_VAR}


@dataclass
class SharedAna:
    """A module's team server (per backend) with ana's records made once, by the first test
    that asks (:meth:`records`, under that test's fixtures), and her signed-in client (her
    chat session is its cookie)."""

    served: Served
    folder: Path
    stack: ExitStack
    made: AnaRecords | None = None
    client: httpx.Client | None = None

    def records(self) -> tuple[httpx.Client, AnaRecords]:
        """ana's client and a copy of her records (a test may rebind its ``values``)."""
        if self.made is None:
            self.client = self.stack.enter_context(self.served.signed_in("ana"))
            self.made = make_ana_records(self.client, self.served.model, self.folder / "pdfs")
        assert self.client is not None
        return self.client, copy.deepcopy(self.made)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def shared_ana(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedAna]:
    """The ``server`` fixture's team server, model server and settings, once per module and
    backend, for tests that each probe as an account of their own (:data:`SHARED_ACCOUNTS`)
    and write nothing of ana's the others assert on. The accounts' hashes are made with the
    tests' cheap Argon2 parameters (the autouse fixture setting them is per test)."""
    from argon2 import PasswordHasher

    from litdesk.services.accounts import _passwords

    place = tmp_path_factory.mktemp("idor-shared")
    cassette = write_web_cassette(place / "cassette")
    write_openalex(cassette)
    with ExitStack() as stack:
        mp = stack.enter_context(pytest.MonkeyPatch.context())
        for key in list(os.environ):  # as tmp_settings: no settings from the host
            if key.startswith("LITDESK_") and key not in _KEPT:
                mp.delenv(key)
        mp.setenv(INDEX_WORKERS_VAR, "1")  # as the suite's autouse fixture
        url = store_at_head(request, place / "team" / "litdesk.sqlite3", stack.callback)
        model = stack.enter_context(model_server("openai"))
        settings = _model_settings(
            Settings(
                data_dir=place / "data",
                database_url=url,
                login_max_failures_account=3,
                login_max_failures_address=50,
            ),
            model,
        )
        with pytest.MonkeyPatch.context() as hashes:
            hashes.setattr(_passwords, "_HASHER", PasswordHasher(time_cost=1, memory_cost=1024))
            ids = add_accounts(settings, *SHARED_ACCOUNTS)
        running = stack.enter_context(team_server(settings, cassette))
        yield SharedAna(Served(running, model, ids), place, stack)


def _model_answer(body: dict[str, Any]) -> Scripted:
    """A verified answer to what litdesk sent: an evidence suggestion quoting the paper's
    abstract, or a Study summary quoting the Study's description (ana's secret)."""
    try:
        payload = user_payload(body)
    except json.JSONDecodeError:  # a question of the paper chat or a report build
        return Scripted("No answer here.")
    if "blocks" in payload:  # evidence extraction
        block = payload["blocks"][0]
        quote = block["text"][:40]
        fields = {n: {"value": "", "quote": "", "block": ""} for n in _EVIDENCE_FIELDS}
        fields["finding"] = {"value": MARKERS[3], "quote": quote, "block": block["id"]}
        return Scripted(json.dumps(fields))
    study = next(s for s in payload["sources"] if s["kind"] == "study")
    point = {
        "text": MARKERS[1],
        "citations": [{"source": study["id"], "quote": "secret description qx42"}],
    }
    return Scripted(json.dumps({"overview": [point], "findings": [], "gaps": [], "next_steps": []}))


_EVIDENCE_FIELDS = ("question", "population", "method", "intervention", "finding", "limitations")


def _ana_assisted(ana: httpx.Client, model: ScriptedModelServer, paper: str, study: str) -> dict:
    """ana's assistance records: a draft saved as private evidence (with provenance), a
    Study summary draft and the Study report saved from it."""
    model.respond_with(_model_answer)
    r = ana.post("/api/v1/assist/extract/preview", json={"paper_id": paper})
    assert r.status_code == 200, r.text
    token = r.json()["consent"]["token"]
    extract = settle(
        ana, ana.post("/api/v1/assist/extract", json={"paper_id": paper, "consent": token})
    )
    assert extract.status == 200 and extract.job, extract.body
    draft = extract.body["draft_id"]
    r = ana.post(f"/api/v1/assist/drafts/{draft}/save", json={"reviewed": True})
    assert r.status_code == 200, r.text
    evidence = r.json()["evidence_id"]
    base = f"/api/v1/studies/{study}"
    r = ana.post(f"{base}/summary/notice", json={"focus": "overview"})
    assert r.status_code == 200, r.text
    summary = settle(
        ana, ana.post(f"{base}/summary", json={"focus": "overview", "consent": r.json()["token"]})
    )
    assert summary.status == 200 and summary.job, summary.body
    summary_draft = summary.body["draft_id"]
    r = ana.post(f"{base}/reports", json={"draft_id": summary_draft, "reviewed": True})
    assert r.status_code == 200, r.text
    return {
        "draft_id": [draft, summary_draft],
        "evidence_id": [evidence],
        "report_id": [r.json()["id"]],
        "job_id": [extract.job["id"], summary.job["id"]],  # the model calls' jobs
    }


def _ana_library(ana: httpx.Client, folder: Path) -> dict:
    """A PDF ana uploads into the (shared) library, its index job, ana's chat scope and a
    report build job of hers (cancelled: its id is what matters)."""
    pdf = make_pdfs(folder, 1, pages=1, stem="ana")[0]
    data = pdf.read_bytes()
    r = ana.post("/api/v1/library/uploads", files=[("files", (pdf.name, data, "application/pdf"))])
    assert r.status_code == 200, r.text
    upload = r.json()
    assert [s["file"] for s in upload["stored"]] == [pdf.name], upload
    index_job = upload["job"]["id"]
    r = ana.post("/api/v1/chat/scope", json={"papers": [pdf.name]})
    assert r.status_code == 200, r.text
    r = ana.post("/api/v1/chat/ask", json={"question": MARKERS[2]})
    assert r.status_code == 202, r.text
    chat_job = follow_chat_job(ana, r.json()["id"])
    assert chat_job["state"] == "done" and chat_job["round"] == 1, chat_job
    r = ana.get("/api/v1/chat/history")  # the chat of ana's history (issue 32)
    assert r.status_code == 200 and len(r.json()["chats"]) == 1, r.text
    chat_id = r.json()["chats"][0]["id"]
    r = ana.post("/api/v1/reports/build", json={"papers": [pdf.name], "questions": [MARKERS[2]]})
    assert r.status_code == 202, r.text
    build = r.json()["id"]
    ana.post(f"/api/v1/reports/jobs/{build}/cancel")  # its outcome does not matter here
    return {
        "sha": [hashlib.sha256(data).hexdigest()],
        "job_id": [index_job, build, chat_job["id"]],
        "build_id": [build],
        "number": [1],
        "chat_id": [chat_id],
        "file": pdf.name,
    }


def _ana_trash(ana: httpx.Client, run_id: str, paper: str) -> dict:
    """ana's second Study with an import of hers and an item in its trash (a comment she
    deleted): the records the edit/delete/restore routes name."""
    r = ana.post("/api/v1/studies", json={"name": "Ana second study"})
    assert r.status_code == 200, r.text
    second = r.json()["id"]
    ris = b"TY  - JOUR\nTI  - Ana imported\nPY  - 2024\nDO  - 10.5555/ana.1\nER  - \n"
    files = [("files", ("ana.ris", ris, "application/x-research-info-systems"))]
    r = ana.post("/api/v1/imports", params={"study": second}, files=files)
    assert r.status_code == 200, r.text
    import_id = r.json()["imported"][0]["import_id"]
    imported = [i for i in r.json()["imported"][0]["paper_ids"] if i]
    r = ana.post(
        "/api/v1/selection/save", json={"run_id": run_id, "paper_ids": [paper], "study": second}
    )
    assert r.status_code == 200, r.text
    r = ana.post(f"/api/v1/papers/{paper}/comments", json={"comment": "gone", "study": second})
    assert r.status_code == 200, r.text
    note = next(n["id"] for n in r.json()["notes"] if n["comment"] == "gone")
    r = ana.post(f"/api/v1/notes/{note}/delete")
    assert r.status_code == 200, r.text
    return {"import_id": [import_id], "item_id": [r.json()["trash_id"]], "imported": imported}


def make_ana_records(ana: httpx.Client, model: ScriptedModelServer, folder: Path) -> AnaRecords:
    r = ana.get("/api/v1/search", params={"q": "tumour growth"})
    assert r.status_code == 200, r.text
    found = r.json()
    run_id = found["run"]["id"]
    ids = [card["paper"]["id"] for card in found["cards"]]
    assert len(ids) >= 3
    # her private paper is one the Study's kept run did not find (the search's next page):
    # the kept run's hits all become the Study's papers
    more = ana.get(
        "/api/v1/search",
        params={"q": "tumour growth", "cursor": found["paging"]["next_cursor"]},
    )
    assert more.status_code == 200, more.text
    private, in_study = more.json()["cards"][0]["paper"]["id"], ids[2]
    assert private not in ids
    r = ana.post(
        "/api/v1/selection/save", json={"run_id": more.json()["run"]["id"], "paper_ids": [private]}
    )
    assert r.status_code == 200 and r.json()["saved"] == [private], r.text
    r = ana.post("/api/v1/studies", json={"name": MARKERS[0], "description": MARKERS[1]})
    assert r.status_code == 200, r.text
    study_id = r.json()["id"]
    r = ana.post(
        "/api/v1/selection/save",
        json={"run_id": run_id, "paper_ids": [in_study], "study": study_id},
    )
    assert r.status_code == 200, r.text
    assert ana.post(f"/api/v1/runs/{run_id}/save", json={"study": study_id}).status_code == 200
    note_ids: list[str] = []
    for paper in (private, in_study):
        r = ana.post(f"/api/v1/papers/{paper}/comments", json={"comment": MARKERS[2]})
        assert r.status_code == 200, r.text
        note_ids += [n["id"] for n in r.json()["notes"] if n["id"] not in note_ids]
        linked = ["{}:{}".format(*SUBJECT)] if package_version(MESH) is not None else []
        r = ana.post(
            f"/api/v1/papers/{paper}/evidence",
            json={
                "finding": MARKERS[3],
                "passage": "tumour growth",
                "source": "abstract",
                "subjects": linked,
            },
        )
        assert r.status_code == 200, r.text
        assert ana.post(f"/api/v1/papers/{paper}/status", json={"status": "reading"}).is_success
    r = ana.post(f"/api/v1/studies/{study_id}/dedup/runs")
    assert r.status_code == 200, r.text
    job_id = r.json()["id"]
    r = ana.post("/api/v1/search/live", json={"q": "tumour growth"})
    assert r.status_code == 202, r.text
    live_id = r.json()["id"]
    r = ana.get("/api/v1/citations", params={"mode": "references", "ids": "OAX-W100"})
    assert r.status_code == 200 and r.json()["papers"], r.text
    listing = r.json()["listing"]
    # ana screens her Study's record, her note a secret (a member of nothing sees no decision)
    card = ana.get(f"/api/v1/studies/{study_id}/screening/next")
    assert card.status_code == 200, card.text
    record_key = card.json()["record_key"]
    decided = ana.post(
        f"/api/v1/studies/{study_id}/screening/decisions",
        json={"record_key": record_key, "verdict": "include", "note": MARKERS[1]},
    )
    assert decided.status_code == 200, decided.text
    edits = _ana_trash(ana, run_id, in_study)
    records = AnaRecords(private, in_study, study_id, MARKERS[0], run_id, study_papers=ids)
    assisted = _ana_assisted(ana, model, private, study_id)
    library = _ana_library(ana, folder)
    records.file = library.pop("file")
    records.values = (
        assisted
        | library
        | {
            "job_id": [job_id, *library["job_id"], *assisted["job_id"]],
            "paper_id": [private, in_study],
            "paper_ids": [[private, in_study]],
            "ref": [study_id, MARKERS[0]],
            "study": [study_id],
            "run_id": [run_id],
            "live_id": [live_id],
            "listing": [listing],
            "note_id": note_ids,
            "record": [record_key],  # the screening pages' record (added by hand)
            "record_key": [record_key],  # the record ana screened
            "vocabulary": [SUBJECT[0]],  # a subject's page (its evidence: ana's only)
            "subject_id": [SUBJECT[1]],
        }
        | edits
    )
    records.listed = [p["id"] for p in r.json()["papers"]]
    return records


def _resolve(schema: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = doc["components"]["schemas"][name]
    if "anyOf" in schema:  # Optional[X]: the non-null branch
        branches = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _resolve(branches[0], doc) if branches else schema
    return schema


def _plain(name: str, schema: dict[str, Any], doc: dict[str, Any]) -> Any:
    schema = _resolve(schema, doc)
    if name in PLAIN_VALUES and PLAIN_VALUES[name] is not None:
        return PLAIN_VALUES[name]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "boolean":
        return False
    if kind == "array":
        return [_plain(name, schema.get("items", {}), doc)] if schema.get("minItems") else []
    if kind == "object":
        return {}
    plain = "x" * max(1, int(schema.get("minLength", 1)))
    if "pattern" in schema:  # a well-formed value, so the route reaches its access check
        for candidate in (plain, "x" * 16, "x" * 32, "MED-40000001", "a1" * 16):
            if re.search(schema["pattern"], candidate):
                return candidate
    return plain


#: request bodies the probes send: JSON (the API) and the pages' forms (sent without JS)
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"


@dataclass
class Probe:
    method: str
    path: str
    url: str
    query: dict[str, Any]
    body: dict[str, Any] | None
    multipart: list[str]
    record: bool
    form: bool = False  #: ``body`` is sent as a form (with ``multipart``: its other fields)
    named: dict[str, Any] = field(default_factory=dict)  #: the record fields and ana's values

    def label(self) -> str:
        return f"{self.method} {self.path} → {self.url} query={self.query} body={self.body}"


def _binary(prop: dict[str, Any], doc: dict[str, Any]) -> bool:
    resolved = _resolve(prop, doc)
    items = _resolve(resolved.get("items", {}), doc)
    return "binary" in (resolved.get("format"), items.get("format")) or bool(
        resolved.get("contentMediaType") or items.get("contentMediaType")
    )


def build_probes(
    doc: dict[str, Any],
    ana: AnaRecords,
    *,
    expand: tuple[str, ...] = (),
    records: tuple[str, ...] = RECORD_FIELDS,
) -> list[Probe]:
    """One probe per operation of ``doc`` and combination of ana's values for the record
    fields it names (``records``); a body field in ``expand`` (a form's ``action``) gives
    one probe per value of its enum."""
    out: list[Probe] = []
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            method = method.upper()
            if (method, path) in EXEMPT:
                continue
            params = op.get("parameters", [])
            path_params = [p["name"] for p in params if p["in"] == "path"]
            unknown = [p for p in path_params if p not in ana.values]
            assert not unknown, (
                f"{method} {path}: path parameter(s) {unknown} unknown to the IDOR test; "
                "add them to RECORD_FIELDS and AnaRecords.values"
            )
            query_fixed: dict[str, Any] = {}
            query_records: list[str] = []
            for p in params:
                if p["in"] != "query":
                    continue
                if p["name"] in records:
                    query_records.append(p["name"])
                elif p.get("required"):
                    query_fixed[p["name"]] = _plain(p["name"], p.get("schema", {}), doc)
            patterns: dict[str, str] = {
                p["name"]: _resolve(p.get("schema", {}), doc).get("pattern", "")
                for p in params
                if p["in"] in ("path", "query")
            }
            body: dict[str, Any] | None = None
            body_records: list[str] = []
            multipart: list[str] = []
            variants: list[dict[str, Any]] = [{}]
            content = op.get("requestBody", {}).get("content", {})
            kind = next((k for k in ("application/json", FORM, MULTIPART) if k in content), None)
            if kind is not None:
                schema = _resolve(content[kind]["schema"], doc)
                body = {}
                for name, prop in schema.get("properties", {}).items():
                    if kind == MULTIPART and _binary(prop, doc):
                        multipart.append(name)
                    elif name in records:
                        body_records.append(name)
                        patterns[name] = _resolve(prop, doc).get("pattern", "")
                    elif name in expand and "enum" in _resolve(prop, doc):
                        variants = [{name: v} for v in _resolve(prop, doc)["enum"]]
                    elif name in schema.get("required", []):
                        body[name] = _plain(name, prop, doc)
                if kind == MULTIPART and not body:
                    body = None
            # one probe per combination of ana's values for the record fields named
            combos: list[dict[str, Any]] = [{}]
            for name in path_params + query_records + body_records:
                values = _fitting(ana, name, patterns.get(name, ""))
                assert values, f"{method} {path}: none of ana's records fits {name!r}"
                combos = [c | {name: v} for c in combos for v in values]
            for combo in combos:
                url = path
                for name in path_params:
                    url = url.replace("{" + name + "}", str(combo[name]))
                query = query_fixed | {n: combo[n] for n in query_records}
                # a route naming a library file is about the shared library (its other
                # parameters, a page number, belong to that file)
                named = path_params + query_records + body_records
                record = bool(named) and not any(n in SHARED_FIELDS for n in named)
                for variant in variants:
                    full = (
                        None
                        if body is None
                        else body | variant | {n: combo[n] for n in body_records}
                    )
                    out.append(
                        Probe(
                            method,
                            path,
                            url,
                            query,
                            full,
                            multipart,
                            record,
                            form=kind in (FORM, MULTIPART),
                            named=dict(combo),
                        )
                    )
    # reads first, while bob has made nothing of his own (his chat round 1 would be his)
    return sorted(out, key=lambda p: p.method != "GET")


def _fitting(ana: AnaRecords, name: str, pattern: str) -> list[Any]:
    """ana's values for ``name``; when the field's pattern refuses them (a dedup run id is
    not a search run id), ana's other record ids that fit it."""
    if not pattern:
        return list(ana.values[name])
    fits = [v for v in ana.values[name] if isinstance(v, str) and re.search(pattern, v)]
    if fits:
        return fits
    others = [v for vs in ana.values.values() for v in vs if isinstance(v, str)]
    return list(dict.fromkeys(v for v in others if re.search(pattern, v)))


def send(c: httpx.Client, probe: Probe) -> httpx.Response:
    kw: dict[str, Any] = {"params": probe.query}
    if probe.body is not None:
        kw["data" if probe.form else "json"] = probe.body
    if probe.multipart:
        ris = b"TY  - JOUR\nTI  - A probe\nPY  - 2024\nER  - \n"
        kw["files"] = [
            (name, ("probe.ris", ris, "application/octet-stream")) for name in probe.multipart
        ]
    return c.request(probe.method, probe.url, **kw)


def leaks(response: httpx.Response) -> list[str]:
    return leaks_text(response.content.decode("utf-8", "replace"))


def leaks_text(text: str) -> list[str]:
    return [m for m in MARKERS if m in text or m.replace("'", "&#39;") in text]


def study_members(ana_client: httpx.Client, ana: AnaRecords) -> list[Any]:
    """The members of ana's Study, as ana reads them."""
    return list(ana_client.get(f"/api/v1/studies/{ana.study_id}/members").json()["members"])


def assert_ana_unchanged(
    ana_client: httpx.Client,
    bob: httpx.Client,
    ana: AnaRecords,
    members: list[Any] | None = None,
) -> None:
    """ana's records as she made them (read through the API as ana), bob saved nothing;
    ``members``: her Study's members before bob's probes (default: none; on a shared
    server, those other tests' accounts were given)."""
    study = ana_client.get(f"/api/v1/studies/{ana.study_id}").json()
    assert study["name"] == MARKERS[0]
    assert study["description"] == MARKERS[1]
    statuses = {p["id"]: p["status"] for p in study["papers"]}
    assert sorted(statuses) == sorted(set(ana.study_papers))  # her kept run's hits, no more
    assert [(k, v) for k, v in statuses.items() if v] == [(ana.study_paper, "reading")]
    assert len(study["runs"]) == 1
    assert study_members(ana_client, ana) == (members or [])
    notes = ana_client.get("/api/v1/notebook").json()
    assert sorted(n["comment"] for n in notes["notes"]) == [MARKERS[2], MARKERS[2]]
    evidence = ana_client.get("/api/v1/evidence").json()
    assert len(evidence["evidence"]) == 3  # two by hand, one from the assistant
    (draft,) = [d for d in ana.values["draft_id"] if d.startswith("ad-")]
    assert ana_client.get(f"/api/v1/assist/drafts/{draft}").status_code == 200
    (evidence_id,) = ana.values["evidence_id"]
    prov = ana_client.get(f"/api/v1/assist/evidence/{evidence_id}/provenance")
    assert prov.status_code == 200 and prov.json()["ok"], prov.text
    reports = ana_client.get(f"/api/v1/studies/{ana.study_id}/reports").json()["reports"]
    assert [r["id"] for r in reports] == ana.values["report_id"]
    saved = ana_client.get("/api/v1/saved").json()
    # + her Study's (her kept run's hits) and her second Study's
    mine = {ana.private_paper, *ana.study_papers, *ana.values["imported"]}
    assert {r["id"] for r in saved["papers"]} == mine
    assert bob.get("/api/v1/saved").json()["total_saved"] == 0
