"""The Zotero page and its JSON twin: the form imports the real Zotero 6 directory (the
page shows the result), the API imports again (nothing duplicated); a write without its
Origin or CSRF token is refused; errors are shown beside the form."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.fixtures


def test_zotero_page_form_and_api(running: Running, fixtures_dir: Path) -> None:
    data = str(fixtures_dir / "zotero" / "zotero-6-papis")
    with running.writer() as c:
        page = c.get("/zotero")
        assert page.status_code == 200 and 'id="zotero-form"' in page.text
        token = c.cookies.get("ld_csrf")
        form = {"csrf_token": token, "data_dir": data, "study": "Papis", "pdfs": "true"}
        done = c.post("/zotero/import", data=form)
        assert done.status_code == 200, done.text
        assert 'id="count-added">5<' in done.text and 'id="count-pdfs">4<' in done.text
        assert 'id="count-pdfs-new">4<' in done.text
        again = c.post("/api/v1/zotero/imports", json={"data_dir": data, "study": "Papis"})
        assert again.status_code == 200, again.text
        body = again.json()
        assert (body["added"], body["unchanged"], body["schema_version"]) == (0, 5, 121)
        assert (body["pdfs_attached"], body["pdfs_new"]) == (4, 0)  # all of them, none new
        shown = c.post("/zotero/import", data=form)
        assert 'id="count-pdfs">4<' in shown.text and 'id="count-pdfs-new">0<' in shown.text
        missing = c.post("/zotero/import", data={**form, "data_dir": "/no/such/zotero"})
        assert missing.status_code == 404 and 'id="zotero-error"' in missing.text
        bad = c.post("/api/v1/zotero/imports", json={"data_dir": data, "study": " "})
        assert bad.status_code == 422 or bad.status_code == 400
    with running.client() as plain:  # no Origin, no CSRF token: refused before the route
        refused = plain.post("/api/v1/zotero/imports", json={"data_dir": data})
        assert refused.status_code == 403


def test_push_page_plan_confirm_result_and_api(running: Running, fixtures_dir: Path,
                                               tmp_path: Path) -> None:  # fmt: skip
    data = str(fixtures_dir / "zotero" / "zotero-6-papis")
    out = tmp_path / "back.ris"
    with running.writer() as c:
        done = c.post("/api/v1/zotero/imports", json={"data_dir": data, "study": "Papis"})
        assert done.status_code == 200, done.text
        papers = c.get("/api/v1/studies/Papis").json()["papers"]
        status = c.post(f"/api/v1/papers/{papers[0]['id']}/status", json={"status": "read"})
        assert status.status_code == 200, status.text
        form_page = c.get("/zotero/push", params={"study": "Papis"})
        assert form_page.status_code == 200 and 'id="push-form"' in form_page.text
        assert 'href="/zotero"' in form_page.text  # the nav link
        token = c.cookies.get("ld_csrf")
        form = {"csrf_token": token, "study": "Papis", "target": "ris", "ris_path": str(out)}
        plan = c.post("/zotero/push", data=form)
        assert plan.status_code == 200, plan.text
        assert 'id="push-plan-view"' in plan.text and "add <code>litdesk:read</code>" in plan.text
        assert 'id="push-confirm"' in plan.text and not out.exists()  # shown, not written
        result = c.post("/zotero/push", data={**form, "confirm": "true"})
        assert result.status_code == 200 and 'id="push-result"' in result.text
        assert "KW  - litdesk:read" in out.read_text(encoding="utf-8")
        twin = c.post("/api/v1/zotero/pushes", json={"study": "Papis", "ris_path": str(out)})
        assert twin.status_code == 200 and twin.json()["written"] is False
        assert len(twin.json()["plan"]["items"]) == 5
        out.unlink()
        wrote = c.post(
            "/api/v1/zotero/pushes", json={"study": "Papis", "ris_path": str(out), "confirm": True}
        )
        assert wrote.status_code == 200 and wrote.json()["file"] == str(out) and out.exists()
        bad = c.post("/zotero/push", data={**form, "target": "web", "library": "users/1"})
        assert bad.status_code == 400 and 'id="push-error"' in bad.text  # no key: refused
    with running.client() as plain:  # no Origin, no CSRF token: refused before the route
        refused = plain.post("/api/v1/zotero/pushes", json={"study": "Papis", "ris_path": "x"})
        assert refused.status_code == 403


def test_push_plan_shows_screening_decisions(running: Running, fixtures_dir: Path,
                                             tmp_path: Path) -> None:  # fmt: skip
    data = str(fixtures_dir / "zotero" / "zotero-6-papis")
    out = tmp_path / "decisions.ris"
    with running.writer() as c:
        done = c.post("/api/v1/zotero/imports",
                      json={"data_dir": data, "study": "Screened", "pdfs": False})  # fmt: skip
        assert done.status_code == 200, done.text
        base = "/api/v1/studies/Screened/screening"
        rows = c.get(f"{base}/items").json()["rows"]
        for row, verdict, reason in ((rows[0], "exclude", "wrong outcome"),
                                     (rows[1], "include", "")):  # fmt: skip
            body = {"stage": "title_abstract", "record_key": row["record_key"],
                    "verdict": verdict, "reason": reason}  # fmt: skip
            decided = c.post(f"{base}/decisions", json=body)
            assert decided.status_code == 200, decided.text
        token = c.cookies.get("ld_csrf")
        form = {"csrf_token": token, "study": "Screened", "target": "ris", "ris_path": str(out)}
        plan = c.post("/zotero/push", data=form)
        assert plan.status_code == 200, plan.text
        assert "add <code>litdesk:ta:excluded</code>" in plan.text
        assert "add <code>litdesk:reason:wrong outcome</code>" in plan.text
        assert "add <code>litdesk:ta:included</code>" in plan.text and not out.exists()
        twin = c.post("/api/v1/zotero/pushes", json={"study": "Screened", "ris_path": str(out)})
        tags = [t for i in twin.json()["plan"]["items"] for t in i["tags"]]
        assert sorted(tags) == [
            "litdesk:reason:wrong outcome", "litdesk:ta:excluded", "litdesk:ta:included",
        ]  # fmt: skip
        assert twin.json()["plan"]["blind_stages"] == []
        result = c.post("/zotero/push", data={**form, "confirm": "true"})
        assert result.status_code == 200 and 'id="push-result"' in result.text
        assert "KW  - litdesk:ta:excluded" in out.read_text(encoding="utf-8")
        settings = c.post(f"{base}/settings", json={"dual_review": {"full_text": True}})
        assert settings.status_code == 200, settings.text
        blind = c.post("/zotero/push", data=form)
        assert 'id="push-blind-full_text"' in blind.text


def test_import_from_zotero_org_form_and_api(running: Running, fixtures_dir: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The zotero.org form and its JSON twin through a loopback Web API server: the key
    given in the form is used, never shown back; importing again reads only the changes."""
    from functools import partialmethod

    from tests._zotero_server import ToLoopback
    from tests._zotero_web import WebServer, WebState

    from litdesk.services.zotero import ZoteroArea

    key = "K" * 24
    state = WebState.from_library(fixtures_dir / "zotero" / "zotero-6-papis")
    with WebServer(state) as server:
        loop = ToLoopback(server.port)
        monkeypatch.setattr(
            ZoteroArea, "__init__", partialmethod(ZoteroArea.__init__, http_transport=loop)
        )
        with running.writer() as c:
            page = c.get("/zotero")
            assert 'id="zotero-web-form"' in page.text and 'type="password"' in page.text
            token = c.cookies.get("ld_csrf")
            form = {"csrf_token": token, "library": "users/123", "api_key": key,
                    "study": "Papis", "pdfs": "true"}  # fmt: skip
            done = c.post("/zotero/import-web", data=form)
            assert done.status_code == 200, done.text
            assert 'id="count-added">5<' in done.text and 'id="count-pdfs">4<' in done.text
            assert "at zotero.org users/123" in done.text and "(every item)" in done.text
            assert key not in done.text
            wrong = c.post("/zotero/import-web", data={**form, "api_key": "WRONG"})
            assert wrong.status_code == 403 and "the Zotero API key was refused" in wrong.text
            assert "WRONG" not in wrong.text.replace('id="zotero-error"', "")
            body = {"library": "users/123", "api_key": key, "study": "Papis", "pdfs": True}
            again = c.post("/api/v1/zotero/web-imports", json=body)
            assert again.status_code == 200, again.text
            got = again.json()
            assert (got["added"], got["since"]) == (0, state.version)
            assert key not in again.text
            bad = c.post("/api/v1/zotero/web-imports", json={**body, "library": "me"})
            assert bad.status_code in (400, 422)
        with running.client() as plain:  # no Origin, no CSRF token: refused before the route
            refused = plain.post("/api/v1/zotero/web-imports", json=body)
            assert refused.status_code == 403
    assert all(h == "https://api.zotero.org:443" or h == "https://files.zotero.net:443"
               for h in loop.hosts)  # fmt: skip


def test_the_workspace_key_is_never_a_team_accounts() -> None:
    """An empty key field takes the setting's key for the single-user workspace only: a
    team account always reads with its own key (or none: a public library)."""
    from types import SimpleNamespace

    from pydantic import SecretStr

    from litdesk.faces.web.routes.zotero import WebImportBody, _web_request

    app = SimpleNamespace(
        owner="local", settings=SimpleNamespace(zotero_api_key=SecretStr("S" * 24))
    )
    body = WebImportBody(library="groups/4711")
    assert _web_request(app, "local", body).api_key == "S" * 24  # type: ignore[arg-type]
    assert _web_request(app, "alice", body).api_key is None  # type: ignore[arg-type]
    own = WebImportBody(library="groups/4711", api_key="A" * 24)
    assert _web_request(app, "alice", own).api_key == "A" * 24  # type: ignore[arg-type]
