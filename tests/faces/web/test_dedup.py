"""The deduplication review through the JSON API and the page's forms (no JavaScript)
against a real server on loopback: run as a job, the queue with its evidence, decisions
and withdrawals into the Study's history, Origin/CSRF on every write route; and the Study
ZIP recovery posted as a plain multipart form."""

from __future__ import annotations

import io
import re
import time
import zipfile
from typing import Any

import httpx
from tests._dedup_data import REGISTRY_RIS, haematology_subset
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import Running

XSS_RIS = (
    "TY  - JOUR\nID  - X1\nAU  - Roe, R.\nTI  - <script>alert(31)</script> Hostile <img src=x onerror=alert(32)> title\n"
    "JO  - Journal of Tests\nPY  - 2021\nVL  - 3\nSP  - 10\nER  -\n\n"
    "TY  - JOUR\nID  - X2\nAU  - Roe, R.\nTI  - <script>alert(31)</script> Hostile <img src=x onerror=alert(32)> title!\n"
    "JO  - Journal of Tests\nPY  - 2021\nVL  - 4\nSP  - 11\nER  -\n"
)


def make_study(c: httpx.Client, name: str = "aHUS review", *, xss: bool = False) -> str:
    sid = str(c.post("/api/v1/studies", json={"name": name}).json()["id"])
    files = [
        ("files", ("haematology.csv", haematology_subset(), "text/csv")),
        ("files", ("registry.ris", REGISTRY_RIS.encode(), "application/x-research-info-systems")),
    ]
    if xss:
        files.append(("files", ("hostile.ris", XSS_RIS.encode(), "text/plain")))
    r = c.post("/api/v1/imports", params={"study": sid}, files=files)
    assert r.status_code == 200 and not r.json()["refused"], r.text
    return sid


