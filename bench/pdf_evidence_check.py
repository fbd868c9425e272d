"""Evidence from a PDF page through the reader's service method (brief pdfev), on the real
fixture PDFs: the quotes of ``bench/pdf_passage_check.py`` (real: two consecutive text
lines joined by a space, a hyphenated line break written joined; altered: a comparison
sign flipped, a decimal point dropped), each recorded as evidence from its page of the
paper's PDF (one paper per PDF, the PDF attached) with ``app.reader.record_evidence``.
Prints how many were stored as checked and how many refused (by code), and the time per
check (the PDF's pages read from its bytes and the passage matched, the record written).

    LITDESK_FIXTURES=/work/shared/fixtures PYTHONPATH=src .venv/bin/python bench/pdf_evidence_check.py
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from litdesk import Settings
from litdesk._errors import LitdeskError
from litdesk.adapters.pdf import PdfExcluded, read_pages
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync
from litdesk.services.library import AttachPdfPaperRequest
from litdesk.services.reader import EvidenceRequest
from litdesk.services.workspace import Workspace


def quotes(text: str) -> tuple[list[str], list[str]]:
    """The page's real and altered quotes (as bench/pdf_passage_check.py makes them)."""
    real = [
        m.group(1) + m.group(2)
        for m in list(re.finditer(r"(\w+ \w+ \w+)-\r\n([a-z]+ \w+ \w+)", text))[:3]
    ]
    real += [
        (m.group(1) + " " + m.group(2)).replace("\ufffe", "")
        for m in list(re.finditer(r"([^\r\n]{20})\r\n([^\r\n]{20})", text))[:5]
    ]
    altered = []
    for m in list(re.finditer(r"[^\r\n]{12}(?:[<>]|\d\.\d)[^\r\n]{8}", text))[:3]:
        q = m.group(0)
        alt = q.translate(str.maketrans("<>", "><")) if re.search("[<>]", q) else None
        alt = alt or re.sub(r"(\d)\.(\d)", r"\1\2", q, count=1)
        if alt.strip() and alt not in text:
            altered.append(alt)
    return real, altered


def main() -> None:
    root = Path(os.environ["LITDESK_FIXTURES"]) / "pdf"
    work = Path(tempfile.mkdtemp(prefix="pdfev-bench-"))
    folder = work / "pdfs"
    folder.mkdir()
    plan: list[tuple[str, int, list[str], list[str]]] = []
    for path in sorted(root.glob("*.pdf")):
        try:
            pages = read_pages(path)
        except PdfExcluded:
            continue
        shutil.copyfile(path, folder / path.name)
        for number, text in enumerate(pages, start=1):
            real, altered = quotes(text)
            if real or altered:
                plan.append((path.name, number, real, altered))
    settings = Settings(data_dir=work / "data", library_dirs=[folder], llm_backend="none")
    outcomes: dict[str, Counter[str]] = {"real": Counter(), "altered": Counter()}
    seconds: list[float] = []
    with open_app_sync(settings) as app:
        ws = Workspace(app.store)
        papers: dict[str, str] = {}
        for i, name in enumerate(sorted({p[0] for p in plan})):  # a DOI each: one paper each
            made = make_paper(doi=f"10.5555/pdfev.{i}", title=f"Fixture {name}", year=2020)
            paper = ws.save_paper(made).paper
            try:
                app.library.attach_pdf(AttachPdfPaperRequest(name, paper.id), owner=LOCAL_OWNER)
            except LitdeskError as exc:
                print(f"{name}: not attached ({exc.message})")
                continue
            papers[name] = paper.id
        for name, number, real, altered in plan:
            if name not in papers:
                continue
            for kind, batch in (("real", real), ("altered", altered)):
                for quote in batch:
                    request = EvidenceRequest(
                        papers[name], finding="bench", passage=quote, source="pdf", page=number
                    )
                    start = time.perf_counter()
                    try:
                        asyncio.run(app.reader.record_evidence(request, owner=LOCAL_OWNER))
                        outcomes[kind]["stored as checked"] += 1
                    except LitdeskError as exc:
                        outcomes[kind][f"refused ({exc.code})"] += 1
                    seconds.append(time.perf_counter() - start)
    shutil.rmtree(work, ignore_errors=True)
    for kind, counts in outcomes.items():
        total = sum(counts.values())
        said = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
        print(f"{kind} quotes: {total} — {said}")
    ms = sorted(s * 1000 for s in seconds)
    print(
        f"time per check: median {statistics.median(ms):.0f} ms, "
        f"p95 {ms[int(len(ms) * 0.95)]:.0f} ms, max {ms[-1]:.0f} ms ({len(ms)} checks)"
    )


if __name__ == "__main__":
    main()
