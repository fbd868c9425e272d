"""OpenAlex answers of the citation-browser tests, written into a replay cassette here:
seed W100 references W1…W25 (W25 never answered), relates W30, W31; seed W200 references
W3, W4, W99; W100 is cited by 2,500 works (more than can be paged: truncated)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.core.search import CompiledRequest
from litdesk.services.citations import citing_request, work_request, works_by_id_request

# escaped markup decodes to literal text (raw tags are stripped by the parser)
XSS_REF_TITLE = "&lt;script&gt;window.__pwned=1&lt;/script&gt;Reference W3"
SHOWN_REF_TITLE = "<script>window.__pwned=1</script>Reference W3"
REFS_100 = [f"W{i}" for i in range(1, 26)]
REFS_200 = ["W3", "W4", "W99"]


def oa_work(
    work: str,
    *,
    refs: list[str] | None = None,
    related: list[str] | None = None,
    year: int = 2020,
    title: str | None = None,
) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/{work}",
        "title": title if title is not None else f"Work {work}",
        "display_name": title if title is not None else f"Work {work}",
        "publication_year": year,
        "publication_date": f"{year}-01-01",
        "referenced_works": [f"https://openalex.org/{w}" for w in refs or []],
        "related_works": [f"https://openalex.org/{w}" for w in related or []],
    }


def _list(works: list[dict[str, Any]], count: int | None = None) -> bytes:
    meta = {"count": len(works) if count is None else count, "page": 1, "per_page": 20}
    return json.dumps({"meta": meta, "results": works}).encode()


def _record(recorder: CassetteRecorder, request: CompiledRequest, body: bytes) -> None:
    recorder.record(
        Exchange(
            provider="openalex",
            method=request.method,
            url=sanitised_url(request),
            request_body=request.body,
            status=200,
            headers={"content-type": "application/json"},
            body=body,
            received_at=datetime(2026, 12, 1, tzinfo=UTC),
        ),
        Redactor(),
    )


def _title(w: str) -> str | None:
    return XSS_REF_TITLE if w == "W3" else None


def write_openalex(folder: Path) -> None:
    recorder = CassetteRecorder(folder)
    seed_100 = oa_work("W100", refs=REFS_100, related=["W30", "W31"], title="Seed paper W100")
    _record(recorder, work_request("W100"), json.dumps(seed_100).encode())
    seed_200 = oa_work("W200", refs=REFS_200, title="Seed paper W200")
    _record(recorder, work_request("W200"), json.dumps(seed_200).encode())
    for chunk in (REFS_100[:20], REFS_100[20:], ["W30", "W31"], ["W3", "W4"]):
        answered = [oa_work(w, title=_title(w)) for w in chunk if w != "W25"]
        _record(recorder, works_by_id_request(chunk), _list(answered))
    citing = [oa_work("W51", year=2025), oa_work("W50", year=2023)]
    _record(recorder, citing_request("W100", 1), _list(citing, count=2_500))