def run_to_end(c: httpx.Client, sid: str) -> dict[str, Any]:
    job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()
    assert job["state"] in ("running", "done") and job["study_id"] == sid
    deadline = time.monotonic() + 120
    while job["state"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = c.get(f"/api/v1/dedup-jobs/{job['id']}").json()
    assert job["state"] == "done", job
    return dict(c.get(f"/api/v1/studies/{sid}/dedup").json())


def test_api_run_review_decide_undo(running: Running) -> None:
    with running.writer() as c:
        sid = make_study(c)
        before = c.get(f"/api/v1/studies/{sid}/dedup").json()
        assert before["run"] is None and before["pairs"] == [] and before["history"] == []
        view = run_to_end(c, sid)
        counts = view["run"]["counts"]
        assert counts["records"] == 18 and counts["uncertain"] == 5
        assert view["history"][0]["kind"] == "run" and view["history"][0]["by"] == "local"
        run_id = view["run"]["id"]
        clash = next(p for p in view["pairs"] if not p["mergeable"])
        good = next(p for p in view["pairs"] if p["mergeable"])
        url = f"/api/v1/studies/{sid}/dedup/decisions"
        refused = c.post(url, json={"run_id": run_id, "pair": clash["no"], "decision": "merge"})
        assert refused.status_code == 403 and refused.json()["code"] == "conflicting_identifiers"
        bad = c.post(url, json={"run_id": run_id, "pair": good["no"], "decision": "perhaps"})
        assert bad.status_code == 422
        stale = c.post(url, json={"run_id": "0" * 32, "pair": 0, "decision": "merge"})
        assert stale.status_code == 403 and stale.json()["code"] == "stale_run"
        merged = c.post(url, json={"run_id": run_id, "pair": good["no"], "decision": "merge"})
        assert merged.status_code == 200 and merged.json()["new"], merged.text
        seq = merged.json()["seq"]
        after = c.get(f"/api/v1/studies/{sid}/dedup").json()
        assert {p["no"]: p["state"] for p in after["pairs"]}[good["no"]] == "merge"
        top = after["history"][0]
        assert top["seq"] == seq and top["in_force"] and top["what"].startswith("merged: ")
        assert top["by"] == "local" and top["via"] == "web" and top["created_at"]
        undo = c.post(f"/api/v1/studies/{sid}/dedup/undo", json={"seq": seq})
        assert undo.status_code == 200 and undo.json()["pair"] == good["no"]
        again = c.post(f"/api/v1/studies/{sid}/dedup/undo", json={"seq": seq})
        assert again.status_code == 403 and again.json()["code"] == "not_in_force"
        missing = c.post(f"/api/v1/studies/{sid}/dedup/undo", json={"seq": 999})
        assert missing.status_code == 404
        assert c.get("/api/v1/dedup-jobs/" + "0123456789abcdef" * 2).status_code == 404
        assert c.get("/api/v1/dedup-jobs/dd-0123456789abcdef").status_code == 422
        assert c.get("/api/v1/dedup-jobs/nope").status_code == 422
        assert c.get("/api/v1/studies/nope/dedup").status_code == 404
        empty = c.post("/api/v1/studies", json={"name": "Empty"}).json()["id"]
        job = c.post(f"/api/v1/studies/{empty}/dedup/runs").json()
        while job["state"] == "running":
            time.sleep(0.05)
            job = c.get(f"/api/v1/dedup-jobs/{job['id']}").json()
        assert job["state"] == "failed" and "no imported records" in job["message"]


def test_cancel_through_the_api_is_consistent(running: Running) -> None:
    with running.writer() as c:
        sid = make_study(c)
        job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()
        cancelled = c.post(f"/api/v1/dedup-jobs/{job['id']}/cancel").json()
        while cancelled["state"] == "running":
            time.sleep(0.05)
            cancelled = c.get(f"/api/v1/dedup-jobs/{job['id']}").json()
        runs = [h for h in c.get(f"/api/v1/studies/{sid}/dedup").json()["history"]]
        # the job either stopped before recording (nothing in the history) or had finished
        if cancelled["state"] == "cancelled":
            assert runs == [] and cancelled["counts"] is None
        else:
            assert cancelled["state"] == "done" and [h["kind"] for h in runs] == ["run"]


def _form_token(c: httpx.Client, path: str) -> str:
    html = c.get(path).text
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


def test_page_forms_work_without_javascript(running: Running) -> None:
    with running.writer() as api:
        sid = make_study(api, xss=True)
    with running.client(headers={"origin": running.base}, follow_redirects=False) as c:
        page = c.get(f"/study/{sid}/dedup")
        assert page.status_code == 200 and "Run deduplication" in page.text
        token = _form_token(c, f"/study/{sid}/dedup")
        started = c.post(f"/study/{sid}/dedup/run", data={"csrf_token": token})
        assert started.status_code == 303 and re.search(
            r"\?job=[0-9a-f]{32}$", started.headers["location"]
        )
        deadline = time.monotonic() + 120
        while True:
            html = c.get(started.headers["location"]).text
            if "Latest run" in html:
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert 'id="count-uncertain">6<' in html  # 5 + the hostile pair
        # hostile titles are text, never markup
        assert "<script>alert(31)" not in html and "&lt;script&gt;alert(31)&lt;/script&gt;" in html
        assert "<img src=x" not in html
        run_id = re.search(r'name="run_id" value="([0-9a-f]{32})"', html)
        assert run_id
        decided = c.post(
            f"/study/{sid}/dedup/decisions",
            data={
                "csrf_token": token,
                "run_id": run_id.group(1),
                "pair": "0",
                "decision": "distinct",
            },
        )
        assert decided.status_code == 303 and decided.headers["location"].endswith("#pair-0")
        html = c.get(f"/study/{sid}/dedup").text
        assert "kept separate (your decision)" in html and "Withdraw #" in html
        seq = re.search(r"Withdraw #(\d+)", html)
        assert seq
        undone = c.post(f"/study/{sid}/dedup/undo", data={"csrf_token": token, "seq": seq.group(1)})
        assert undone.status_code == 303
        html = c.get(f"/study/{sid}/dedup").text
        assert f"withdrew #{seq.group(1)} (distinct)" in html
        # a cancel form on a finished job: back to the page, nothing changed
        job = re.search(r"job=([0-9a-f]{32})", started.headers["location"])
        assert job
        cancel = c.post(f"/dedup-jobs/{job.group(1)}/cancel", data={"csrf_token": token})
        assert cancel.status_code == 303
        study_page = c.get(f"/study/{sid}").text
        assert f'href="/study/{sid}/dedup"' in study_page


def test_every_dedup_write_route_needs_origin_and_csrf(running: Running) -> None:
    with running.writer() as api:
        sid = make_study(api)
        job = run_to_end(api, sid)["run"]["id"]
    api_routes = [
        f"/api/v1/studies/{sid}/dedup/runs",
        f"/api/v1/studies/{sid}/dedup/decisions",
        f"/api/v1/studies/{sid}/dedup/undo",
        f"/api/v1/dedup-jobs/{job}/cancel",
    ]
    form_routes = [
        f"/study/{sid}/dedup/run",
        f"/study/{sid}/dedup/decisions",
        f"/study/{sid}/dedup/undo",
        f"/dedup-jobs/{job}/cancel",
    ]
    with running.client() as c:
        doc = c.get("/api/v1/openapi.json").json()["paths"]
        written = {p for p, item in doc.items() if "post" in item and "dedup" in p}
        assert len(written) == len(api_routes)  # every write route of the area is tried here
        c.get("/studies")
        token = c.cookies.get("ld_csrf")
        assert token
        for path in api_routes + form_routes:
            api = path.startswith("/api/")
            cases = [
                {"x-csrf-token": token},  # no Origin
                {"x-csrf-token": token, "origin": "http://127.0.0.1:1"},
                {"origin": running.base},  # no token
                {"origin": running.base, "x-csrf-token": "w" * 43},
            ]
            for headers in cases:
                r = c.post(path, json={} if api else None, headers=headers)
                assert r.status_code == 403, (path, headers, r.status_code)
                assert r.headers["x-content-type-options"] == "nosniff"
            if not api:
                wrong = c.post(
                    path, data={"csrf_token": "w" * 43}, headers={"origin": running.base}
                )
                assert wrong.status_code == 403


def test_zip_recovery_posted_as_a_plain_form(running: Running) -> None:
    with running.writer() as api:
        sid = make_study(api, "<b>Zipped</b>")
        data = api.get(f"/api/v1/studies/{sid}/export").content
    with running.client(headers={"origin": running.base}) as c:
        html = c.get(f"/study/{sid}").text
        form = re.search(
            r'<form id="zip-import"[^>]*>\s*<input type="hidden" name="csrf_token" value="([^"]+)"',
            html,
        )
        assert form, "the ZIP form carries its token as its first field"
        assert 'enctype="multipart/form-data"' in html and 'action="/study-imports"' in html
        token = form.group(1)
        ok = c.post(
            "/study-imports",
            data={"csrf_token": token, "name": "<i>Recovered</i>"},
            files={"file": ("s.zip", data, "application/zip")},
        )
        assert ok.status_code == 200, ok.text[:300]
        assert "Recovered Study “&lt;i&gt;Recovered&lt;/i&gt;”: 18 papers" in ok.text
        assert "<i>Recovered</i>" not in ok.text
        link = re.search(r'href="/study/([^"]+)" id="open-recovered"', ok.text)
        assert link and c.get(f"/study/{link.group(1)}").status_code == 200
        torn = c.post(
            "/study-imports",
            data={"csrf_token": token},
            files={"file": ("bad.zip", data[: len(data) // 2], "application/zip")},
        )
        assert torn.status_code == 400 and "not a readable zip" in torn.text.lower()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("hello.txt", "not a Study")
        foreign = c.post(
            "/study-imports",
            data={"csrf_token": token},
            files={"file": ("x.zip", buf.getvalue(), "application/zip")},
        )
        assert foreign.status_code >= 400 and foreign.status_code < 500
        # the token must come first: after the file it is not looked for
        late = c.post(
            "/study-imports",
            files=[
                ("file", ("s.zip", data, "application/zip")),
                ("csrf_token", (None, token)),
            ],
        )
        assert late.status_code == 403
        with running.client(cookies={"ld_csrf": token}) as bare:
            no_origin = bare.post(
                "/study-imports",
                data={"csrf_token": token},
                files={"file": ("s.zip", data, "application/zip")},
            )
        assert no_origin.status_code == 403


def test_two_apps_on_one_sqlite_store_share_runs_and_recover_a_dead_worker_s_job(
    tmp_settings: Any, cassette: Any
) -> None:
    """Single-user (owner ``local``): two app instances (two workers' stand-ins) over one
    SQLite store; only the first runs jobs (its runner started by the test). A run started on it is watched, reviewed and
    decided on the second, and the decision is seen on the first. Then a job held by a
    worker that died mid-run is taken over by the first app's runner once its lease has
    run out, and finished with one run summary in the history."""
    from tests.faces.web._server import free_port, serve_app

    from litdesk.faces.web import create_app
    from litdesk.services.dedup import DEDUP_KIND

    slow = {"dedup_test_step_seconds": 2.0, "jobs_lease_seconds": 2.0, "jobs_poll_seconds": 0.1}
    apps, bases, stops = [], [], []
    for _ in range(2):  # no job worker threads: the first app's runner is started below
        port = free_port()
        settings = tmp_settings.model_copy(update=slow | {"jobs_worker_slots": 0})
        apps.append(create_app(settings, host="127.0.0.1", port=port, replay=cassette))
        bases.append(f"http://127.0.0.1:{port}")
        server = serve_app(apps[-1], port)
        next(server)
        stops.append(server)

    def client(n: int) -> httpx.Client:
        c = httpx.Client(
            base_url=bases[n], headers={"origin": bases[n]}, timeout=60, verify=LOOPBACK_TLS
        )
        with httpx.Client(base_url=bases[n], timeout=60, verify=LOOPBACK_TLS) as first:
            first.get("/studies")
            token = first.cookies["ld_csrf"]
        c.cookies.set("ld_csrf", token)
        c.headers["x-csrf-token"] = token
        return c

    def watch(c: httpx.Client, job_id: str, until: Any) -> dict[str, Any]:
        deadline = time.monotonic() + 120
        while not until(job := c.get(f"/api/v1/dedup-jobs/{job_id}").json()):
            assert time.monotonic() < deadline, job
            time.sleep(0.05)
        return dict(job)

    try:
        with client(0) as one, client(1) as two:
            sid = make_study(one)
            job = one.post(f"/api/v1/studies/{sid}/dedup/runs").json()
            # queued on the first app: the second shows it and starting again gives it
            assert two.get(f"/api/v1/studies/{sid}/dedup").json()["job"]["id"] == job["id"]
            assert two.post(f"/api/v1/studies/{sid}/dedup/runs").json()["id"] == job["id"]
            runner, jobs = apps[0].state.app.job_runner, apps[1].state.app.jobs
            runner.start()  # the first app's worker runs it (each import read takes 2 s)
            seen = watch(two, job["id"], lambda j: j["state"] != "running" or j["done"] >= 1)
            assert seen["state"] == "running" and seen["stage"] == "reading", seen
            assert watch(two, job["id"], lambda j: j["state"] != "running")["state"] == "done"
            view = two.get(f"/api/v1/studies/{sid}/dedup").json()
            assert view["run"]["id"] == job["id"] and len(view["pairs"]) == 5
            pair = next(p for p in view["pairs"] if p["mergeable"])["no"]
            r = two.post(
                f"/api/v1/studies/{sid}/dedup/decisions",
                json={"run_id": job["id"], "pair": pair, "decision": "merge"},
            )
            assert r.status_code == 200, r.text
            mine = one.get(f"/api/v1/studies/{sid}/dedup").json()
            assert {p["no"]: p["state"] for p in mine["pairs"]}[pair] == "merge"
            # a worker dies mid-run: the first app's runner takes the job over
            runner.stop()
            second = two.post(f"/api/v1/studies/{sid}/dedup/runs").json()
            held = jobs.claim([DEDUP_KIND], "gone:1:dead", 1.0)
            assert held is not None and held.id == second["id"]
            assert jobs.progress(held, 1, 2, "reading")
            runner.start()
            done = watch(two, second["id"], lambda j: j["state"] != "running")
            assert done["state"] == "done" and done["attempts"] == 2, done
            history = one.get(f"/api/v1/studies/{sid}/dedup").json()
            assert history["run"]["id"] == second["id"]
            assert [h["kind"] for h in history["history"]].count("run") == 2
            assert history["run"]["counts"]["groups"] == view["run"]["counts"]["groups"] - 1
    finally:
        for server in stops:
            next(server, None)


PREPRINT_RIS = (
    "TY  - UNPB\nID  - W1\nAU  - Card, D.\nAU  - Krueger, A. B.\n"
    "TI  - Minimum wages and employment in small firms: evidence from a natural experiment\n"
    "T2  - NBER Working Paper Series\nPY  - 2019\nER  -\n\n"
    "TY  - JOUR\nID  - P1\nAU  - Card, D.\nAU  - Krueger, A. B.\n"
    "TI  - Minimum wages and employment in small firms: evidence from a natural experiment\n"
    "JO  - American Economic Review\nPY  - 2020\nVL  - 110\nIS  - 4\nSP  - 1019\nEP  - 1056\n"
    "DO  - 10.1257/aer.20180001\nER  -\n"
)


def test_versions_are_shown_on_the_review_page(running: Running) -> None:
    # issue 30: a working paper and its published version are linked, both kept
    with running.writer() as c:
        sid = str(c.post("/api/v1/studies", json={"name": "wages"}).json()["id"])
        files = [("files", ("wp.ris", PREPRINT_RIS.encode(), "text/plain"))]
        r = c.post("/api/v1/imports", params={"study": sid}, files=files)
        assert r.status_code == 200 and not r.json()["refused"], r.text
        view = run_to_end(c, sid)
        assert view["run"]["counts"]["groups"] == 2 and view["run"]["counts"]["versions"] == 1
        (version,) = view["run"]["versions"]
        assert version["relation"] == "preprint"
        assert version["primary"]["source_id"] == "P1" and version["version"]["source_id"] == "W1"
        html = c.get(f"/study/{sid}/dedup").text
        assert 'id="versions"' in html and "screened</strong> Minimum wages" in html
