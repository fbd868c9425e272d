"""Several hosts (issue 29): two ``litdesk serve --team`` processes with separate data
directories on one PostgreSQL schema and one S3-compatible object store (moto's server mode
on loopback: real HTTP, the S3 wire format) serve the same library, chats and reports:

* on A's disk only, a folder added with ``litdesk library add`` and a Zotero library's
  files (``litdesk zotero import``, linked in place);
* host A alone takes a PDF upload, indexes it, answers a chat question and builds a
  report; host B, started beside it on its own empty data directory, shows the Zotero PDF's
  and the folder PDF's viewer pages and the folder PDF's record page (its first page read
  on B), lists every PDF, serves a page image, reopens the chat round (and ana's history)
  and the report's download; the day's protocol read on B holds A's answer;
* with A stopped, B alone answers the next question of the same chat from that PDF with
  the vectors A made (fetched from the object store, not indexed again); the chat deleted
  on B leaves nothing in the store.

The store then holds the upload, the vectors and the report; no secret reaches either
server's log."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from tests._object_server import ACCESS_KEY, SECRET_KEY, S3Server, s3_server
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import free_port
from tests.faces.web._team import PASSWORD, add_accounts, login, start_team_process, wait_ready

from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.library import ProtocolRequest
from litdesk.services.zotero import ZoteroImportRequest

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[3] / "src"
QUESTION = "How was the water level measured?"
SOIL_TITLE = "Drying Soil Samples in the Field"
SOIL = "Soil samples were dried at one hundred and five degrees and weighed on a scale. " * 8


def _env(tmp_path: Path, name: str, url: str, s3: S3Server) -> dict[str, str]:
    """The environment of host ``name``'s processes (its own data directory)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    return (
        env
        | {
            "PYTHONPATH": str(SRC),
            "LITDESK_DATA_DIR": str(tmp_path / f"data-{name}"),
            "LITDESK_DATABASE_URL": url,
            "LITDESK_EMBEDDER": "wordllama",
            "LITDESK_LIBRARY_INDEX_WORKERS": "1",
        }
        | s3.env()
    )


@contextmanager
def _host(tmp_path: Path, name: str, url: str, s3: S3Server) -> Iterator[str]:
    """One team server process with its own data directory; its base URL."""
    env = _env(tmp_path, name, url, s3)
    port = free_port()
    log = tmp_path / f"host-{name}.log"
    proc = start_team_process(port, None, env, log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, proc, log)
        yield base
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        text = log.read_text()
        assert SECRET_KEY not in text and PASSWORD not in text


@contextmanager
def _on(base: str, session: tuple[str, str], chat: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=base,
        cookies={"ld_session": session[0], "ld_csrf": session[1], "ld_chat": chat},
        headers={"origin": base, "x-csrf-token": session[1]},
        timeout=60,
        verify=LOOPBACK_TLS,
    ) as c:
        yield c


def _until(what: str, probe: Any, seconds: float = 240) -> Any:
    """``probe()`` once it is truthy (polled; both cores may be busy)."""
    deadline = time.monotonic() + seconds
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.2)


def _job_done(c: httpx.Client, path: str, key: str = "status") -> dict[str, Any]:
    def ended() -> dict[str, Any] | None:
        job: dict[str, Any] = c.get(path).json()
        return job if job[key] not in ("queued", "running") else None

    return dict(_until(path, ended))


