"""IDOR tests of the HTML workspace, generated from the app's routes (``app.routes``), on
SQLite and PostgreSQL: every page and every form post outside ``/api/v1`` (the reader, a
Study's pages, deduplication, exports and downloads, the library, chat, reports, saving from
a citation listing, the forms posted without JS) is probed as account bob — signed in, with his CSRF token and the exact
Origin, so that only authorisation can refuse — with the ids of ana's private records
(made as in the API's IDOR test, :mod:`tests.faces.web._idor`).

A route naming one of ana's records must answer 403 or 404 (never a redirect to the login
page: bob is signed in) and the answer must carry none of ana's data: her markers (Study
name and description, notes, evidence) and none of her record ids other than those bob
sent. Every other page is read as bob and must not show her data either. Afterwards ana's
records are unchanged. As a viewer of ana's Study, carol reads its pages and every write is
refused. ana's records are made once per backend for both (:class:`SharedAna`; bob is a
member of nothing, carol the Study's only member).

The pages' forms and parameters come from an OpenAPI document built from the app's own page
routes, so a route added later is probed on its own; a path parameter the test cannot fill,
or a route it cannot see, fails the test naming it.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Mount
from tests.faces.web._idor import (
    MARKERS,
    RECORD_FIELDS,
    SHARED_FIELDS,
    AnaRecords,
    Probe,
    Served,
    SharedAna,
    assert_ana_unchanged,
    build_probes,
    leaks,
    send,
    server,  # noqa: F401 - fixture
    shared_ana,  # noqa: F401 - fixture
    study_members,
)
from tests.faces.web.test_team_auth import team_settings  # noqa: F401 - fixture re-export

from litdesk.faces.web._app import API_PREFIX

#: query fields of the pages that name a record, beside the API's (a dedup job shown on a
#: Study's deduplication page, a finished live search shown on the search page)
PAGE_RECORDS = (*RECORD_FIELDS, "job", "live", "record")
#: routes not probed: the sign-in and sign-out pages and their steps (``/login…``,
#: ``/logout…``: bob's own session, no record of anyone's; a signed-in visit is sent back
#: to a login step by design)
SIGN_IN: tuple[str, ...] = ("/login", "/logout")


def _signing_in(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in SIGN_IN)


#: routes hidden from any document (the home page's redirect to /search, health and
#: readiness: no parameters, no records) and mounts (static files): any other fails the test
KNOWN_HIDDEN = {("GET", "/"), ("GET", "/healthz"), ("GET", "/readyz")}
KNOWN_MOUNTS = {"/static"}
#: pages that show their default view when the record named in the query is not one the
#: account may see (a live search not open for it: the search form, empty) — never ana's data
FALLBACK_PAGES = {("GET", "/search")}
#: form posts of a viewer that make only her own private record on a paper she may read
VIEWER_OWN_WRITES = {
    ("POST", "/paper/{paper_id}/highlight"),
    ("POST", "/paper/{paper_id}/comment"),
    # a report over the PDFs of a Study she reads: her own build job (a read of the Study)
    ("POST", "/reports/build"),
}
#: the selection form's actions that read the papers of a run a viewer may read (an export,
#: a comparison) or save them into her own private list; "study" writes into a Study
VIEWER_SELECTION_READS = {"ris", "compare", "shared", "save"}


def _walk(routes: Iterable[BaseRoute], prefix: str = "") -> Iterator[tuple[str, BaseRoute]]:
    """Every route of the app with its full path prefix (included routers flattened)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:  # a router included with a prefix (FastAPI's lazy inclusion)
            yield from _walk(inner.routes, prefix + route.include_context.prefix)  # type: ignore[attr-defined]
        else:
            yield prefix, route


