"""The library service end to end: index, cache, retrieval, gate, adoption, protocol."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pytest
from tests import _fork
from tests._text_pdfs import numbered_pdfs

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.llm import ChatReply, ChatRequest
from litdesk.core.records import make_paper
from litdesk.services.app import app_library
from litdesk.services.library import Library, UnknownPapers, title_printed

CAMERAS = (
    "Monitoring River Water Levels with Time-Lapse Cameras\n"
    "doi: 10.5555/cams.2020.7\n"
    + "Water level was measured with time-lapse cameras mounted on two bridges. "
    "Each camera took one image every ten minutes and a staff gauge was visible in the frame. " * 8
)
WHEAT = (
    "Heat Stress in Winter Wheat\n"
    + "Post-anthesis heat stress reduced grain yield and kernel weight in wheat plants. "
    "Chlorophyll fluorescence was measured with a modulated fluorometer. " * 8
)
ESTUARY = (
    "Cadmium in Estuary Sediments\n"
    + "Sediment cores were taken at twelve stations along the estuary. "
    "Cadmium concentrations were highest near the harbour outflow. " * 8
)


@pytest.fixture
def folder(tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]) -> Path:
    root = tmp_path / "pdfs"
    make_pdf(root / "cameras.pdf", [CAMERAS, "Results: the cameras agreed with the gauge. " * 20])
    make_pdf(root / "wheat.pdf", [WHEAT, "Yield fell by a third under heat stress. " * 20])
    make_pdf(
        root / "sub" / "estuary.pdf", [ESTUARY, "Harbour sediments held the most cadmium. " * 20]
    )
    return root


@pytest.fixture
def settings(tmp_settings: Settings, folder: Path, library_db: str | None) -> Settings:
    """The library of ``folder``, its store on SQLite and on PostgreSQL (fresh schema)."""
    return tmp_settings.model_copy(update={"library_dirs": [folder], "database_url": library_db})


@dataclass
class Scripted:
    """A scripted model backend (the live LLM is the edge we cannot reach here)."""

    answers: list[str]
    translation: str = ""
    requests: list[ChatRequest] = field(default_factory=list)
    name: str = "scripted"
    model: str = "scripted-1"
    is_model: bool = True

    def complete(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        if request.system.startswith("Translate"):
            return ChatReply(self.translation or request.user, "end", self.model)
        return ChatReply(self.answers.pop(0), "end", self.model)


def _lib(settings: Settings, wordllama: WordLlamaEmbedder, **kw: object) -> Library:
    return app_library(settings, embedder=wordllama, workers=1, **kw)  # type: ignore[arg-type]


def test_index_then_unchanged_then_changed(
    settings: Settings, wordllama: WordLlamaEmbedder, folder: Path
) -> None:
    lib = _lib(settings, wordllama)
    first = lib.index()
    assert sorted(first.indexed) == ["cameras.pdf", "estuary.pdf", "wheat.pdf"]
    assert first.pages == 6 and first.chunks >= 6
    t0 = time.perf_counter()
    again = lib.index()
    assert again.indexed == [] and again.unchanged == 3
    assert time.perf_counter() - t0 < 2.0
    # a change of content re-indexes that file only
    target = folder / "wheat.pdf"
    shutil.copy(folder / "cameras.pdf", target)
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    third = lib.index()
    assert third.indexed == [] and third.unchanged == 2
    assert third.same_content == ["wheat.pdf has the same content as cameras.pdf"]
    status = {r["file"]: r for r in lib.status().files}
    assert status["cameras.pdf"]["doi"] == "10.5555/cams.2020.7"
    assert status["cameras.pdf"]["pages"] == 2 and status["cameras.pdf"]["text_layer"] is True
    lib.close()


def test_embedder_or_chunking_change_rebuilds(
    settings: Settings, wordllama: WordLlamaEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = _lib(settings, wordllama)
    assert len(lib.index().indexed) == 3

    class Other:
        name = "other-embedder"
        dim = 4

        def embed(self, texts: list[str]) -> np.ndarray:
            out = np.ones((len(texts), 4), np.float32)
            return out / 2.0

    lib2 = app_library(settings, embedder=Other(), workers=1)
    second = lib2.index()
    assert len(second.indexed) == 3
    assert second.rebuild is not None and "embedder wordllama-l2-256 → other-embedder" in (
        second.rebuild
    )
    assert lib.index().unchanged == 3  # the first embedder's entries are still there
    assert lib.index().rebuild is None  # nothing to redo: nothing to explain
    import litdesk.services.library._indexer as indexer

    monkeypatch.setattr(indexer, "CHUNKING_VERSION", "c-test")
    third = lib.index()
    assert len(third.indexed) == 3
    assert third.rebuild is not None and "→ c-test" in third.rebuild


def test_excluded_files_named_with_reason(
    settings: Settings,
    wordllama: WordLlamaEmbedder,
    folder: Path,
    make_pdf: Callable[[Path, list[str]], Path],
) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really")
    make_pdf(folder / "scan.pdf", ["", ""])
    lib = _lib(settings, wordllama)
    report = lib.index()
    codes = {e["file"]: e["code"] for e in report.excluded}
    assert codes == {"broken.pdf": "broken", "scan.pdf": "no_text"}
    assert lib.index().excluded == report.excluded  # remembered, not retried
    found = lib.retrieve("cadmium", top_k=3)
    assert any("broken.pdf" in w and "scan.pdf" in w for w in found.warnings)
    # a scope of PDFs without text is refused saying why, not "no excerpt matches"
    with pytest.raises(InputError) as none:
        lib.ask("What is in the scan?", papers=["scan.pdf", "broken.pdf"])
    assert none.value.code == "no_text"
    assert "no PDF in the scope has text" in none.value.message
    assert (
        "scan.pdf: no text layer" in none.value.message
        and "broken.pdf: broken" in none.value.message
    )
    mixed = lib.ask("Where was cadmium highest?", papers=["scan.pdf", "estuary.pdf"])
    assert mixed.citations and {c["file"] for c in mixed.citations} == {"estuary.pdf"}


def test_retrieval_whole_library_and_lexical_layer(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = _lib(settings, wordllama)
    found = lib.retrieve("Where was cadmium highest in the sediments?", top_k=3)
    assert found.whole_library and found.hits
    assert found.hits[0].file == "estuary.pdf"
    assert all(1 <= h.page <= 2 for h in found.hits)
    camera = lib.retrieve("time-lapse cameras staff gauge", top_k=2)
    assert {h.file for h in camera.hits} == {"cameras.pdf"}


def test_chosen_set_gets_per_paper_minimum(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = _lib(settings, wordllama)
    found = lib.retrieve("cadmium in sediments", papers=["estuary.pdf", "wheat.pdf"], top_k=4)
    per = {f: sum(1 for h in found.hits if h.file == f) for f in ("estuary.pdf", "wheat.pdf")}
    assert per["wheat.pdf"] >= 2 and per["estuary.pdf"] >= 2
    assert not found.whole_library and found.scope == ["estuary.pdf", "wheat.pdf"]
    with pytest.raises(UnknownPapers) as info:
        lib.retrieve("x", papers=["nope.pdf"])
    assert "cameras.pdf" in info.value.message
    with pytest.raises(InputError):
        lib.retrieve("x", top_k=21)
    with pytest.raises(InputError):
        lib.retrieve("   ")


def test_ask_gate_with_scripted_model_and_protocol(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    model = Scripted(["Cameras on bridges [1][42].\n\nReferences:\n[1] Invented 2020."])
    lib = _lib(settings, wordllama, backend=model)
    answer = lib.ask("Which cameras measured water level?", top_k=3)
    assert answer.grounded
    assert "[42]" not in answer.answer and "Invented" not in answer.answer
    assert any("[42]" in w for w in answer.warnings)
    assert any("reference section" in w for w in answer.warnings)
    assert [c["label"] for c in answer.citations] == ["1"]
    cite = answer.citations[0]
    assert cite["file"] == "cameras.pdf" and cite["link"].endswith(f"#page={cite['page']}")
    assert cite["text"] in model.requests[-1].user  # the model saw exactly this excerpt
    proto = list((settings.resolved_data_dir() / "library" / "protocols").glob("*.md"))
    assert len(proto) == 1
    text = proto[0].read_text(encoding="utf-8")
    assert "Which cameras measured water level?" in text and "grounded: yes" in text
    d = answer.to_dict()
    assert set(d) >= {"answer", "grounded", "citations", "warnings"}


def test_ask_unmarked_twice_is_not_grounded_and_variant_disclosed(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    model = Scripted(
        ["Cameras, probably.", "Still no markers."], translation="Which cameras were used?"
    )
    lib = _lib(settings, wordllama, backend=model)
    answer = lib.ask("Welche Kameras wurden verwendet?", top_k=2)
    assert not answer.grounded and answer.citations == []
    assert answer.variant == "Which cameras were used?"
    assert any("English variant" in w and "Which cameras were used?" in w for w in answer.warnings)
    assert len([r for r in model.requests if not r.system.startswith("Translate")]) == 2


def test_ask_without_model_is_extractive_and_grounded(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = _lib(settings, wordllama)  # llm_backend default: none
    answer = lib.ask("heat stress wheat yield", papers=["wheat.pdf"], top_k=2)
    assert answer.grounded and answer.model == "none (extractive)"
    assert {c["file"] for c in answer.citations} == {"wheat.pdf"}
    assert "References:\n[1] wheat.pdf, p." in answer.answer


def test_adoption_only_when_title_is_printed(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    calls: list[tuple[str, str]] = []

    def lookup(ns: str, value: str):  # type: ignore[no-untyped-def]
        calls.append((ns, value))
        return make_paper(title="Monitoring river water levels with time-lapse cameras", doi=value)

    lib = _lib(settings, wordllama, lookup=lookup)
    answer = lib.ask("time-lapse cameras", papers=["cameras.pdf"], top_k=2)
    assert calls == [("doi", "10.5555/cams.2020.7")]
    assert answer.citations[0]["title"] == "Monitoring river water levels with time-lapse cameras"
    assert "(doi:10.5555/cams.2020.7)" in answer.answer
    status = {r["file"]: r for r in lib.status().files}
    assert status["cameras.pdf"]["adopted_title"].startswith("Monitoring river")
    lib.ask("time-lapse cameras", papers=["cameras.pdf"], top_k=2)
    assert len(calls) == 1  # adopted once, stored beside the index


def test_adoption_rejects_a_record_of_another_work(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = _lib(
        settings,
        wordllama,
        lookup=lambda ns, v: make_paper(title="A completely different paper", doi=v),
    )
    found = lib.retrieve("cameras", papers=["cameras.pdf"], top_k=2)
    assert any("not adopted" in w for w in found.warnings)
    assert found.hits[0].title is None


def test_title_printed() -> None:
    head = "Heat   Stress in Winter-\nWheat: a field study\nby A. Author"
    assert title_printed("Heat stress in winter wheat", head.replace("-\n", ""))
    assert not title_printed("Cold stress in barley", head)
    assert not title_printed("Heat", head)  # too short to prove anything


def test_parallel_index_matches_serial(
    settings: Settings, wordllama: WordLlamaEmbedder, tmp_path: Path
) -> None:
    serial = _lib(settings, wordllama)
    serial.index()
    # a fresh store of its own (on PostgreSQL ``settings`` would share the serial run's rows)
    # wordllama, as the serial run, embedded in the reader processes (the default joint
    # embedder would also load use-m3 in each of them; the chunks do not depend on it)
    par_settings = settings.model_copy(
        update={"data_dir": tmp_path / "par", "database_url": None, "embedder": "wordllama"}
    )
    par = app_library(par_settings, workers=2)
    report = par.index()
    assert sorted(report.indexed) == ["cameras.pdf", "estuary.pdf", "wheat.pdf"]
    a = {r["file"]: r["chunks"] for r in serial.status().files}
    b = {r["file"]: r["chunks"] for r in par.status().files}
    assert a == b
    found = par.retrieve("cadmium harbour", top_k=2)
    assert found.hits[0].file == "estuary.pdf"


KILL_SCRIPT = """
import sys
from pathlib import Path
from litdesk._settings import Settings
from litdesk.services.app import open_app_sync
s = Settings(data_dir=Path(sys.argv[1]), library_dirs=[Path(sys.argv[2])], embedder="wordllama")
lib = open_app_sync(s).__enter__().make_library(workers=1)  # closed with the process
lib.index()
"""


def test_kill_9_mid_index_loses_only_the_file_in_flight(
    tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]
) -> None:
    import signal
    import sys

    # the light embedder in the killed process and in the resumed index (the same one: a
    # change of embedder would rebuild): what is tested is which entries survive a kill, not
    # the vectors (the default joint one loads use-m3 too and embeds every chunk twice)
    many = tmp_path / "many"
    numbered_pdfs(many, "p{:02d}.pdf", 30, [ESTUARY] * 4)  # 1.3 s of CPU laid out one by one
    data = tmp_path / "data"
    # a real process (forked from the tests' warmed interpreter, tests/_fork.py: what is
    # tested is what its kill -9 leaves, not its start-up)
    proc = _fork.popen([sys.executable, "-c", KILL_SCRIPT, str(data), str(many)])
    db = data / "litdesk.sqlite3"
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    done = conn.execute("select count(*) from library_entries").fetchone()[0]
            except sqlite3.OperationalError:
                done = 0
            if done >= 3:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert done >= 3
    with sqlite3.connect(db) as conn:
        kept = conn.execute("select count(*) from library_entries").fetchone()[0]
        per = conn.execute("select sha256, n_chunks from library_entries").fetchall()
        counted = dict(
            conn.execute("select sha256, count(*) from library_chunks group by sha256").fetchall()
        )
    assert 3 <= kept < 30
    assert all(counted.get(sha) == n for sha, n in per)  # no half-written entry
    s = Settings(data_dir=data, library_dirs=[many], embedder="wordllama")
    lib = app_library(s, workers=1)
    resumed = lib.index()
    assert resumed.unchanged == kept and len(resumed.indexed) == 30 - kept


@pytest.mark.fixtures
def test_real_fixture_library(
    fixtures_dir: Path, tmp_settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    s = tmp_settings.model_copy(update={"library_dirs": [fixtures_dir / "pdf"]})
    lib = _lib(s, wordllama)
    report = lib.index()
    assert len(report.indexed) == 16 and report.pages == 213
    assert {e["file"]: e["code"] for e in report.excluded} == {
        "broken_unreadablemetadata.pdf": "broken",
        "encrypted_libreoffice_password.pdf": "encrypted",
        "scanned_no_text_cermine_simple.pdf": "no_text",
    }
    rows = {r["file"]: r for r in lib.status().files}
    assert rows["peerj_cs_2017_118.pdf"]["pages"] == 16
    assert rows["peerj_cs_2017_118.pdf"]["doi"] == "10.7717/peerj-cs.118"
    assert rows["arxiv_hep-ph_9412269.pdf"]["arxiv"] == "hep-ph/9412269"
    assert rows["scanned_no_text_cermine_simple.pdf"]["text_layer"] is False
    found = lib.retrieve("post-anthesis heat stress in wheat", top_k=3)
    assert found.hits[0].file == "plosone_2018_0197919.pdf"
    assert all(1 <= h.page <= 21 for h in found.hits)


def test_corrupt_vectors_file_is_an_integrity_error(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    from litdesk._errors import IntegrityError

    lib = _lib(settings, wordllama)
    lib.index()
    for npy in (settings.resolved_data_dir() / "library" / "vectors").glob("*.npy"):
        npy.write_bytes(b"not numpy")
    fresh = _lib(settings, wordllama)
    with pytest.raises(IntegrityError, match="unreadable"):
        fresh.retrieve("cadmium", top_k=2)


def test_ollama_embedder_from_settings_over_loopback(tmp_settings: Settings, folder: Path) -> None:
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(self.path)
            vecs = [
                [1.0, float("cadmium" in t.lower()), float("camera" in t.lower())]
                for t in body["input"]
            ]
            payload = json.dumps({"embeddings": vecs}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        s = tmp_settings.model_copy(
            update={
                "library_dirs": [folder],
                "embedder": "ollama:toy",
                "openai_base_url": f"http://127.0.0.1:{srv.server_address[1]}/v1",
            }
        )
        lib = app_library(s, workers=2)  # a non-default embedder embeds in the main process
        report = lib.index()
        assert len(report.indexed) == 3
        assert set(seen) == {"/api/embed"}
        found = lib.retrieve("cadmium", top_k=2)
        assert found.hits[0].file == "estuary.pdf"
        assert lib.status().embedder == "ollama-toy"
    finally:
        srv.shutdown()
        srv.server_close()


def test_search_lookup_uses_exact_identifier_search(tmp_settings: Settings) -> None:
    from litdesk.services.library import search_lookup

    calls: list[tuple[str, tuple[str, ...]]] = []
    paper = make_paper(
        title="PaSa: An LLM Agent for Comprehensive Academic Paper Search", arxiv_id="2501.10120"
    )

    class Trace:
        def __init__(self, provider: str, found: bool) -> None:
            self.provider, self.found = provider, found

        def sightings_of(self, provider: str) -> list[object]:
            @dataclass
            class S:
                paper: object

            return [S(paper)] if self.found and provider == self.provider else []

    def runner(settings: Settings, request):  # type: ignore[no-untyped-def]
        calls.append((request.query, request.providers))
        return Trace(request.providers[0], request.query == "2501.10120")

    lookup = search_lookup(tmp_settings, runner=runner)
    assert lookup("arxiv", "2501.10120") is paper
    assert lookup("doi", "10.1/none") is None
    assert lookup("pmid", "1") is None
    assert calls == [("2501.10120", ("arxiv",)), ("10.1/none", ("openalex",))]


def test_search_lookup_failure_is_typed(tmp_settings: Settings) -> None:
    from litdesk.services.library import search_lookup
    from litdesk.services.library._adoption import AdoptionLookupFailed

    class Failed:
        status = "failed"
        warnings = ("openalex: network error",)

        def sightings_of(self, provider: str) -> list[object]:
            return []

    lookup = search_lookup(tmp_settings, runner=lambda settings, request: Failed())
    with pytest.raises(AdoptionLookupFailed, match="network error"):
        lookup("doi", "10.1/x")


def test_large_library_ivf_layout_is_stored_and_reused(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    # treat the tiny library as a large one (LITDESK_RETRIEVAL_EXACT_BELOW=2)
    settings = settings.model_copy(update={"retrieval_exact_below": 2})
    lib = _lib(settings, wordllama)
    assert lib.params.exact_below == 2
    first = lib.retrieve("cadmium harbour sediments", top_k=2)
    stored = list((settings.resolved_data_dir() / "library" / "ivf").glob("*.npz"))
    assert len(stored) == 1
    mtime = stored[0].stat().st_mtime_ns
    again = _lib(settings, wordllama)
    second = again.retrieve("cadmium harbour sediments", top_k=2)
    assert stored[0].stat().st_mtime_ns == mtime  # loaded, not rebuilt
    assert [h.text for h in second.hits] == [h.text for h in first.hits]
    assert first.hits[0].file == "estuary.pdf"
    stored[0].write_bytes(b"damaged")
    third = _lib(settings, wordllama)
    assert third.retrieve("cadmium harbour sediments", top_k=2).hits[0].file == "estuary.pdf"


def test_question_with_two_facets_gets_each_facets_paper(
    tmp_settings: Settings,
    tmp_path: Path,
    make_pdf: Callable[[Path, list[str]], Path],
    wordllama: WordLlamaEmbedder,
) -> None:
    root = tmp_path / "facets"
    heat = [
        f"Wheat heat stress trial {i}: flag leaves lost chlorophyll, grain filling slowed and "
        f"yield fell under {30 + i} degrees during anthesis in the greenhouse; reference "
        "photographs of the plots were taken. " * 6
        for i in range(6)
    ]
    make_pdf(root / "wheat.pdf", heat)
    make_pdf(
        root / "river.pdf",
        [
            "River levels were read from time-lapse photographs. " * 8,
            "A staff gauge beside the camera gave the reference water level. " * 8,
        ],
    )
    settings = tmp_settings.model_copy(update={"library_dirs": [root]})
    lib = _lib(settings, wordllama)
    q = (
        "How did heat stress change wheat grain filling and yield in the greenhouse, "
        "and which reference did the photographs of the river use?"
    )
    assert lib.params.facet_slots == 3  # the shipped default
    whole = lib.retrieve(q, top_k=3, params=replace(lib.params, facet_slots=0))
    faceted = lib.retrieve(q, top_k=3)
    assert {h.file for h in whole.hits} == {"wheat.pdf"}  # one paper fills every excerpt
    assert {h.file for h in faceted.hits} == {"wheat.pdf", "river.pdf"}
    assert (faceted.hits[0].file, faceted.hits[0].page) == (whole.hits[0].file, whole.hits[0].page)


def test_second_pass_picks_the_papers_page_with_its_telling_word(
    tmp_settings: Settings,
    tmp_path: Path,
    make_pdf: Callable[[Path, list[str]], Path],
    wordllama: WordLlamaEmbedder,
) -> None:
    """Every page of the programme paper speaks of heart failure programme participants;
    only one says what they asked for the facilities. Within that paper the shared words
    tell the pages apart no better than stop words, so the second pass ranks that page
    first; the rest of the library keeps its places."""
    root = tmp_path / "programme"
    shared = "Heart failure programme participants in both centres attended the sessions. "
    pages = [
        shared * 3 + "Participants said the heart failure programme gave them confidence. " * 4,
        shared * 3 + "The heart failure programme participants valued the nurses. " * 4,
        shared * 2 + "The rooms are cramped, so participants proposed bigger facilities. " * 2,
        shared * 3 + "Heart failure programme participants exercised twice a week. " * 4,
    ]
    make_pdf(root / "programme.pdf", pages)
    make_pdf(root / "river.pdf", ["River levels were read from time-lapse photographs. " * 8])
    settings = tmp_settings.model_copy(update={"library_dirs": [root]})
    lib = _lib(settings, wordllama)
    q = "What did the heart failure programme participants propose about the facilities?"
    assert (lib.params.second_papers, lib.params.second_facets_only) == (2, False)
    before = lib.retrieve(q, top_k=4, params=replace(lib.params, second_papers=0))
    after = lib.retrieve(q, top_k=4)  # the shipped default: the whole question's ranking too
    assert (after.hits[0].file, after.hits[0].page) == ("programme.pdf", 3)
    assert [h.file for h in after.hits] == [h.file for h in before.hits]  # same papers' places
    assert "facilities" in after.hits[0].text
    # a facet's ranking gets the second pass (here: facets only)
    facets_only = replace(lib.params, second_facets_only=True)
    two = q.rstrip("?") + ", and which photographs did the river study read levels from?"
    faceted = [(h.file, h.page) for h in lib.retrieve(two, top_k=4, params=facets_only).hits]
    assert ("programme.pdf", 3) in faceted and ("river.pdf", 1) in faceted
