"""IDOR tests generated from the OpenAPI document (``/api/v1/openapi.json``), on SQLite and
PostgreSQL: account ana keeps private records (a saved paper, a note, evidence, a search
run, a Study); account bob, a member of nothing, calls EVERY route that names a record —
a path parameter, or a query/body field in :data:`RECORD_FIELDS` — with ana's ids and a body
built from the route's own schema. Each answer must be 403 or 404 and carry none of ana's
data; routes without a record parameter are read as bob and must not show ana's data
either; afterwards ana's records are unchanged.

A route added later is picked up on its own. A path parameter this test cannot fill fails
the test naming the route: add the parameter to :data:`RECORD_FIELDS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.faces.web._team import TeamServer, add_accounts, team_server
from tests.faces.web.test_team_auth import team_settings  # noqa: F401 - fixture re-export

from litdesk import Settings

#: ana's private data; none of it may appear in an answer to bob
MARKERS = (
    "Ana secret study qx41",
    "ana's secret description qx42",
    "ana secret note qx43",
    "ana secret finding qx44",
)
#: fields that name a record; any other path parameter fails the test (add it here)
RECORD_FIELDS = ("paper_id", "ref", "study", "run_id", "paper_ids", "job_id")
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
    "format": None,  # each route's default
}


@dataclass
class AnaRecords:
    private_paper: str
    study_paper: str
    study_id: str
    study_name: str
    run_id: str
    values: dict[str, list[Any]] = field(default_factory=dict)


@pytest.fixture
def server(team_settings: Settings, cassette: Path) -> Iterator[TeamServer]:  # noqa: F811
    add_accounts(team_settings, "ana", "bob")
    with team_server(team_settings, cassette) as running:
        yield running


def _ana_records(ana: httpx.Client) -> AnaRecords:
    r = ana.get("/api/v1/search", params={"q": "tumour growth"})
    assert r.status_code == 200, r.text
    found = r.json()
    run_id = found["run"]["id"]
    ids = [card["paper"]["id"] for card in found["cards"]]
    assert len(ids) >= 3
    private, in_study = ids[1], ids[2]
    r = ana.post("/api/v1/selection/save", json={"run_id": run_id, "paper_ids": [private]})
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
    for paper in (private, in_study):
        r = ana.post(f"/api/v1/papers/{paper}/comments", json={"comment": MARKERS[2]})
        assert r.status_code == 200, r.text
        r = ana.post(
            f"/api/v1/papers/{paper}/evidence",
            json={"finding": MARKERS[3], "passage": "tumour growth", "source": "abstract"},
        )
        assert r.status_code == 200, r.text
        assert ana.post(f"/api/v1/papers/{paper}/status", json={"status": "reading"}).is_success
    r = ana.post(f"/api/v1/studies/{study_id}/dedup/runs")
    assert r.status_code == 200, r.text
    job_id = r.json()["id"]
    records = AnaRecords(private, in_study, study_id, MARKERS[0], run_id)
    records.values = {
        "job_id": [job_id],
        "paper_id": [private, in_study],
        "paper_ids": [[private, in_study]],
        "ref": [study_id, MARKERS[0]],
        "study": [study_id],
        "run_id": [run_id],
    }
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
    return "x" * max(1, int(schema.get("minLength", 1)))


@dataclass
class Probe:
    method: str
    path: str
    url: str
    query: dict[str, Any]
    body: dict[str, Any] | None
    multipart: list[str]
    record: bool

    def label(self) -> str:
        return f"{self.method} {self.path} → {self.url} query={self.query} body={self.body}"


def _probes(doc: dict[str, Any], ana: AnaRecords) -> list[Probe]:
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
                if p["name"] in RECORD_FIELDS:
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
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                schema = _resolve(content["application/json"]["schema"], doc)
                body = {}
                for name, prop in schema.get("properties", {}).items():
                    if name in RECORD_FIELDS:
                        body_records.append(name)
                        patterns[name] = _resolve(prop, doc).get("pattern", "")
                    elif name in schema.get("required", []):
                        body[name] = _plain(name, prop, doc)
            elif "multipart/form-data" in content:
                schema = _resolve(content["multipart/form-data"]["schema"], doc)
                for name, prop in schema.get("properties", {}).items():
                    resolved = _resolve(prop, doc)
                    items = _resolve(resolved.get("items", {}), doc)
                    if "binary" in (resolved.get("format"), items.get("format")) or (
                        resolved.get("contentMediaType") or items.get("contentMediaType")
                    ):
                        multipart.append(name)
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
                full = None if body is None else body | {n: combo[n] for n in body_records}
                record = bool(path_params or query_records or body_records)
                out.append(Probe(method, path, url, query, full, multipart, record))
    return out


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


def _send(c: httpx.Client, probe: Probe) -> httpx.Response:
    kw: dict[str, Any] = {"params": probe.query}
    if probe.body is not None:
        kw["json"] = probe.body
    if probe.multipart:
        ris = b"TY  - JOUR\nTI  - A probe\nPY  - 2024\nER  - \n"
        kw["files"] = [
            (name, ("probe.ris", ris, "application/octet-stream")) for name in probe.multipart
        ]
    return c.request(probe.method, probe.url, **kw)


def _leaks(response: httpx.Response) -> list[str]:
    text = response.content.decode("utf-8", "replace")
    return [m for m in MARKERS if m in text or m.replace("'", "&#39;") in text]


def test_bob_reaches_none_of_anas_records(server: TeamServer) -> None:
    with server.signed_in("ana") as ana_client, server.signed_in("bob") as bob:
        ana = _ana_records(ana_client)
        doc = bob.get("/api/v1/openapi.json").json()
        probes = _probes(doc, ana)
        routes = {(p.method, p.path) for p in probes if p.record}
        assert len(routes) >= 20, sorted(routes)  # the document really was walked
        failures: list[str] = []
        for probe in probes:
            r = _send(bob, probe)
            leaked = _leaks(r)
            if leaked:
                failures.append(f"{probe.label()}: {r.status_code} shows ana's {leaked}")
            elif probe.record and r.status_code not in (403, 404):
                failures.append(f"{probe.label()}: {r.status_code} {r.text[:200]!r}")
        assert not failures, "routes that let bob reach ana's records:\n" + "\n".join(failures)

        # nothing of ana's changed
        study = ana_client.get(f"/api/v1/studies/{ana.study_id}").json()
        assert study["name"] == MARKERS[0]
        assert [p["id"] for p in study["papers"]] == [ana.study_paper]
        assert [p["status"] for p in study["papers"]] == ["reading"]
        assert len(study["runs"]) == 1
        members = ana_client.get(f"/api/v1/studies/{ana.study_id}/members").json()
        assert members["members"] == []
        notes = ana_client.get("/api/v1/notebook").json()
        assert sorted(n["comment"] for n in notes["notes"]) == [MARKERS[2], MARKERS[2]]
        evidence = ana_client.get("/api/v1/evidence").json()
        assert len(evidence["evidence"]) == 2
        saved = ana_client.get("/api/v1/saved").json()
        assert {r["id"] for r in saved["papers"]} == {ana.private_paper, ana.study_paper}
        assert bob.get("/api/v1/saved").json()["total_saved"] == 0


def test_a_viewer_reads_but_changes_nothing(server: TeamServer) -> None:
    """The same generated probes for a Study bob may view: reads of the Study's records
    answer, every write to them is refused (403) or finds nothing of ana's private ones."""
    with server.signed_in("ana") as ana_client, server.signed_in("bob") as bob:
        ana = _ana_records(ana_client)
        r = ana_client.post(
            f"/api/v1/studies/{ana.study_id}/members", json={"username": "bob", "role": "viewer"}
        )
        assert r.status_code == 200
        assert bob.get(f"/api/v1/studies/{ana.study_id}").json()["name"] == MARKERS[0]
        doc = bob.get("/api/v1/openapi.json").json()
        ana.values = {
            "job_id": ana.values["job_id"],
            "paper_id": [ana.study_paper],
            "paper_ids": [[ana.study_paper]],
            "ref": [ana.study_id],
            "study": [ana.study_id],
            "run_id": [ana.run_id],
        }
        failures = []
        for probe in _probes(doc, ana):
            if probe.method == "GET" or not probe.record:
                continue
            r = _send(bob, probe)
            if (probe.method, probe.path) in OWN_RECORD_WRITES and r.status_code == 200:
                continue  # bob's own private note on a paper he may read (checked below)
            if r.status_code not in (403, 404):
                failures.append(f"{probe.label()}: {r.status_code} {r.text[:200]!r}")
        assert not failures, "writes a viewer could make:\n" + "\n".join(failures)
        study = ana_client.get(f"/api/v1/studies/{ana.study_id}").json()
        assert study["name"] == MARKERS[0] and [p["status"] for p in study["papers"]] == ["reading"]
        assert study["notes"] == 0 and study["evidence"] == 0  # ana's were not in the Study
        notes = ana_client.get("/api/v1/notebook").json()["notes"]
        assert sorted(n["comment"] for n in notes) == [MARKERS[2], MARKERS[2]]
        mine = bob.get("/api/v1/notebook").json()["notes"]
        assert mine and all(n["comment"] != MARKERS[2] for n in mine)