def page_routes(app: FastAPI) -> list[APIRoute]:
    """The routes of the app outside ``/api/v1``; a kind of route this test does not know
    fails it, naming the route."""
    out: list[APIRoute] = []
    for prefix, route in _walk(app.routes):
        path = prefix + getattr(route, "path", "")
        if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
            continue
        if isinstance(route, Mount):
            assert path in KNOWN_MOUNTS, f"mount {path} unknown to the pages' IDOR test"
            continue
        assert isinstance(route, APIRoute) and not prefix, f"route {route!r} ({path}) unknown"
        out.append(route)
    return out


#: the page routes' documents generated so far, by the routes' identity (every app includes
#: the same module-level routers: generating it again per test cost ~0.3 s of CPU)
_DOCUMENTS: dict[tuple[int, ...], tuple[dict[str, Any], list[APIRoute]]] = {}


def _generated(routes: list[APIRoute]) -> dict[str, Any]:
    """The OpenAPI document of ``routes`` (generated once per list of route objects)."""
    key = tuple(id(r) for r in routes)
    if key not in _DOCUMENTS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a duplicate operation would hide a route
            _DOCUMENTS[key] = (get_openapi(title="pages", version="1", routes=routes), routes)
    return _DOCUMENTS[key][0]


def pages_document(app: FastAPI) -> dict[str, Any]:
    """An OpenAPI document of the page routes (their forms, query and path parameters)."""
    routes = page_routes(app)
    hidden = {(m, r.path) for r in routes if not r.include_in_schema for m in r.methods}
    assert hidden == KNOWN_HIDDEN, f"page routes the test cannot see: {hidden - KNOWN_HIDDEN}"
    doc = copy.deepcopy(_generated([r for r in routes if r.include_in_schema]))
    listed = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    walked = {(m, r.path) for r in routes if r.include_in_schema for m in r.methods}
    assert listed == walked, walked ^ listed
    doc["paths"] = {p: ops for p, ops in doc["paths"].items() if not _signing_in(p)}
    return doc


def _ana_ids(ana: AnaRecords) -> set[str]:
    """ana's record ids (not the shared library's files) and the ids of the papers she saved
    (bob searched nothing: no page of his has a reason to show them). The library's index
    job is one per server: every account's library page follows its progress by its id
    (its owner, parameters and result stay hidden; the API test checks that)."""
    private = set(RECORD_FIELDS) - set(SHARED_FIELDS) - {"paper_ids", "number"}
    ids = {v for k in private for v in ana.values.get(k, []) if isinstance(v, str)}
    index_job = ana.values["job_id"][1]
    return ids - {MARKERS[0], index_job}  # the Study's name is a marker


def _page_values(ana: AnaRecords) -> AnaRecords:
    ana.values = ana.values | {"job": ana.values["job_id"], "live": ana.values["live_id"]}
    return ana


def _redirected_to_login(r: httpx.Response) -> bool:
    return r.is_redirect and r.headers.get("location", "").startswith("/login")


def _refused_as_a_forgery(r: httpx.Response) -> bool:
    """A 403 of the CSRF/Origin guard (the probe's fault), not of an authorisation check."""
    guard = ("CSRF", "Origin", "origin")
    return (
        r.status_code == 403 and r.text.startswith("Refused: ") and any(g in r.text for g in guard)
    )


def _sent(probe: Probe) -> str:
    return probe.url + json.dumps([probe.query, probe.body])


def _probe_all(bob: httpx.Client, probes: list[Probe], ana: AnaRecords) -> list[str]:
    ids = _ana_ids(ana)
    failures: list[str] = []
    for probe in probes:
        r = send(bob, probe)
        text = r.content.decode("utf-8", "replace")
        shown = [i for i in ids if i in text and i not in _sent(probe)]
        if _redirected_to_login(r):
            failures.append(f"{probe.label()}: sent signed-in bob to {r.headers['location']}")
        elif _refused_as_a_forgery(r):
            failures.append(f"{probe.label()}: refused by the CSRF/Origin guard: {text[:200]!r}")
        elif leaks(r) or shown:
            failures.append(f"{probe.label()}: {r.status_code} shows ana's {leaks(r) + shown}")
        elif (probe.method, probe.path) in FALLBACK_PAGES and r.status_code == 200:
            continue
        elif probe.record and r.status_code not in (403, 404):
            failures.append(f"{probe.label()}: {r.status_code} {text[:200]!r}")
    return failures


