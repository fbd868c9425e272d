"""No absolute server paths in a team server's answers (issue 29): ana makes her records
(a search, Studies, imports, a library PDF and its index job, a chat question, a report
build, AI assistance), then every JSON read of the API document and the main pages, as
ana, with her own record ids, and the answers to bad uploads, must name no directory of
the server (its data dir, the test's folders, the source tree)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.faces.web._idor import (
    Served,
    build_probes,
    make_ana_records,
    send,
    server,  # noqa: F401 - fixture
)
from tests.faces.web._team import SRC
from tests.faces.web.test_team_auth import team_settings  # noqa: F401 - fixture re-export


def _paths(settings_dirs: list[str], text: str) -> list[str]:
    found = [d for d in settings_dirs if d in text]
    # any absolute POSIX path of three or more parts (a file name alone is fine)
    found += re.findall(r"(?<![\w.:/])/(?:home|tmp|srv|var|work|usr|root|opt)/[^\s\"'<]+", text)
    return found


def test_team_answers_name_no_server_paths(server: Served, tmp_path: Path) -> None:  # noqa: F811
    settings = server.team.settings
    dirs = sorted(
        {str(settings.resolved_data_dir()), str(tmp_path), str(SRC), str(SRC.parent)},
        key=len,
        reverse=True,
    )
    with server.signed_in("ana") as ana_client:
        ana = make_ana_records(ana_client, server.model, tmp_path / "pdfs")
        doc = ana_client.get("/api/v1/openapi.json").json()
        failures: list[str] = []
        probes = [p for p in build_probes(doc, ana) if p.method == "GET"]
        assert len(probes) >= 30
        pages = ["/", "/library", "/saved", "/studies", f"/study/{ana.study_id}", "/chat"]
        pages += [f"/study/{ana.study_id}/{tail}" for tail in ("fulltext", "dedup", "prisma")]
        for probe in probes:
            r = send(ana_client, probe)
            found = _paths(dirs, r.content.decode("utf-8", "replace"))
            if found:
                failures.append(f"{probe.label()}: {r.status_code} names {found[:3]}")
        for url in pages:
            r = ana_client.get(url)
            found = _paths(dirs, r.text)
            if found:
                failures.append(f"GET {url}: {r.status_code} names {found[:3]}")
        # bad uploads: their refusals name the file as sent, never where it was kept
        bad = [
            ("/api/v1/library/uploads", "files", ("x.pdf", b"%PDF-1.4 broken", "application/pdf")),
            ("/api/v1/study-imports", "file", ("s.zip", b"PK\x03\x04broken", "application/zip")),
        ]
        for url, field, part in bad:
            r = ana_client.post(url, files=[(field, part)])
            found = _paths(dirs, r.text)
            if found:
                failures.append(f"POST {url}: {r.status_code} names {found[:3]}")
        assert not failures, "answers naming server paths:\n" + "\n".join(failures)


def test_error_messages_hide_the_server_s_folders(tmp_path: Path) -> None:
    """A typed error whose message names a file under the data dir answers with ``…`` in
    place of the folder on a team server; a single-user server shows it as it is."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from litdesk import LitdeskError
    from litdesk.faces.web._errors import install_error_handlers

    folder = str(tmp_path / "data")
    for hide, shown in (
        ((folder,), "…/library/inbox/a.pdf"),
        ((), f"{folder}/library/inbox/a.pdf"),
    ):
        web = FastAPI()
        install_error_handlers(web, hide=hide)

        @web.get("/api/v1/x")
        def fail() -> None:
            raise LitdeskError(f"cannot read {folder}/library/inbox/a.pdf")

        r = TestClient(web).get("/api/v1/x")
        assert r.status_code == 500 and r.json()["message"] == f"cannot read {shown}"
