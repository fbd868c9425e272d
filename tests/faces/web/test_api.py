"""The JSON API against a real server on loopback: search from a replay cassette, query
checks with positions, selection, saved papers (filters, exports), reader (highlights
verified server-side, comments), Studies; errors as {error, code, message}."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from tests.faces.web._server import SHOWN_TITLE, Running


def _search(c, **params):
    r = c.get("/api/v1/search", params={"q": "tumour growth", **params})
    assert r.status_code == 200, r.text
    return r.json()


def test_query_check_reports_the_position(running: Running) -> None:
    with running.client() as c:
        bad = c.get("/api/v1/query/check", params={"q": "cancer AND ("}).json()
        good = c.get("/api/v1/query/check", params={"q": '"drug resistance" AND tb'}).json()
    assert bad["ok"] is False and bad["position"] == 12 and bad["message"]
    assert good == {"ok": True, "message": None, "code": None, "position": None, "end": None}


def test_search_from_the_cassette_with_lanes_why_and_provenance(running: Running) -> None:
    with running.client() as c:
        data = _search(c)
        nxt = _search(c, cursor=data["paging"]["next_cursor"])
    assert data["run"]["lanes"][0]["status"] == "ok"
    assert data["run"]["lanes"][0]["executed_query"]
    assert data["paging"] == {
        "kind": "cursor",
        "page": 1,
        "pages": 1,
        "page_size": 20,
        "next_cursor": "run." + data["run"]["id"],  # bound to this run and owner
        "cursor": None,
    }
    assert data["run"]["next_cursor"] == "AoE/next=="  # the provider's own, for provenance
    titles = [card["paper"]["title"] for card in data["cards"]]
    assert len(titles) == 7 and titles[0] == SHOWN_TITLE
    assert all(
        card["why"] and "Europe PMC, keyword search: rank" in card["why"][0]
        for card in data["cards"]
    )
    assert [card["paper"]["pmid"] for card in nxt["cards"]] == [
        str(40_000_000 + i) for i in range(20, 24)
    ]
    assert data["partial_failure"] is False and data["all_failed"] is False


def test_bad_query_is_a_json_error_with_its_position(running: Running) -> None:
    with running.client() as c:
        r = c.get("/api/v1/search", params={"q": "growth AND (tumour"})
        miss = c.get("/api/v1/search", params={"q": "nothing recorded"})
    assert r.status_code == 400
    body = r.json()
    assert body["error"] == "SearchInputError" and body["details"]["position"] == 12
    # a request the replay cassette does not hold: refused as not found, nothing sent out
    assert miss.status_code == 404
    assert miss.json()["error"] == "CassetteMiss" and "cassette" in miss.json()["message"]


def test_selection_save_into_a_new_study_and_partial_failures(running: Running) -> None:
    with running.writer() as c:
        data = _search(c)
        run_id = data["run"]["id"]
        ids = [card["paper"]["id"] for card in data["cards"][:3]]
        r = c.post(
            "/api/v1/selection/save",
            json={"run_id": run_id, "paper_ids": [*ids, "MED-1"], "new_study": "Growth review"},
        )
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["saved"] == ids and out["created"] == 3 and out["study_name"] == "Growth review"
        assert out["failed"] == [{"id": "MED-1", "title": "", "reason": "not in this search run"}]
        again = c.post("/api/v1/selection/save", json={"run_id": run_id, "paper_ids": ids}).json()
        assert again["created"] == 0 and again["saved"] == ids  # re-saving never duplicates
        too_many = c.post(
            "/api/v1/selection/save",
            json={"run_id": run_id, "paper_ids": [f"MED-{i}" for i in range(21)]},
        )
        assert too_many.status_code == 400 and too_many.json()["code"] == "selection_size"
        gone = c.post("/api/v1/selection/save", json={"run_id": "nope", "paper_ids": ids})
        assert gone.status_code == 404 and gone.json()["code"] == "run_not_open"
        study = c.get(f"/api/v1/studies/{out['study_id']}").json()
        assert [p["id"] for p in study["papers"]] and len(study["papers"]) == 3
        ris = c.post("/api/v1/selection/ris", json={"run_id": run_id, "paper_ids": ids})
        assert ris.status_code == 200 and ris.text.count("ER  -") == 3
        assert "attachment" in ris.headers["content-disposition"]


def _save_all(c) -> list[str]:
    data = _search(c)
    ids = [card["paper"]["id"] for card in data["cards"]]
    out = c.post(
        "/api/v1/selection/save", json={"run_id": data["run"]["id"], "paper_ids": ids}
    ).json()
    assert out["saved"] == ids
    return ids


def test_saved_filters_and_exports(running: Running) -> None:
    with running.writer() as c:
        ids = _save_all(c)
        everything = c.get("/api/v1/saved").json()
        assert (
            everything["matched"] == everything["total_saved"] == 7
            and everything["capped"] is False
        )
        by_doi = c.get("/api/v1/saved", params={"text": "https://doi.org/10.5555/LITDESK.3"}).json()
        assert [p["doi"] for p in by_doi["papers"]] == ["10.5555/litdesk.3"]
        fuzzy = c.get("/api/v1/saved", params={"text": "tumuor"}).json()  # misspelt, 6 letters
        assert fuzzy["matched"] >= 1
        none = c.get("/api/v1/saved", params={"text": "zzzzqqqq"}).json()
        assert none["matched"] == 0
        c.post(f"/api/v1/papers/{ids[1]}/status", json={"status": "reading"}).raise_for_status()
        reading = c.get("/api/v1/saved", params={"status": "reading"}).json()
        assert [p["id"] for p in reading["papers"]] == [ids[1]]
        ris = c.get("/api/v1/saved/export", params={"format": "ris", "status": "reading"})
        assert ris.status_code == 200 and ris.text.count("ER  -") == 1
        assert ris.headers["x-litdesk-records"] == "1"
        table = c.get("/api/v1/saved/export", params={"format": "csv"})
        rows = list(csv.DictReader(io.StringIO(table.text)))
        assert len(rows) == 7
        # a title starting with a formula character is neutralised in CSV
        bib = c.get(
            "/api/v1/saved/export", params={"format": "bibtex", "text": "10.5555/litdesk.2"}
        )
        assert bib.text.count("@") == 1 and "10.5555/litdesk.2" in bib.text
        bad = c.get("/api/v1/saved/export", params={"format": "docx"})
        assert bad.status_code == 422


def test_reader_highlights_are_verified_server_side(running: Running) -> None:
    with running.writer() as c:
        ids = _save_all(c)
        first = ids[0]
        view = c.get(f"/api/v1/papers/{first}").json()
        abstract = view["paper"]["abstract"]
        assert view["saved"] is True and view["source"] == "store"
        start = abstract.index("growth slowed")
        ok = c.post(
            f"/api/v1/papers/{first}/highlights",
            json={"text": "growth slowed", "start": start, "comment": "key result"},
        )
        assert ok.status_code == 200, ok.text
        marked = [s for s in ok.json()["abstract_segments"] if s["marked"]]
        assert marked == [{"text": "growth slowed", "marked": True}]
        wrong = c.post(
            f"/api/v1/papers/{first}/highlights", json={"text": "growth slowed", "start": start + 1}
        )
        assert wrong.status_code == 422 and wrong.json()["code"] == "anchor_mismatch"
        occ = c.get(f"/api/v1/papers/{first}/occurrences", params={"text": "growth"}).json()[
            "occurrences"
        ]
        assert [o["start"] for o in occ] == [
            i for i in range(len(abstract)) if abstract.startswith("growth", i)
        ]
        too_long = c.post(f"/api/v1/papers/{first}/comments", json={"comment": "x" * 4_001})
        assert too_long.status_code == 422
        fine = c.post(f"/api/v1/papers/{first}/comments", json={"comment": "x" * 4_000})
        assert fine.status_code == 200 and len(fine.json()["notes"]) == 2
        missing = c.get("/api/v1/papers/MED-99999999")
        assert missing.status_code == 404 and missing.json()["code"] == "paper_not_found"


def test_unsaved_paper_from_a_recent_run_is_not_saved_by_viewing(running: Running) -> None:
    with running.writer() as c:
        data = _search(c)
        pid = data["cards"][2]["paper"]["id"]
        view = c.get(f"/api/v1/papers/{pid}").json()
        assert view["saved"] is False and view["source"] == "search run"
        assert c.get("/api/v1/saved").json()["total_saved"] == 0
        c.post(f"/api/v1/papers/{pid}/save", json={}).raise_for_status()
        assert c.get("/api/v1/saved").json()["total_saved"] == 1
        looked = c.get("/api/v1/papers/MED-40000099").json()  # neither saved nor in a run
        assert looked["source"] == "lookup" and looked["paper"]["title"] == "Looked up by its id"
        assert c.get("/api/v1/saved").json()["total_saved"] == 1  # viewing never saves
        c.post(
            "/api/v1/papers/MED-40000099/save", json={}
        ).raise_for_status()  # from the lookup run
        assert c.get("/api/v1/papers/MED-40000099").json()["source"] == "store"


def test_studies_create_rename_and_errors(running: Running) -> None:
    with running.writer() as c:
        made = c.post("/api/v1/studies", json={"name": "Alpha", "description": "first"}).json()
        assert made["name"] == "Alpha" and made["papers"] == []
        dup = c.post("/api/v1/studies", json={"name": "Alpha"})
        assert dup.status_code == 409 and dup.json()["code"] == "study_exists"
        renamed = c.post(f"/api/v1/studies/{made['id']}/rename", json={"name": "Beta"}).json()
        assert renamed["name"] == "Beta" and renamed["id"] == made["id"]
        listed = c.get("/api/v1/studies").json()["studies"]
        assert [s["name"] for s in listed] == ["Beta"]
        nope = c.get("/api/v1/studies/nothing-here")
        assert nope.status_code == 404 and set(nope.json()) >= {"error", "code", "message"}


def test_html_errors_are_pages_without_internals(running: Running) -> None:
    with running.client() as c:
        r = c.get("/paper/MED-12345")
        unknown = c.get("/no/such/page")
        api_unknown = c.get("/api/v1/no/such")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    assert "neither saved nor in a recent search" in r.text and "Traceback" not in r.text
    assert unknown.status_code == 404 and "text/html" in unknown.headers["content-type"]
    assert api_unknown.status_code == 404 and api_unknown.json()["code"] == "not_found"


def test_partial_failure_is_reported_beside_the_results(tmp_settings, tmp_path) -> None:
    from pydantic import SecretStr
    from tests.faces.web._hosting import Hosting, client_for
    from tests.faces.web._server import epmc_body, epmc_record, write_cassette

    from litdesk.faces.web import create_app

    settings = tmp_settings.model_copy(update={"openalex_api_key": SecretStr("k-test-123456")})
    folder = tmp_path / "cas2"
    write_cassette(
        folder,
        "tumour growth",
        epmc_body([epmc_record(i) for i in range(1, 4)]),
        providers=["europepmc", "openalex"],
        answers={"openalex-keyword": (503, b'{"error": "upstream <b>down</b> secret-body"}')},
    )
    hosting = Hosting.in_process()
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=folder)
    with hosting.serve(app) as served, client_for(hosting.base, served, 30) as c:
        params = {"q": "tumour growth", "provider": ["europepmc", "openalex"]}
        data = c.get("/api/v1/search", params=params).json()
        html = c.get("/search", params=params).text
    statuses = {lane["lane"]: lane["status"] for lane in data["run"]["lanes"]}
    assert statuses["europepmc-keyword"] == "ok" and statuses["openalex-keyword"] != "ok"
    assert data["partial_failure"] is True and data["all_failed"] is False
    assert len(data["cards"]) == 3 and data["paging"]["kind"] == "frozen"  # fused: frozen pages
    assert "Some databases did not answer" in html
    assert "<b>down</b>" not in html  # an upstream body never reaches the page as markup


def test_a_search_run_kept_in_a_study_restores_and_exports(running: Running) -> None:
    with running.writer() as c:
        study = c.post("/api/v1/studies", json={"name": "Runs"}).json()
        other = c.post("/api/v1/studies", json={"name": "Other"}).json()
        data = _search(c, sort="newest", year_from=2020)
        run_id = data["run"]["id"]
        kept = c.post(f"/api/v1/runs/{run_id}/save", json={"study": study["id"]})
        assert kept.status_code == 200, kept.text
        runs = kept.json()["runs"]
        assert [r["id"] for r in runs] == [run_id] and runs[0]["hits"] == 7
        assert runs[0]["restore"].startswith(
            "/search?q=tumour+growth&mode=keyword&provider=europepmc"
        )
        assert "sort=newest" in runs[0]["restore"] and "year_from=2020" in runs[0]["restore"]
        again = c.post(f"/api/v1/runs/{run_id}/save", json={"study": other["id"]}).json()
        assert [r["id"] for r in again["runs"]] == [run_id]  # the kept run is attached, not copied
        manifest = c.get(f"/api/v1/runs/{run_id}/export", params={"format": "json"})
        assert manifest.status_code == 200 and run_id in manifest.text
        ris = c.get(f"/api/v1/runs/{run_id}/export", params={"format": "ris"})
        assert ris.text.count("ER  -") == 7
        prisma = c.get(f"/api/v1/runs/{run_id}/export", params={"format": "prisma-md"})
        assert prisma.status_code == 200 and "europepmc" in prisma.text.lower()
        page = c.get(f"/study/{study['id']}").text
        assert "Restore into the search form" in page
        restored = c.get(runs[0]["restore"])
        assert restored.status_code == 200 and 'value="tumour growth"' in restored.text
        # restoring fills the form only: no search ran (no run, no lanes, no cards)
        assert "has not been run" in restored.text and 'class="card' not in restored.text
        assert 'aria-label="Provider lanes"' not in restored.text
        assert "Search provenance" not in restored.text
        missing = c.get("/api/v1/runs/nope/export")
        assert missing.status_code == 404


def test_evidence_and_the_review_notebook(running: Running) -> None:
    with running.writer() as c:
        ids = _save_all(c)
        study = c.post("/api/v1/studies", json={"name": "Ev"}).json()
        pid = ids[1]
        abstract = c.get(f"/api/v1/papers/{pid}").json()["paper"]["abstract"]
        passage = abstract[abstract.index("growth slowed") :][:13]
        ok = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={
                "finding": '=HYPERLINK("x") growth slowed',
                "passage": passage,
                "population": "mice",
                "study": study["id"],
            },
        )
        assert ok.status_code == 200, ok.text
        assert (
            ok.json()["evidence"][0]["recheck"] == "ok"
            and ok.json()["evidence"][0]["population"] == "mice"
        )
        forged = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={"finding": "f", "passage": "not in the abstract"},
        )
        assert forged.status_code in (400, 403, 422) and forged.json()["code"]
        external = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={"finding": "f", "passage": "p", "source": "external"},
        )
        assert external.status_code in (400, 422)  # an external passage needs a location
        table = c.get("/api/v1/evidence", params={"study": study["id"]}).json()
        assert len(table["evidence"]) == 1 and table["evidence"][0]["paper_title"]
        assert c.get("/api/v1/evidence").json()["evidence"][0]["id"] == table["evidence"][0]["id"]
        csv_text = c.get("/api/v1/evidence/export").text
        assert "'=HYPERLINK" in csv_text  # formula-safe
        c.post(
            f"/api/v1/papers/{pid}/comments", json={"comment": "check the dose"}
        ).raise_for_status()
        start = abstract.index("growth")
        c.post(
            f"/api/v1/papers/{pid}/highlights", json={"text": "growth", "start": start}
        ).raise_for_status()
        book = c.get("/api/v1/notebook").json()
        assert book["total"] == 2 and {n["kind"] for n in book["notes"]} == {"comment", "highlight"}
        assert c.get("/api/v1/notebook", params={"kind": "comment"}).json()["matched"] == 1
        assert c.get("/api/v1/notebook", params={"text": "DOSE"}).json()["matched"] == 1
        md = c.get("/api/v1/notebook/export")
        assert md.status_code == 200 and "check the dose" in md.text and "> growth" in md.text
        page = c.get("/evidence").text
        assert "mice" in page and "Export as CSV" in page


RIS = (
    "TY  - JOUR\nTI  - <script>alert(12)</script> Imported title\nAU  - Doe, J\nPY  - 2021\n"
    "DO  - 10.5555/imported.1\nER  - \n\nTY  - JOUR\nTI  - Second imported\nAU  - Roe, R\n"
    "PY  - 2020\nDO  - 10.5555/imported.2\nER  - \n"
)


def test_import_files_into_a_study(running: Running) -> None:
    with running.writer() as c:
        study = c.post("/api/v1/studies", json={"name": "Imports"}).json()
        files = [
            ("files", ("refs.ris", RIS.encode(), "application/x-research-info-systems")),
            ("files", ("junk.bin", b"\x00\x01\x02 not a bibliography", "application/octet-stream")),
        ]
        r = c.post("/api/v1/imports", params={"study": study["id"]}, files=files)
        assert r.status_code == 200, r.text
        out = r.json()
        assert [i["file"] for i in out["imported"]] == ["refs.ris"]
        first = out["imported"][0]
        assert first["format"] == "ris" and first["records"] == 2 and first["papers_created"] == 2
        assert first["encoding"]
        assert [x["file"] for x in out["refused"]] == ["junk.bin"] and out["refused"][0]["code"]
        summary = c.get(f"/api/v1/studies/{study['id']}").json()
        assert len(summary["papers"]) == 2 and len(summary["imports"]) == 1
        big = c.post(
            "/api/v1/imports",
            params={"study": study["id"]},
            files=[("files", ("big.ris", b"x" * 61_000_000, "text/plain"))],
        )
        assert big.status_code == 413  # over the request limit, refused while streaming
        none = c.post("/api/v1/imports", params={"study": "nope"}, files=files[:1])
        assert none.status_code == 404


@pytest.mark.fixtures
def test_too_many_files_says_how_many_and_imports_none(
    running: Running, fixtures_dir: Path
) -> None:
    """25 of the real RIS exports dropped at once: the answer was "at most 20 files at once";
    it says that nothing was imported and how to import them."""
    paths = sorted((fixtures_dir / "bib" / "ris").glob("*.ris"))[:25]
    files = [
        ("files", (p.name, p.read_bytes(), "application/x-research-info-systems")) for p in paths
    ]
    with running.writer() as c:
        study = c.post("/api/v1/studies", json={"name": "Many"}).json()
        r = c.post("/api/v1/imports", params={"study": study["id"]}, files=files)
        assert r.status_code == 400 and r.json()["code"] == "too_many_files"
        assert r.json()["message"] == (
            "more than 20 files chosen, and one import takes at most 20: nothing was imported; "
            "import them 20 at a time (or all at once with litdesk import)"
        )
        assert c.get(f"/api/v1/studies/{study['id']}").json()["imports"] == []
        r = c.post("/api/v1/imports", params={"study": study["id"]}, files=files[:20])
        assert r.status_code in (200, 202), r.text