def test_bob_reaches_none_of_anas_records_through_the_pages(
    shared_ana: SharedAna,  # noqa: F811
) -> None:
    served = shared_ana.served
    assert served.team.app is not None
    doc = pages_document(served.team.app)
    ana_client, records = shared_ana.records()
    with served.signed_in("bob") as bob:
        ana = _page_values(records)
        members = study_members(ana_client, ana)  # the other test's viewer, never bob
        assert all(m["username"] != "bob" for m in members), members
        probes = build_probes(doc, ana, expand=("action",), records=PAGE_RECORDS)
        routes = {(p.method, p.path) for p in probes if p.record}
        assert len(routes) >= 25, sorted(routes)  # the routes really were walked
        assert {p.form for p in probes if p.body is not None} == {True}  # forms, not JSON
        forged = bob.post("/studies", data={"name": "x"}, headers={"x-csrf-token": "wrong"})
        assert _refused_as_a_forgery(forged), forged.text  # the guard's refusals are told apart
        failures = _probe_all(bob, probes, ana)
        assert not failures, "pages that let bob reach ana's records:\n" + "\n".join(failures)
        me = bob.get("/api/v1/auth/me")  # bob is still signed in: no probe ended his session
        assert me.status_code == 200 and me.json()["username"] == "bob", me.text
        assert_ana_unchanged(ana_client, bob, ana, members)
        assert all(s["id"] != ana.study_id for s in bob.get("/api/v1/studies").json()["studies"])


def _viewer_may_read(probe: Probe) -> bool:
    """A read of the shared Study's own records (its page, papers, kept run, exports)."""
    return probe.method == "GET" and set(probe.named) <= {"paper_id", "ref", "study", "run_id"}


def test_a_viewer_reads_the_pages_but_changes_nothing(
    shared_ana: SharedAna,  # noqa: F811
) -> None:
    served = shared_ana.served
    assert served.team.app is not None
    doc = pages_document(served.team.app)
    ana_client, records = shared_ana.records()
    with served.signed_in("carol") as bob:
        ana = _page_values(records)
        r = ana_client.post(
            f"/api/v1/studies/{ana.study_id}/members", json={"username": "carol", "role": "viewer"}
        )
        assert r.status_code == 200, r.text
        ana.values = ana.values | {
            "paper_id": [ana.study_paper],
            "paper_ids": [[ana.study_paper]],
            "ref": [ana.study_id, MARKERS[0]],
            "study": [ana.study_id],
            "run_id": [ana.run_id],
        }
        failures: list[str] = []
        reads = 0
        for probe in build_probes(doc, ana, expand=("action",), records=PAGE_RECORDS):
            if not probe.record:
                continue
            r = send(bob, probe)
            private = [m for m in leaks(r) if m in MARKERS[2:]]  # her notes and evidence
            if _redirected_to_login(r) or _refused_as_a_forgery(r) or private:
                failures.append(f"{probe.label()}: {r.status_code} {private or r.headers}")
            elif _viewer_may_read(probe):
                reads += 1
                if r.status_code != 200:
                    failures.append(f"{probe.label()}: read refused {r.status_code}")
            elif probe.method == "GET" or (probe.method, probe.path) in VIEWER_OWN_WRITES:
                continue  # ana's own things (a job, a report) or bob's own note
            elif (probe.body or {}).get("action") in VIEWER_SELECTION_READS:
                continue
            elif r.status_code not in (403, 404):
                failures.append(f"{probe.label()}: {r.status_code} {r.text[:200]!r}")
        assert not failures, "what a viewer could not read or could change:\n" + "\n".join(failures)
        assert reads >= 8, reads
        study = ana_client.get(f"/api/v1/studies/{ana.study_id}").json()
        assert study["name"] == MARKERS[0] and study["description"] == MARKERS[1]
        statuses = {p["id"]: p["status"] for p in study["papers"]}
        assert sorted(statuses) == sorted(set(ana.study_papers))  # her kept run's hits, no more
        assert [(k, v) for k, v in statuses.items() if v] == [(ana.study_paper, "reading")]
        assert len(study["runs"]) == 1
        assert study["notes"] == 0 and study["evidence"] == 0  # ana's were not in the Study
        notes = ana_client.get("/api/v1/notebook").json()["notes"]
        assert sorted(n["comment"] for n in notes) == [MARKERS[2], MARKERS[2]]
        members = ana_client.get(f"/api/v1/studies/{ana.study_id}/members").json()["members"]
        assert [(m["username"], m["role"]) for m in members] == [("carol", "viewer")]


