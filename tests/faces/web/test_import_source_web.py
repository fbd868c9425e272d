"""An import's PRISMA source over HTTP (issue 28), against a real server on loopback: the
upload's two fields (``source``, ``source_kind``) on ``POST /api/v1/imports``, the Study
page's "Counted as" column with its form (posted with the CSRF token, no JavaScript), the
JSON twin, and the PRISMA page and diagram reading the names and kinds."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.fixtures


def _upload(c, sid: str, path: Path, **fields: str) -> dict:
    files = [("files", (path.name, path.read_bytes(), "application/octet-stream"))]
    r = c.post("/api/v1/imports", params={"study": sid}, files=files, data=fields)
    assert r.status_code == 200, r.text
    return r.json()["imported"][0]


def test_sources_named_at_upload_and_changed_on_the_study_page(
    running: Running, fixtures_dir: Path
) -> None:
    ris = fixtures_dir / "bib" / "ris"
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Knee <i>OA</i>"}).json()["id"]
        embase = _upload(c, sid, ris / "asreview__embase.ris")
        assert embase["source"] == {"name": "Embase", "kind": "database", "origin": "file"}
        reg = _upload(c, sid, ris / "asreview___baseline.ris", source="ClinicalTrials.gov")
        assert reg["source"]["kind"] == "register"
        cited = _upload(
            c, sid, ris / "rispy__example_full.ris", source="<b>Citation</b> searching",
            source_kind="other",
        )  # fmt: skip
        assert cited["source"]["kind"] == "other"
        bad = c.post(
            "/api/v1/imports",
            params={"study": sid},
            files=[("files", ("x.ris", (ris / "asreview__scopus.ris").read_bytes()))],
            data={"source_kind": "website"},
        )
        assert bad.status_code == 400 and "not one of" in bad.json()["message"]
        page = c.get(f"/study/{sid}").text
        assert 'id="import-source-name"' in page and 'id="import-source-kind"' in page
        assert "Counted as" in page and "&lt;b&gt;Citation&lt;/b&gt; searching" in page
        assert "<b>Citation</b>" not in page
        assert f'action="/study/{sid}/imports/{embase["import_id"]}/source"' in page

        # the page's form, as a browser without JavaScript posts it: the CSRF token field
        token = c.headers.pop("x-csrf-token")
        moved = c.post(
            f"/study/{sid}/imports/{embase['import_id']}/source",
            data={"csrf_token": token, "name": "Embase (Ovid)", "kind": "database"},
        )
        assert moved.status_code == 303 and moved.headers["location"].endswith("#imports")
        no_token = c.post(
            f"/study/{sid}/imports/{embase['import_id']}/source",
            data={"name": "Scopus", "kind": "database"},
        )
        assert no_token.status_code == 403
        c.headers["x-csrf-token"] = token
        api = c.post(
            f"/api/v1/studies/{sid}/imports/{reg['import_id']}/source",
            json={"name": "WHO ICTRP", "kind": "register"},
        )
        assert api.status_code == 200, api.text
        assert api.json()["source"] == {"name": "WHO ICTRP", "kind": "register"}
        flow = c.get(f"/api/v1/studies/{sid}/prisma-2020").json()
        sources = {
            s["name"]: (s["kind"], s["records"]) for s in flow["rounds"][0]["identified"]["sources"]
        }
        assert sources == {
            "Embase (Ovid)": ("database", 6),
            "WHO ICTRP": ("register", 100),
            "<b>Citation</b> searching": ("other", 2),
        }
        html = c.get(f"/study/{sid}/prisma").text
        assert "Embase (Ovid)" in html and "WHO ICTRP" in html and "<b>Citation" not in html
        svg = c.get(f"/study/{sid}/prisma-2020.svg").text
        assert "Identification via other methods" in svg and "WHO ICTRP (n = 100)" in svg


def test_a_zotero_export_is_counted_under_other_methods(
    running: Running, fixtures_dir: Path
) -> None:
    """A Zotero RIS export uploaded with the Source field left empty counts under other
    methods, named after Zotero and the file, on the Study page and the PRISMA page; the
    Source field names the database instead."""
    zotero = fixtures_dir / "bib" / "ris" / "asreview__pubmed_zotero.ris"
    name = "Zotero export: asreview__pubmed_zotero.ris"
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Zotero library"}).json()["id"]
        imported = _upload(c, sid, zotero)
        assert imported["source"] == {"name": name, "kind": "other", "origin": "file"}
        page = c.get(f"/study/{sid}").text
        assert f'{name} <span class="muted">(other method)</span>' in page
        assert name in c.get(f"/study/{sid}/prisma").text
        other = c.post("/api/v1/studies", json={"name": "Named"}).json()["id"]
        named = _upload(c, other, zotero, source="PubMed")
        assert named["source"] == {"name": "PubMed", "kind": "database", "origin": "given"}
