"""The library's web API on a real server on loopback: uploads (refused: oversized,
not-PDF, ``../`` names, names already in the library; nothing written outside the inbox),
the plain form without script (CSRF as the first multipart part), the index job over real
PDFs (scan, encrypted, broken → named exclusions), cancel, adoption from the page through
the runtime (replayed OpenAlex answers), Study links and the model status."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting, client_for
from tests.faces.web._library import (
    BROKEN,
    CLINSCI,
    ENCRYPTED,
    FIXTURES,
    HINDAWI,
    HINDAWI_TITLE,
    PEERJ,
    SCAN,
    files_tree,
    fixture_files,
    library_settings,
    make_pdfs,
    record_adoption_cassette,
    wait_job,
)
from tests.faces.web._server import Running, csrf_from

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.faces.web import create_app
from litdesk.services.workspace import Workspace


@pytest.fixture
def lib_server(
    tmp_settings: Any, tmp_path: Path, fixtures_dir: Path, hosting: Hosting
) -> Iterator[Running]:
    settings = library_settings(tmp_settings)
    cassette = tmp_path / "cassette"
    record_adoption_cassette(settings, cassette)
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app) as served:
        yield Running(hosting.base, hosting.host, hosting.port, cassette, tmp_path / "data", served)


def _inbox(r: Running) -> Path:
    return r.data_dir / "library" / "inbox"


def test_upload_refusals_and_nothing_outside_the_inbox(lib_server: Running, tmp_path: Path) -> None:
    before = files_tree(tmp_path)
    parts = fixture_files([HINDAWI]) + [
        ("files", ("../escape.pdf", b"%PDF-1.4 escaped", "application/pdf")),
        ("files", ("..%2Fescape2.pdf", b"%PDF-1.4 escaped", "application/pdf")),
        ("files", ("/tmp/abs.pdf", b"%PDF-1.4 absolute", "application/pdf")),
        ("files", ("notes.pdf", b"just some text, no PDF", "application/pdf")),
        ("files", ("big.pdf", b"%PDF-1.4\n" + b"0" * 3_200_000, "application/pdf")),
        ("files", ("readme.txt", b"%PDF-1.4 but the name", "text/plain")),
    ]
    with lib_server.writer() as c:
        r = c.post("/api/v1/library/uploads", files=parts)
        assert r.status_code == 200, r.text
        report = r.json()
        assert [s["file"] for s in report["stored"]] == [HINDAWI]
        refused = {x["file"]: x["code"] for x in report["refused"]}
        assert refused == {
            "../escape.pdf": "unsafe_name",
            "/tmp/abs.pdf": "unsafe_name",
            "notes.pdf": "not_pdf",
            "big.pdf": "too_large",
            "readme.txt": "not_pdf_name",
            "..%2Fescape2.pdf": "unsafe_name",  # a hidden name (leading dot)
        }
        assert report["job"]["kind"] == "library.index"
        job = wait_job(c, report["job"]["id"])
        assert job["status"] == "done"
        # the same name again, and the same content under a new name
        again = c.post("/api/v1/library/uploads", files=fixture_files([HINDAWI])).json()
        assert again["stored"] == [] and again["refused"][0]["code"] == "name_exists"
        copy = [("files", ("copy.pdf", (FIXTURES / HINDAWI).read_bytes(), "application/pdf"))]
        same = c.post("/api/v1/library/uploads", files=copy).json()
        assert same["stored"][0]["same_content_as"] == HINDAWI
        job2 = wait_job(c, same["job"]["id"])
        assert job2["result"]["indexed"] == 0  # identical content is indexed once
        assert any("same content" in s and "copy.pdf" in s for s in job2["result"]["same_content"])
    written = files_tree(tmp_path) - before
    outside = {p for p in written if not p.startswith("data/")}
    assert outside == set()
    inbox_files = {p for p in written if p.startswith("data/library/inbox/")}
    assert inbox_files == {f"data/library/inbox/{HINDAWI}", "data/library/inbox/copy.pdf"}
    # no refused file was written anywhere under the worker's temporary folders (by its file
    # name: other tests' folders may have "escape" in their own names)
    names = {Path(p).name for p in files_tree(tmp_path.parent)}
    assert not {n for n in names if "escape" in n and n.endswith(".pdf")} | (names & {"abs.pdf"})


def test_a_body_over_the_upload_limit_is_cut_off(lib_server: Running) -> None:
    with lib_server.writer() as c:
        big = [("files", ("huge.pdf", b"%PDF-1.4\n" + b"0" * 7_200_000, "application/pdf"))]
        r = c.post("/api/v1/library/uploads", files=big)
    assert r.status_code == 413 and r.json()["code"] == "body_too_large"
    assert not (_inbox(lib_server) / "huge.pdf").exists()


def _multipart(fields: list[tuple[str, str, bytes, str | None]]) -> tuple[bytes, str]:
    boundary = "----litdeskTestBoundary7MA4YWxk"
    out = b""
    for name, filename, data, ctype in fields:
        out += f"--{boundary}\r\n".encode()
        disp = f'Content-Disposition: form-data; name="{name}"'
        if filename:
            disp += f'; filename="{filename}"'
        out += disp.encode() + b"\r\n"
        if ctype:
            out += f"Content-Type: {ctype}\r\n".encode()
        out += b"\r\n" + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return out, f"multipart/form-data; boundary={boundary}"


def test_the_plain_form_uploads_without_script(lib_server: Running) -> None:
    pdf = (FIXTURES / SCAN).read_bytes()
    with lib_server.client(headers={"origin": lib_server.base}) as c:
        token = csrf_from(c.get("/library").text)
        # no CSRF field: refused before anything is read or written
        body, ctype = _multipart([("files", "a.pdf", pdf, "application/pdf")])
        r = c.post("/library/upload", content=body, headers={"content-type": ctype})
        assert r.status_code == 403 and "CSRF" in r.text
        # the token must be the form's first part
        body, ctype = _multipart(
            [("files", "a.pdf", pdf, "application/pdf"), ("csrf_token", "", token.encode(), None)]
        )
        r = c.post("/library/upload", content=body, headers={"content-type": ctype})
        assert r.status_code == 403
        body, ctype = _multipart(
            [("csrf_token", "", b"x" * 40, None), ("files", "a.pdf", pdf, None)]
        )
        r = c.post("/library/upload", content=body, headers={"content-type": ctype})
        assert r.status_code == 403  # a wrong token
        assert not _inbox(lib_server).exists() or list(_inbox(lib_server).iterdir()) == []
        body, ctype = _multipart(
            [
                ("csrf_token", "", token.encode(), None),
                ("files", SCAN, pdf, "application/pdf"),
                ("files", "../up.pdf", pdf, "application/pdf"),
            ]
        )
        r = c.post("/library/upload", content=body, headers={"content-type": ctype})
        assert r.status_code == 200, r.text
        assert f"{SCAN}: stored" in r.text
        assert re.search(r"\.\./up\.pdf refused \(unsafe_name\)", r.text)
        # the job's forms without script: index now, cancel, adopt (urlencoded + csrf_token)
        r = c.post("/library/index", data={"csrf_token": token})
        assert r.status_code == 303 and r.headers["location"] == "/library"
        job = c.get("/api/v1/jobs", params={"kind": "library.index"}).json()["jobs"][0]
        r = c.post(f"/library/jobs/{job['id']}/cancel", data={"csrf_token": token})
        assert r.status_code == 303
        after = c.get(f"/api/v1/jobs/{job['id']}").json()
        # cancelled, or asked to stop, unless it had already ended (one PDF indexes fast)
        assert (
            after["status"] == "cancelled" or after["cancel_requested"] or after["status"] == "done"
        )
        r = c.post("/library/adopt", data={"csrf_token": token, "file": "nope.pdf"})
        assert r.status_code == 200 and "nope.pdf is not in the library" in r.text
        assert c.post("/library/index", data={}).status_code == 403  # no token
    assert sorted(p.name for p in _inbox(lib_server).iterdir()) == [SCAN]


def test_index_job_names_exclusions_links_studies_and_adopts(
    lib_server: Running, tmp_settings: Any
) -> None:
    store = open_store(tmp_settings)
    try:
        ws = Workspace(store)
        study = ws.create_study("Heart failure")
        saved = ws.save_paper(make_paper(doi="10.1155/2010/157939", title=HINDAWI_TITLE)).paper
        ws.add_to_study(study.id, saved.id)
    finally:
        store.dispose()
    names = [HINDAWI, CLINSCI, PEERJ, SCAN, ENCRYPTED, BROKEN]
    with lib_server.writer() as c:
        jobs = set()
        for part in fixture_files(names):  # one request per file, as the page sends them
            report = c.post("/api/v1/library/uploads", files=[part]).json()
            assert len(report["stored"]) == 1, report
            jobs.add(report["job"]["id"])
        assert len(jobs) <= 2  # the running job is reused (or a second one after it ended)
        job = wait_job(
            c, sorted(jobs, key=lambda j: c.get(f"/api/v1/jobs/{j}").json()["created"])[-1]
        )
        assert job["status"] == "done", job
        result = job["result"]
        assert result["files"] == 6 and result["indexed"] == 3 and result["pages"] == 6 + 13 + 16
        assert {x["file"]: x["code"] for x in result["excluded"]} == {
            SCAN: "no_text",
            ENCRYPTED: "encrypted",
            BROKEN: "broken",
        }
        assert job["done"] == job["total"] == 6 and job["rate"] and job["rate"] > 0
        lib = c.get("/api/v1/library").json()
        assert [s["origin"] for s in lib["sources"]] == ["inbox"]
        rows = {f["file"]: f for f in lib["files"]}
        assert rows[HINDAWI]["indexed"] and rows[HINDAWI]["pages"] == 6
        assert rows[HINDAWI]["doi"] == "10.1155/2010/157939" and rows[HINDAWI]["text_layer"]
        assert rows[HINDAWI]["studies"] == [{"id": study.id, "name": "Heart failure"}]
        assert rows[SCAN]["text_layer"] is False and rows[SCAN]["excluded_code"] == "no_text"
        assert lib["counts"] == {"indexed": 3, "excluded": 3, "waiting": 0}
        assert "path" not in rows[HINDAWI]  # the server's paths are not shown per file

        ok = c.post("/api/v1/library/adopt", json={"file": HINDAWI}).json()
        assert ok["adopted"] and ok["title"] == HINDAWI_TITLE and ok["lookup"].startswith("doi:")
        wrong = c.post("/api/v1/library/adopt", json={"file": PEERJ}).json()
        assert not wrong["adopted"] and "title not printed" in wrong["reason"]
        failed = c.post("/api/v1/library/adopt", json={"file": CLINSCI}).json()
        assert (
            not failed["adopted"] and "lookup of doi 10.1042/cs20130403 failed" in failed["reason"]
        )
        excluded = c.post("/api/v1/library/adopt", json={"file": SCAN}).json()
        assert not excluded["adopted"] and "excluded" in excluded["reason"]
        missing = c.post("/api/v1/library/adopt", json={"file": "nope.pdf"})
        assert missing.status_code == 404 and missing.json()["code"] == "not_in_library"

        rows = {f["file"]: f for f in c.get("/api/v1/library").json()["files"]}
        assert rows[HINDAWI]["adopted_title"] == HINDAWI_TITLE
        assert rows[HINDAWI]["authors"] == ["Ada Lovelace", "Alan Turing"]
        assert rows[PEERJ]["adopted_title"] is None
        html = c.get("/library").text
    assert "excluded (encrypted)" in html and "Heart failure" in html and HINDAWI_TITLE in html


def test_the_job_is_cancelled_and_watched_by_id(lib_server: Running, tmp_path: Path) -> None:
    pdfs = make_pdfs(tmp_path / "gen", 24, pages=2)
    parts = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in pdfs]
    with lib_server.writer() as c:
        report = c.post("/api/v1/library/uploads", files=parts).json()
        job_id = report["job"]["id"]
        asked = c.post(f"/api/v1/jobs/{job_id}/cancel").json()
        assert asked["cancel_requested"]
        job = wait_job(c, job_id)
        assert job["status"] == "cancelled"
        assert job["done"] < 24
        listed = c.get("/api/v1/jobs", params={"kind": "library.index"}).json()["jobs"]
        assert listed[0]["id"] == job_id
        assert c.get("/api/v1/jobs/" + "0" * 32).status_code == 404
        assert c.get("/api/v1/jobs/not-an-id").status_code == 422
        # a new index job resumes what the cancelled one left
        again = c.post("/api/v1/library/index").json()
        assert again["id"] != job_id
        done = wait_job(c, again["id"])
        assert done["status"] == "done" and done["result"]["indexed"] == 24 - job["done"]


def test_model_status_names_the_configured_models(lib_server: Running) -> None:
    with lib_server.client() as c:
        status = c.get("/api/v1/library/models", params={"check": "true"}).json()
    roles = {r["role"]: r for r in status["roles"]}
    assert roles["embedder"]["backend"] == "wordllama+use-m3" and roles["embedder"]["ready"]
    assert roles["chat"]["backend"] == "none" and roles["chat"]["model"] == "extractive"


def test_a_large_library_is_paged(lib_server: Running, tmp_path: Path) -> None:
    inbox = _inbox(lib_server)
    for p in make_pdfs(tmp_path / "gen", 3, pages=1):
        for n in range(19):  # 57 files (same contents under many names: no index needed)
            target = inbox / f"{p.stem}_copy{n:02d}.pdf"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(p.read_bytes())
    with lib_server.client() as c:
        first = c.get("/api/v1/library").json()
        second = c.get("/api/v1/library", params={"page": 2}).json()
        small = c.get("/api/v1/library", params={"page": 3, "per_page": 20}).json()
        html = c.get("/library", params={"page": 2}).text
        assert c.get("/api/v1/library", params={"per_page": 500}).status_code == 422
    assert first["total"] == 57 and first["pages"] == 2 and len(first["files"]) == 50
    assert len(second["files"]) == 7 and second["page"] == 2
    names = [f["file"] for f in first["files"]] + [f["file"] for f in second["files"]]
    assert len(set(names)) == 57 and names == sorted(names)
    assert len(small["files"]) == 17
    assert "57 PDFs · page 2 of 2" in html and 'rel="prev"' in html and 'rel="next"' not in html
    assert first["counts"]["waiting"] == 57


def test_sources_in_order_with_the_shadowing_warning_first(
    tmp_settings: Any, tmp_path: Path, fixtures_dir: Path
) -> None:
    from litdesk.services.library import add_source

    configured, added = tmp_path / "configured", tmp_path / "added"
    for folder in (configured, added):
        folder.mkdir()
        (folder / "dup.pdf").write_bytes((FIXTURES / HINDAWI).read_bytes())
    (configured / "missing-elsewhere.pdf").write_bytes((FIXTURES / SCAN).read_bytes())
    settings = library_settings(tmp_settings, library_dirs=[configured, tmp_path / "gone"])
    add_source(settings.resolved_data_dir(), added)
    hosting = Hosting.in_process()
    app = create_app(settings, host=hosting.host, port=hosting.port)
    with hosting.serve(app) as served, client_for(hosting.base, served, 60) as c:
        lib = c.get("/api/v1/library").json()
        html = c.get("/library").text
    assert [(s["order"], s["origin"], s["files"]) for s in lib["sources"]] == [
        (1, "added", 1),
        (2, "settings", 1),
        (3, "settings", 0),
    ]
    assert not lib["sources"][2]["exists"]
    assert "shadowed" in lib["warnings"][0] and str(configured / "dup.pdf") in lib["warnings"][0]
    assert any("not found" in w for w in lib["warnings"][1:])
    assert {f["file"]: f["origin"] for f in lib["files"]} == {
        "dup.pdf": "added",
        "missing-elsewhere.pdf": "settings",
    }
    assert html.index("shadowed") < html.index('id="files-h"')