def test_bob_cannot_save_from_anas_citation_listing(server: Served) -> None:  # noqa: F811
    """A citation listing (in the store, keyed by an unguessable id) is its owner's: bob,
    holding ana's listing id and the ids of the works it shows, saves none of them into his
    own Study, by the form or the API, and learns nothing of the list."""
    with server.signed_in("ana") as ana_client, server.signed_in("bob") as bob:
        r = ana_client.get("/api/v1/citations", params={"mode": "references", "ids": "OAX-W100"})
        assert r.status_code == 200, r.text
        listing, works = r.json()["listing"], [p["id"] for p in r.json()["papers"]]
        assert len(works) >= 2
        r = bob.post("/api/v1/studies", json={"name": "Bob's citations"})
        assert r.status_code == 200, r.text
        mine = r.json()["id"]
        form = {"listing": listing, "paper_ids": works[:2], "study": mine, "back": "/citations"}
        page = bob.post("/citations/save", data=form)
        api = bob.post(
            "/api/v1/citations/save",
            json={"listing": listing, "paper_ids": works[:2], "study": mine},
        )
        for r in (page, api):
            assert r.status_code == 404, r.text
            assert "no longer open" in r.text
            assert not any(w in r.text for w in works) and "Seed paper" not in r.text
        assert api.json()["code"] == "listing_not_open"
        assert bob.get(f"/api/v1/studies/{mine}").json()["papers"] == []
        # ana's own save from it works: the refusal was about whose list it is
        r = ana_client.post(
            "/api/v1/citations/save",
            json={"listing": listing, "paper_ids": works[:1], "new_study": "Ana's citations"},
        )
        assert r.status_code == 200 and r.json()["saved"] == works[:1], r.text


def test_bob_names_a_study_like_anas_private_one(server: Served) -> None:  # noqa: F811
    """Study names are unique per owner: bob's Study named like ana's private one is made
    (the form answers with his Study), every page names his, never hers."""
    with server.signed_in("ana") as ana_client, server.signed_in("bob") as bob:
        r = ana_client.post("/api/v1/studies", json={"name": MARKERS[0], "description": MARKERS[1]})
        assert r.status_code == 200, r.text
        anas = r.json()["id"]
        assert bob.get(f"/study/{MARKERS[0]}").status_code == 404  # not revealed
        r = bob.post("/studies", data={"name": MARKERS[0], "description": "bob's own"})
        assert r.status_code == 303, r.text
        bobs = r.headers["location"].removeprefix("/study/")
        assert bobs != anas
        page = bob.get(f"/study/{MARKERS[0]}")
        assert page.status_code == 200 and "bob&#39;s own" in page.text
        assert MARKERS[1] not in page.text and anas not in page.text
        assert bob.get(f"/study/{anas}").status_code == 404
        listed = bob.get("/api/v1/studies").json()["studies"]
        assert [s["id"] for s in listed] == [bobs]
        mine = ana_client.get(f"/api/v1/studies/{MARKERS[0]}").json()
        assert mine["id"] == anas and mine["description"] == MARKERS[1]
        # bob's second Study of that name is refused: his own name is taken
        r = bob.post("/api/v1/studies", json={"name": MARKERS[0]})
        assert r.status_code in (400, 409) and r.json()["code"] == "study_exists", r.text
