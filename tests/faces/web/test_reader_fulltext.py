"""The reader's licensed Europe PMC full text over HTTP against a real server on loopback
(replay cassette written here, counting every provider request): loading on request only,
the cache, the section filter, licence and source, the truncation notice, the refusal for
other licences, highlights and evidence on paragraphs verified against the shown snapshot,
occurrences in the full text, the notice when a paragraph changed, and markup as text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._fulltext import (
    CCBY_PMCID,
    LONG_PMCID,
    P1,
    P2_SHOWN,
    P3,
    UNSAVED_ID,
    ReaderServer,
    reader_server,
)

from litdesk.adapters.store import open_store
from litdesk.core.evidence import FullTextContext, text_digest
from litdesk.services.workspace import Workspace


@pytest.fixture
def srv(tmp_settings: Any, tmp_path: Path) -> Iterator[ReaderServer]:
    with reader_server(tmp_settings, tmp_path) as server:
        yield server


def _fulltext_urls(srv: ReaderServer) -> list[str]:
    return [u for u in srv.replay.urls if u.endswith("/fullTextXML")]


def test_saved_paper_loads_from_the_store_without_a_provider_call(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    with srv.running.client() as c:
        page = c.get(f"/paper/{pid}")
        data = c.get(f"/api/v1/papers/{pid}").json()
        saved_before = c.get("/api/v1/saved").json()["total_saved"]
    assert page.status_code == 200
    assert "Load available full text" in page.text
    assert data["source"] == "store" and data["saved"] is True
    assert data["fulltext"] is None
    assert srv.replay.urls == []  # neither the page nor its JSON twin asked a provider
    assert saved_before == 4


def test_fulltext_is_fetched_once_then_cached(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    with srv.running.client() as c:
        first = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()["fulltext"]
        second = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()["fulltext"]
    assert len(_fulltext_urls(srv)) == 1
    assert srv.replay.urls[0].endswith(f"/{CCBY_PMCID}/fullTextXML")
    assert first["cached"] is False and second["cached"] is True
    assert first["readable"] is True and first["truncated"] is False
    assert first["licence_url"] == "https://creativecommons.org/licenses/by/4.0/"
    assert first["licence"]  # the licence as named from its URL
    assert first["source_url"] == f"https://europepmc.org/articles/{CCBY_PMCID}"
    assert [b["id"] for b in first["blocks"]] == ["p1", "p2", "p3"]
    assert first["blocks"][1]["text"] == P2_SHOWN  # markup decoded to text, script dropped
    assert first["blocks"][0]["snapshot"] == text_digest(P1)
    assert first["sections"] == ["Introduction", "Methods"]


def test_section_filter(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    with srv.running.client() as c:
        ft = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1", "section": "Methods"})
        page = c.get(f"/paper/{pid}", params={"fulltext": "1", "section": "Methods"})
        unknown = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1", "section": "Nope"})
    body = ft.json()["fulltext"]
    assert body["section"] == "Methods" and [b["text"] for b in body["blocks"]] == [P3]
    assert body["total_blocks"] == 3
    assert "1 of 3 paragraphs (Methods)" in page.text
    assert 'id="ft-p1"' not in page.text and 'id="ft-p3"' in page.text
    # an unknown section shows everything (the select offers only known ones)
    assert len(unknown.json()["fulltext"]["blocks"]) == 3


def test_other_licences_are_refused_with_the_source(srv: ReaderServer) -> None:
    pid = srv.papers["nc"].id
    with srv.running.client() as c:
        ft = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()["fulltext"]
        page = c.get(f"/paper/{pid}", params={"fulltext": "1"})
    assert ft["readable"] is False and ft["blocks"] == []
    assert "not CC BY, CC BY-SA, CC0 or public domain" in ft["reason"]
    assert "Read it at https://europepmc.org/articles/PMC7000002" in ft["reason"]
    assert 'id="ft-refusal"' in page.text
    assert 'href="https://europepmc.org/articles/PMC7000002"' in page.text
    assert "Not to be shown here" not in page.text


def test_truncation_notice(srv: ReaderServer) -> None:
    pid = srv.papers["long"].id
    with srv.running.client() as c:
        ft = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()["fulltext"]
        page = c.get(f"/paper/{pid}", params={"fulltext": "1"})
    assert ft["truncated"] is True and ft["total_blocks"] == 600
    assert ft["pmcid"] == LONG_PMCID
    assert 'id="ft-truncated"' in page.text and "Partial view" in page.text


def test_no_pmcid_says_why_beside_the_abstract(srv: ReaderServer) -> None:
    pid = srv.papers["nopmc"].id
    with srv.running.client() as c:
        page = c.get(f"/paper/{pid}", params={"fulltext": "1"})
    assert page.status_code == 200
    assert 'id="ft-error"' in page.text
    assert "Tumour growth slowed in treated mice over twelve weeks" in page.text


def test_fulltext_markup_is_text_in_the_page(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    with srv.running.client() as c:
        html = c.get(f"/paper/{pid}", params={"fulltext": "1"}).text
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=" in html
    assert "window.__pwned=4" not in html  # a real <script> element of the JATS is dropped
    assert "javascript:window.__pwned=5 stays text" in html  # visible, never a link
    assert "javascript:window.__pwned=3" not in html  # the ext-link's target is dropped
    assert 'href="javascript' not in html


def test_highlight_on_a_paragraph_checked_against_the_snapshot(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    start = P3.index("twice a week")
    with srv.running.writer() as c:
        shown = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()["fulltext"]
        snap = shown["blocks"][2]["snapshot"]
        bad_offset = c.post(
            f"/api/v1/papers/{pid}/highlights",
            json={"text": "twice a week", "start": start + 1, "block": "p3", "snapshot": snap},
        )
        stale = c.post(
            f"/api/v1/papers/{pid}/highlights",
            json={
                "text": "twice a week",
                "start": start,
                "block": "p3",
                "snapshot": text_digest("an older paragraph"),
            },
        )
        no_block = c.post(
            f"/api/v1/papers/{pid}/highlights",
            json={"text": "twice a week", "start": start, "block": "p9"},
        )
        ok = c.post(
            f"/api/v1/papers/{pid}/highlights",
            json={
                "text": "twice a week",
                "start": start,
                "block": "p3",
                "snapshot": snap,
                "comment": "<b>x</b>",
            },
        )
    assert bad_offset.status_code == 422 and bad_offset.json()["code"] == "anchor_mismatch"
    assert stale.status_code == 422
    assert "no longer the text the page showed" in stale.json()["message"]
    assert no_block.status_code == 400 and "no paragraph 'p9'" in no_block.json()["message"]
    assert ok.status_code == 200, ok.text
    view = ok.json()
    (note,) = view["notes"]
    assert note["anchor"]["source"] == "fulltext"
    assert note["anchor"]["context"]["block_id"] == "p3"
    assert note["anchor"]["context"]["pmcid"] == CCBY_PMCID
    assert note["anchor"]["context"]["text"] == P3
    p3 = view["fulltext"]["blocks"][2]
    assert [s["text"] for s in p3["segments"] if s["marked"]] == ["twice a week"]
    assert len(_fulltext_urls(srv)) == 1  # the paragraph came from litdesk's cached copy


def test_occurrences_in_the_fulltext(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    with srv.running.writer() as c:
        found = c.get(
            f"/api/v1/papers/{pid}/occurrences", params={"text": "growth", "scope": "fulltext"}
        ).json()["occurrences"]
        in_abstract = c.get(f"/api/v1/papers/{pid}/occurrences", params={"text": "growth"})
        chosen = found[1]
        made = c.post(
            f"/api/v1/papers/{pid}/highlights",
            json={
                "text": "growth",
                "start": chosen["start"],
                "block": chosen["block"],
                "snapshot": chosen["snapshot"],
            },
        )
    assert [(o["block"], o["start"]) for o in found] == [
        ("p1", P1.index("growth")),
        ("p1", P1.rindex("growth")),
        ("p3", P3.index("growth")),
    ]
    assert [o["occurrence"] for o in found] == [1, 2, 1]
    assert found[0]["snapshot"] == text_digest(P1)
    assert [o["block"] for o in in_abstract.json()["occurrences"]] == [None]
    assert made.status_code == 200
    p1 = made.json()["fulltext"]["blocks"][0]
    marked = [i for i, s in enumerate(p1["segments"]) if s["marked"]]
    assert len(marked) == 1
    before = "".join(s["text"] for s in p1["segments"][: marked[0]])
    assert len(before) == P1.rindex("growth")  # the second occurrence, not the first


def test_changed_paragraph_is_not_reanchored(srv: ReaderServer, tmp_settings: Any) -> None:
    pid = srv.papers["ccby"].id
    old = "An older version of the first paragraph said growth stopped."
    context = FullTextContext(
        pmcid=CCBY_PMCID,
        url=f"https://europepmc.org/articles/{CCBY_PMCID}",
        block_id="p1",
        section="Introduction",
        text=old,
        licence="CC BY 4.0",
        retrieved_at="2026-01-01T00:00:00+00:00",
    )
    store = open_store(tmp_settings)
    try:
        Workspace(store).add_note(pid, highlight="growth stopped", context=context)
    finally:
        store.dispose()
    with srv.running.client() as c:
        view = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()
        page = c.get(f"/paper/{pid}", params={"fulltext": "1"}).text
    (note,) = view["notes"]
    assert "paragraph p1 of the full text shown now differs" in note["notice"]
    assert not any(s["marked"] for b in view["fulltext"]["blocks"] for s in b["segments"])
    assert "not re-anchored" in page and "<mark>" not in page


def test_evidence_from_a_paragraph_abstract_and_external(srv: ReaderServer) -> None:
    pid = srv.papers["ccby"].id
    base = {"finding": "Growth slowed", "population": "mice"}
    with srv.running.writer() as c:
        shown = c.get(f"/api/v1/papers/{pid}", params={"fulltext": "1"}).json()["fulltext"]
        snap = shown["blocks"][2]["snapshot"]
        ok = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json=base
            | {"passage": "twice a week", "source": "fulltext", "block": "p3", "snapshot": snap},
        )
        wrong = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json=base | {"passage": "not in that paragraph", "source": "fulltext", "block": "p3"},
        )
        no_block = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json=base | {"passage": "twice a week", "source": "fulltext"},
        )
        external = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json=base | {"passage": "from a poster", "source": "external"},
        )
        external_ok = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json=base | {"passage": "from a poster", "source": "external", "location": "p. 4"},
        )
        table = c.get("/evidence").text
    assert ok.status_code == 200, ok.text
    (ev,) = ok.json()["evidence"]
    assert ev["source"] == "fulltext" and ev["recheck"] == "ok"
    assert ev["context"]["block_id"] == "p3" and ev["context"]["text"] == P3
    assert wrong.status_code in (400, 403, 422)
    assert "passage" in wrong.json()["message"]
    assert no_block.status_code == 400
    assert "choose the full-text paragraph" in no_block.json()["message"]
    assert external.status_code in (400, 422)
    assert "location" in external.json()["message"]
    assert external_ok.status_code == 200
    assert len(external_ok.json()["evidence"]) == 2
    assert f"{CCBY_PMCID} paragraph p3" in table


def test_viewing_an_unsaved_paper_never_saves(srv: ReaderServer) -> None:
    with srv.running.client() as c:
        before = c.get("/api/v1/saved").json()["total_saved"]
        missing = c.get("/paper/MED-49999999")
        looked_up = c.get(f"/api/v1/papers/{UNSAVED_ID}", params={"fulltext": "1"}).json()
        page = c.get(f"/paper/{UNSAVED_ID}", params={"fulltext": "1"})
        after = c.get("/api/v1/saved").json()["total_saved"]
    assert missing.status_code == 404  # the cassette holds no such lookup: nothing saved
    assert looked_up["saved"] is False and looked_up["source"] == "lookup"
    assert [b["text"] for b in looked_up["fulltext"]["blocks"]][0] == P1
    assert page.status_code == 200 and "Not saved" in page.text and 'id="ft-p1"' in page.text
    assert 'id="highlight-form"' not in page.text  # highlights need a saved paper
    assert before == after == 4
