"""Helpers of the library web tests: a loopback OpenAlex stand-in recorded into a replay
cassette for the adoption lookups, generated PDFs, and a server with the library's
settings on a loopback port."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from fpdf import FPDF, XPos, YPos
from pydantic import SecretStr

from litdesk import Settings
from litdesk.services import AdoptionLookupFailed
from litdesk.services.app import open_app

FIXTURES = Path(os.environ.get("LITDESK_FIXTURES", "/nonexistent")) / "pdf"
HINDAWI = "hindawi_rrp_2010_157939.pdf"  # DOI 10.1155/2010/157939 printed on p.1
CLINSCI = "clinsci_2014_cs20130403.pdf"  # DOI 10.1042/CS20130403 (the lookup fails)
PEERJ = "peerj_cs_2017_118.pdf"  # DOI 10.7717/peerj-cs.118 (resolves to another work)
ARXIV = "arxiv_0908.0054v1.pdf"
SCAN = "scanned_no_text_cermine_simple.pdf"
ENCRYPTED = "encrypted_libreoffice_password.pdf"
BROKEN = "broken_unreadablemetadata.pdf"
HINDAWI_TITLE = "Patient Experiences of Structured Heart Failure Programmes"


def _work(doi: str, title: str) -> bytes:
    return json.dumps(
        {
            "id": "https://openalex.org/W" + str(abs(hash(doi)) % 10**8),
            "doi": f"https://doi.org/{doi}",
            "title": title,
            "publication_year": 2010,
            "authorships": [
                {"author": {"display_name": "Ada Lovelace"}},
                {"author": {"display_name": "Alan Turing"}},
            ],
        }
    ).encode()


class _OpenAlex(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.lower()
        if "157939" in path:
            status, body = 200, _work("10.1155/2010/157939", HINDAWI_TITLE)
        elif "peerj-cs.118" in path:
            status, body = (
                200,
                _work("10.7717/peerj-cs.118", "A Different Work Entirely About Cats"),
            )
        else:
            status, body = 500, b'{"error":"down"}'
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def record_adoption_cassette(settings: Settings, folder: Path) -> None:
    """The three DOI lookups answered by a loopback OpenAlex, recorded for replay."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OpenAlex)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    async def go() -> None:
        async with open_app(settings, record=folder, base_urls={"openalex": base}) as rt_app:
            rt = rt_app.providers
            for doi in ("10.1155/2010/157939", "10.7717/peerj-cs.118", "10.1042/cs20130403"):
                with contextlib.suppress(AdoptionLookupFailed):  # recorded all the same
                    await rt.adoption_lookup("doi", doi)

    # in a thread of its own: Playwright's sync API keeps an event loop in the main thread
    worker = threading.Thread(target=lambda: asyncio.run(go()))
    try:
        worker.start()
        worker.join(120)
    finally:
        server.shutdown()
        server.server_close()


def library_settings(tmp_settings: Settings, **over: Any) -> Settings:
    values: dict[str, Any] = {
        "openalex_api_key": SecretStr("oa-test-key-1"),
        "jobs_lease_seconds": 5.0,
        "library_upload_max_bytes": 3_000_000,
    }
    values.update(over)
    return tmp_settings.model_copy(update=values)


def make_pdfs(folder: Path, n: int, pages: int = 3, stem: str = "generated") -> list[Path]:
    """``n`` distinct text PDFs of ``pages`` pages each."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    widths: _Widths | None = None  # the font and its size are the same throughout
    for i in range(n):
        pdf = FPDF()
        pdf.set_font("Helvetica", size=11)
        widths = widths or _Widths(pdf)
        for p in range(pages):
            pdf.add_page()
            text = f"Document {stem} {i}, page {p + 1}. " + " ".join(
                f"Water level camera observation {i}-{p}-{k}." for k in range(60)
            )
            for line in _lines(pdf, text, widths):
                pdf.cell(0, 6, line, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        path = folder / f"{stem}_{i:03d}.pdf"
        pdf.output(str(path))
        out.append(path)
    return out


class _Widths:
    """The words' widths in one font at one size, each shape measured once: a word whose
    digits are all made 0 is as wide when the font's ten digits are equally wide
    (Helvetica's; a width is the sum of the characters' widths)."""

    _ZEROS = str.maketrans("123456789", "000000000")

    def __init__(self, pdf: FPDF) -> None:
        self._pdf = pdf
        self.space = pdf.get_string_width(" ")
        self._fold = len({pdf.get_string_width(d) for d in "0123456789"}) == 1
        self._known: dict[str, float] = {}

    def of(self, word: str) -> float:
        key = word.translate(self._ZEROS) if self._fold else word
        width = self._known.get(key)
        if width is None:
            width = self._known[key] = self._pdf.get_string_width(word)
        return width


def _lines(pdf: FPDF, text: str, widths: _Widths) -> list[str]:
    """``text`` broken into the lines of a full-width cell, word by word, as ``multi_cell``
    breaks it, each word's shape measured once (``multi_cell`` measures the line again at
    each character: 4.8 s of CPU for the 240 pages of 40 PDFs of 6 pages, 1.1 s word by
    word, 0.45 s so; the pages read back the same text)."""
    room = pdf.epw - 2 * pdf.c_margin
    lines: list[str] = []
    line: list[str] = []
    width = 0.0
    for word in text.split(" "):
        word_width = widths.of(word)
        if line and width + widths.space + word_width > room:
            lines.append(" ".join(line))
            line, width = [], 0.0
        width += (widths.space if line else 0.0) + word_width
        line.append(word)
    if line:
        lines.append(" ".join(line))
    return lines


def wait_job(client: httpx.Client, job_id: str, timeout: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/v1/jobs/{job_id}").json()
        if not job["active"]:
            return dict(job)
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not end: {client.get(f'/api/v1/jobs/{job_id}').json()}")


def files_tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def fixture_files(names: list[str]) -> list[tuple[str, tuple[str, bytes, str]]]:
    """Multipart ``files`` parts of fixture PDFs."""
    return [("files", (n, (FIXTURES / n).read_bytes(), "application/pdf")) for n in names]