@pytest.fixture
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def test_two_hosts_serve_one_library_chats_and_reports(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
    s3: S3Server,
    fixtures_dir: Path,
) -> None:
    from tests.services.library.conftest import write_pdf

    add_accounts(tmp_settings.model_copy(update={"database_url": pg_schema}), "ana", "bob")
    # on A's disk only: a folder added with `library add` and a Zotero library's files (the
    # administrator's commands on A, run in this process: no CLI process to start)
    soil = write_pdf(tmp_path / "disk-a" / "field notes" / "soil.pdf",
                     [f"{SOIL_TITLE}\n\n{SOIL}", "The second page of the field notes."])  # fmt: skip
    soil_sha = hashlib.sha256(soil.read_bytes()).hexdigest()
    zotero = fixtures_dir / "zotero" / "zotero-6-papis"
    on_a = tmp_settings.model_copy(
        update={
            "data_dir": tmp_path / "data-a", "database_url": pg_schema, **s3.settings(),
            "object_store_access_key": SecretStr(ACCESS_KEY),
            "object_store_secret_key": SecretStr(SECRET_KEY),
            "object_store_sync_seconds": 0.0,
        }
    )  # fmt: skip
    with open_app_sync(on_a) as app:
        assert app.library.add_source(soil.parent, owner=app.owner).shared == 1
        request = ZoteroImportRequest(data_dir=str(zotero), study="Papis")
        imported = app.zotero.import_library(request, owner=app.owner)
        assert imported.pdfs_attached == 4 and not imported.problems, imported
    linked = next((zotero / "storage" / "5KW7TMDH").glob("*.pdf"))
    linked_sha = hashlib.sha256(linked.read_bytes()).hexdigest()
    linked_name = f"5KW7TMDH {linked.name}"
    pdf = write_pdf(
        tmp_path / "cameras.pdf",
        ["Water level was measured with time-lapse cameras mounted on two bridges. " * 12],
    )
    data = pdf.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    chat = secrets.token_urlsafe(32)  # ana's browser (its chat cookie)
    build = ""
    with ExitStack() as hosts:
        host_a = hosts.enter_context(ExitStack())  # A alone is stopped later
        a = host_a.enter_context(_host(tmp_path, "a", pg_schema, s3))
        ana_a = login(a, "ana")
        with _on(a, ana_a, chat) as c:  # host A alone: every job runs there
            up = c.post("/api/v1/library/uploads", files=[("files", ("cameras.pdf", data))])
            assert up.status_code == 200 and up.json()["stored"], up.text
            index = _job_done(c, f"/api/v1/jobs/{up.json()['job']['id']}")
            assert index["status"] == "done", index
            asked = c.post("/api/v1/chat/ask", json={"question": QUESTION})
            assert asked.status_code == 202, asked.text
            done = _job_done(c, f"/api/v1/chat/jobs/{asked.json()['id']}", "state")
            assert done["state"] == "done" and done["round"] == 1, done
            made = c.post(
                "/api/v1/reports/build", json={"papers": ["cameras.pdf"], "questions": [QUESTION]}
            )
            assert made.status_code == 202, made.text
            build = made.json()["id"]
            built = _job_done(c, f"/api/v1/reports/jobs/{build}")
            assert built["status"] == "done", built

        b = hosts.enter_context(_host(tmp_path, "b", pg_schema, s3))  # its own data dir
        inbox_b = tmp_path / "data-b" / "library" / "inbox"
        assert not (inbox_b / "cameras.pdf").exists()
        ana_b = login(b, "ana")
        with _on(b, ana_b, chat) as c:  # B lists the PDF, shows its page, the chat, the report
            # A's disk's PDFs, asked for by hash first: fetched from the store there and then
            shown = c.get(f"/library/pdf/{linked_sha}", params={"page": 1})
            assert shown.status_code == 200 and linked_name in shown.text, shown.text[:300]
            shown = c.get(f"/library/pdf/{soil_sha}", params={"page": 2})
            assert shown.status_code == 200 and "soil.pdf" in shown.text, shown.text[:300]
            page = c.get(f"/api/v1/library/pdf/{soil_sha}/page/2.jpg")
            assert page.status_code == 200 and page.content[:2] == b"\xff\xd8"
            record = c.get(f"/library/pdf/{soil_sha}/record")  # its first page read on B
            assert record.status_code == 200 and SOIL_TITLE in record.text, record.text[:300]

            def copied() -> dict[str, Any] | None:  # copied in the background: arriving
                got: dict[str, Any] = c.get("/api/v1/library").json()
                return None if got["arriving"] else got

            listed = _until("B's copies of A's folder PDFs", copied)
            files = {f["file"]: f for f in listed["files"]}
            assert files.keys() == {"cameras.pdf", "soil.pdf", linked_name} | {
                f"{p.parent.name} {p.name}" for p in (zotero / "storage").glob("*/*.pdf")
            }, listed
            assert {f["origin"] for n, f in files.items() if n != "cameras.pdf"} == {"shared"}
            assert all(f["indexed"] for f in files.values()), listed  # A's index serves B
            assert files["cameras.pdf"]["origin"] == "inbox"
            assert (inbox_b / "cameras.pdf").read_bytes() == data
            mirror = tmp_path / "data-b" / "library" / "pdfs"
            assert (mirror / soil_sha / "soil.pdf").read_bytes() == soil.read_bytes()
            page = c.get(f"/api/v1/library/pdf/{sha}/page/1.jpg")
            assert page.status_code == 200 and page.content[:2] == b"\xff\xd8", page.text[:200]
            session = c.get("/api/v1/chat").json()
            assert [r["number"] for r in session["rounds"]] == [1], session
            first = c.get("/api/v1/chat/rounds/1")
            assert first.status_code == 200 and first.json()["question"] == QUESTION, first.text
            history = c.get("/api/v1/chat/history").json()["chats"]
            assert [h["rounds"] for h in history] == [1], history
            past = c.get(f"/api/v1/chat/history/{history[0]['id']}").json()
            assert len(past["rounds"]) == 1, past
            report = c.get(f"/api/v1/reports/download/{build}")
            assert report.status_code == 200, report.text[:300]
            assert "cameras.pdf" in report.text and QUESTION in report.text
            listed = c.get("/api/v1/reports").json()
            assert [r["build_id"] for r in listed["reports"]] == [build], listed
        on_b = on_a.model_copy(update={"data_dir": tmp_path / "data-b"})
        with open_app_sync(on_b) as app:  # `litdesk library protocol` on B: A's answer
            day = app.library.protocol(ProtocolRequest(), owner=app.owner)
        assert day.answers >= 1 and QUESTION in day.text, day

        host_a.close()  # A stops (its log checked): B alone answers the next question
        with _on(b, login(b, "ana"), chat) as c:
            asked = c.post("/api/v1/chat/ask", json={"question": "Where were the cameras?"})
            assert asked.status_code == 202, asked.text
            done = _job_done(c, f"/api/v1/chat/jobs/{asked.json()['id']}", "state")
            assert done["state"] == "done" and done["round"] == 2, done
            card = done["answer"]
            assert card["citations"] and card["citations"][0]["file"] == "cameras.pdf", card
            assert "time-lapse cameras" in card["citations"][0]["text"]
        vectors_b = list((tmp_path / "data-b" / "library" / "vectors").glob(f"{sha}-*.npy"))
        assert vectors_b, "B answered without the vectors A made (from the object store)"
        with _on(b, login(b, "bob"), chat) as c:  # another account: nothing of ana's
            assert c.get("/api/v1/chat").json()["rounds"] == []
            assert c.get(f"/api/v1/reports/download/{build}").status_code == 404
        chats = [k for k in s3.keys("lab/") if k.startswith("lab/library/chat-sessions/")]
        assert len([k for k in chats if k.endswith("/state.json")]) == 1, chats
        assert len([k for k in chats if "/round-" in k]) == 2, chats
        with _on(b, login(b, "ana"), chat) as c:  # deleted on B: gone from the store
            chat_id = c.get("/api/v1/chat/history").json()["chats"][0]["id"]
            assert c.delete(f"/api/v1/chat/history/{chat_id}").status_code == 200
        assert not [k for k in s3.keys("lab/") if k.startswith("lab/library/chat-sessions/")]

    keys = s3.keys("lab/")
    assert "lab/library/inbox/cameras.pdf" in keys
    assert f"lab/library/pdfs/{soil_sha}/soil.pdf" in keys
    assert f"lab/library/pdfs/{linked_sha}/{linked_name}.zotero-ft-cache" in keys
    assert any(k.startswith("lab/library/protocols/") for k in keys), keys
    assert any(k.startswith(f"lab/library/vectors/{sha}-") for k in keys), keys
    assert any(k.startswith("lab/reports/web/") and k.endswith(".html") for k in keys), keys
    assert not any(SECRET_KEY in json.dumps(k) for k in keys)
