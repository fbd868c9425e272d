"""Helpers of the reader's full-text tests: small JATS articles of our own (one CC BY with
XSS payloads in its paragraphs, one CC BY-NC that the licence gate refuses, one too long
for the reader), a cassette answering their Europe PMC fullTextXML requests, saved papers
pointing at them, and a server whose replay cassette counts every provider request."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.faces.web._hosting import Hosting
from tests.faces.web._server import (
    Running,
    epmc_body,
    epmc_record,
    write_cassette,
)

from litdesk.adapters.http import Cassette, CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.adapters.store import open_store
from litdesk.core.query import fulltext_request
from litdesk.core.records import Paper, make_paper
from litdesk.faces.web import create_app
from litdesk.services.workspace import Workspace

CCBY_PMCID = "PMC7000001"
NC_PMCID = "PMC7000002"
LONG_PMCID = "PMC7000003"
UNSAVED_ID = "MED-40000099"
ABSTRACT = "Tumour growth slowed in treated mice over twelve weeks of observation."
P1 = "Tumour growth slowed in treated mice. Growth was measured weekly, and growth slowed again."
P2_SHOWN = (
    '<script>window.__pwned=1</script> appears as text, and so does <img src=x onerror="window.__pwned=2">'
    " here. a javascript link too. javascript:window.__pwned=5 stays text."
)
P3 = "Mice were weighed twice a week; growth was measured with calipers."
LICENCE_TEXT = "This article is licensed under a Creative Commons Attribution 4.0 licence."


def _article(
    pmcid: str, licence_url: str, body: str, title: str = "Tumour growth in mice"
) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
<front><article-meta>
<article-id pub-id-type="pmcid">{pmcid}</article-id>
<title-group><article-title>{title}</article-title></title-group>
<permissions><license xlink:href="{licence_url}"><license-p>{LICENCE_TEXT}</license-p></license></permissions>
</article-meta></front>
<body>{body}</body>
</article>""".encode()


def ccby_article() -> bytes:
    # escaped markup decodes to literal text; the ext-link's javascript: target is dropped
    return _article(
        CCBY_PMCID,
        "https://creativecommons.org/licenses/by/4.0/",
        f"""<sec><title>Introduction</title>
<p>{P1}</p>
<p>&lt;script&gt;window.__pwned=1&lt;/script&gt; appears as text, and so does &lt;img src=x onerror="window.__pwned=2"&gt; here. <ext-link xlink:href="javascript:window.__pwned=3">a javascript link</ext-link> too.<script>window.__pwned=4</script> javascript:window.__pwned=5 stays text.</p>
</sec>
<sec><title>Methods</title><p>{P3}</p></sec>""",
    )


def nc_article() -> bytes:
    return _article(
        NC_PMCID,
        "https://creativecommons.org/licenses/by-nc/4.0/",
        "<sec><title>Results</title><p>Not to be shown here.</p></sec>",
    )


def long_article() -> bytes:
    paragraphs = "".join(f"<p>Paragraph number {i} of a long article.</p>" for i in range(1, 606))
    return _article(
        LONG_PMCID,
        "https://creativecommons.org/publicdomain/zero/1.0/",
        f"<sec><title>Results</title>{paragraphs}</sec>",
    )


def record_fulltext(folder: Path, pmcid: str, body: bytes, status: int = 200) -> None:
    req = fulltext_request(pmcid)
    CassetteRecorder(folder).record(
        Exchange(
            provider=req.provider,
            method=req.method,
            url=sanitised_url(req),
            request_body=req.body,
            status=status,
            headers={"content-type": "application/xml"},
            body=body,
            received_at=datetime(2026, 12, 1, tzinfo=UTC),
        ),
        Redactor(),
    )


def write_reader_cassette(folder: Path) -> None:
    write_cassette(folder, "tumour growth", epmc_body([epmc_record(i) for i in range(1, 4)]))
    write_cassette(  # an unsaved paper's exact-identifier lookup; its PMCID has full text
        folder, UNSAVED_ID, epmc_body([epmc_record(99, pmcid=CCBY_PMCID, title="Unsaved")])
    )
    record_fulltext(folder, CCBY_PMCID, ccby_article())
    record_fulltext(folder, NC_PMCID, nc_article())
    record_fulltext(folder, LONG_PMCID, long_article())


class CountingReplay:
    """The replay cassette, counting the requests it answers (and the ones it could not)."""

    def __init__(self, inner: Cassette) -> None:
        self.inner = inner
        self.urls: list[str] = []

    def lookup(self, provider: str, method: str, url: str, body: str | None) -> Exchange:
        self.urls.append(url)
        return self.inner.lookup(provider, method, url, body)


@dataclass
class ReaderServer:
    running: Running
    replay: CountingReplay
    papers: dict[str, Paper] = field(default_factory=dict)


def save_papers(settings: Any) -> dict[str, Paper]:
    store = open_store(settings)
    try:
        ws = Workspace(store)
        out = {}
        for key, pmcid, pmid in (
            ("ccby", CCBY_PMCID, "42100001"),
            ("nc", NC_PMCID, "42100002"),
            ("long", LONG_PMCID, "42100003"),
        ):
            paper = make_paper(
                pmid=pmid, pmcid=pmcid, title=f"Tumour growth ({key})", abstract=ABSTRACT
            )
            out[key] = ws.save_paper(paper).paper
        out["nopmc"] = ws.save_paper(
            make_paper(pmid="42100004", title="No PMC", abstract=ABSTRACT)
        ).paper
        return out
    finally:
        store.dispose()


@contextmanager
def reader_server(
    settings: Any, tmp_path: Path, hosting: Hosting | None = None
) -> Iterator[ReaderServer]:
    """The reader's app: in-process unless ``hosting`` says otherwise (a browser's)."""
    hosting = hosting or Hosting.in_process()
    folder = tmp_path / "reader-cassette"
    write_reader_cassette(folder)
    papers = save_papers(settings)
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=folder)
    with hosting.serve(app) as served:
        transport = app.state.app.transport
        counting = CountingReplay(transport.replay)
        transport.replay = counting
        running = Running(
            hosting.base, hosting.host, hosting.port, folder, tmp_path / "data", served
        )
        yield ReaderServer(running, counting, papers)
