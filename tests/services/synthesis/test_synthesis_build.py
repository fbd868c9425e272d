"""Building a report: every citation is a verified excerpt on its page, through the gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.llm import ChatReply, ChatRequest, NoModelBackend
from litdesk.adapters.pdf import read_pages
from litdesk.core.library import normalise_text
from litdesk.services.app import app_library
from litdesk.services.library import Library, UnknownPapers
from litdesk.services.synthesis import SynthesisReport, build_report, split_sections


@dataclass
class Scripted:
    """A scripted model (live LLMs are the edge we cannot reach here)."""

    model: str = "scripted-1"
    name: str = "scripted"
    is_model: bool = True
    requests: list[ChatRequest] = field(default_factory=list)

    def complete(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        if request.system.startswith("Translate"):
            return ChatReply(request.user, "end", self.model)
        if "Compare the papers" in request.user:
            text = (
                "Agreement:\nBoth papers measure in the field [1][2].\n"
                "Differences:\nThey study different things [2][99].\n"
                "Open points:\nLong-term effects stay open [1].\n\nReferences:\n[1] made up"
            )
            return ChatReply(text, "end", self.model)
        return ChatReply("The excerpts say so [1]. More detail [2].", "end", self.model)


def _lib(settings: Settings, wordllama: WordLlamaEmbedder, backend: object) -> Library:
    return app_library(settings, embedder=wordllama, backend=backend, workers=1)  # type: ignore[arg-type]


def _assert_passages_on_their_pages(report: SynthesisReport) -> None:
    texts: dict[tuple[str, int], str] = {}
    for c in report.labelled.passages:
        key = (c.file, c.page)
        if key not in texts:
            texts[key] = normalise_text(read_pages(report.paths[c.file])[c.page - 1])
        assert " ".join(c.text.split()) in texts[key], (c.label, c.file, c.page)


def test_no_model_report_extracts_and_refuses_to_fake_synthesis(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = _lib(settings, wordllama, NoModelBackend())
    report = build_report(
        lib,
        papers=["cameras.pdf", "wheat.pdf"],
        questions=["How was the water level measured?", " ", "What happened to grain yield?"],
        summary="bullets",
        synthesis=True,
        top_k=4,
    )
    lib.close()
    units = report.labelled.units
    questions = [u for u in units if u.kind == "question"]
    assert report.questions == [
        "How was the water level measured?",
        "What happened to grain yield?",
    ]
    assert len(questions) == 4  # per-paper: each question on each paper
    assert {u.paper for u in questions} == {"cameras.pdf", "wheat.pdf"}
    assert all(u.extractive and u.grounded for u in questions)
    summaries = [u for u in units if u.kind == "summary"]
    assert len(summaries) == 12 and all(u.extractive for u in summaries)
    assert [u.key for u in summaries[:6]] == [
        "aim", "methods", "study_area", "results", "discussion", "outlook",
    ]  # fmt: skip
    assert all(len(u.excerpts) <= 3 for u in summaries)
    assert not [u for u in units if u.kind == "synthesis"]
    assert report.synthesis_note and "needs a model" in report.synthesis_note
    assert report.model == "none (extractive)"
    # letters in order of first citation: the first question's first unit is cameras
    assert report.labelled.letters == {"cameras.pdf": "A", "wheat.pdf": "B"}
    labels = [c.label for c in report.labelled.passages]
    assert labels[0] == "A1" and all(lab[0] in "AB" for lab in labels)
    # a per-paper unit cites only its own paper
    for u in questions + summaries:
        assert {e.file for e in u.excerpts} <= {u.paper}
    _assert_passages_on_their_pages(report)
    data = report.to_dict()
    assert data["file_name"].endswith("_synthesis_report_how_was_the_water_level_measured.html")
    assert len(data["passages"]) == len(labels) and data["units"][0]["parts"]


def test_model_report_cross_paper_with_synthesis_and_language(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    chat, gen = Scripted(model="chat-m"), Scripted(model="gen-m")
    lib = _lib(settings, wordllama, chat)
    report = build_report(
        lib,
        papers=None,
        questions=["Which instruments measured the water level and the chlorophyll fluorescence?"],
        summary="prose",
        synthesis=True,
        language="German",
        detail_mode="cross-paper",
        top_k=4,
        generation=gen,
    )
    lib.close()
    units = report.labelled.units
    q = [u for u in units if u.kind == "question"]
    assert len(q) == 1 and q[0].paper is None and q[0].grounded
    assert {e.file for e in q[0].excerpts} == {"cameras.pdf", "wheat.pdf"}  # per-paper minimum
    syn = {u.key: u for u in units if u.kind == "synthesis"}
    assert list(syn) == ["agreement", "differences", "open_points"]
    assert syn["agreement"].text == "Both papers measure in the field [1][2]."
    assert "[99]" not in syn["differences"].text and "References" not in syn["open_points"].text
    assert any("invalid citation marker" in w for w in syn["differences"].warnings)
    # the generation model answered the cross-paper units, the chat model the summaries
    gen_users = [r.user for r in gen.requests]
    assert len(gen_users) == 2 and "Compare the papers" in gen_users[1]
    assert all("Write the answer in German" in u for u in gen_users)
    summary_requests = [r for r in chat.requests if "Summarise this" in r.user]
    assert len(summary_requests) == 12
    assert all("Write the answer in German" in r.user for r in summary_requests)
    assert all(len(r.excerpts) <= 3 for r in summary_requests)
    assert report.model == "chat-m" and report.generation_model == "gen-m"
    # labels at one spot side by side, sorted; each label one passage on one page
    spots = [p.labels for parts in report.labelled.parts for p in parts if len(p.labels) > 1]
    assert spots and all(list(s) == sorted(s) for s in spots)
    keys = {(c.file, c.page, c.text) for c in report.labelled.passages}
    assert len(keys) == len(report.labelled.passages)
    _assert_passages_on_their_pages(report)


def test_one_paper_plain_numbers(settings: Settings, wordllama: WordLlamaEmbedder) -> None:
    lib = _lib(settings, wordllama, Scripted())
    report = build_report(
        lib, papers=["gone.pdf", "wheat.pdf"], questions=["What happened to yield?"],
        synthesis=True, top_k=3,
    )  # fmt: skip
    assert report.warnings[0] == "gone.pdf is not in the library: skipped"
    assert [p.file for p in report.labelled.papers] == ["wheat.pdf"]
    lib.close()
    assert [c.label for c in report.labelled.passages] == ["1", "2"]
    assert report.synthesis_note == "synthesis needs two or more papers"


def test_prose_language_defaults_to_the_questions(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    chat = Scripted()
    lib = _lib(settings, wordllama, chat)
    build_report(
        lib, papers=["wheat.pdf"], questions=["Was geschah mit dem Ertrag?"], summary="bullets",
        top_k=3,
    )  # fmt: skip
    lib.close()
    summaries = [r.user for r in chat.requests if "Summarise this" in r.user]
    assert len(summaries) == 6
    assert all('language of this question: "Was geschah mit dem Ertrag?"' in u for u in summaries)
    answers = [r.user for r in chat.requests if "Summarise this" not in r.user]
    assert answers and not any("language of this question" in u for u in answers)


def test_refusals(settings: Settings, wordllama: WordLlamaEmbedder) -> None:
    lib = _lib(settings, wordllama, NoModelBackend())
    with pytest.raises(InputError) as info:
        build_report(lib, papers=None, questions=[" "])
    assert info.value.code == "empty_report"
    with pytest.raises(UnknownPapers) as unknown:
        build_report(lib, papers=["nope.pdf"], questions=["q?"])
    assert "cameras.pdf" in unknown.value.message
    with pytest.raises(InputError) as info:
        build_report(lib, papers=None, questions=[f"q{i}?" for i in range(21)])
    assert info.value.code == "too_many_questions"
    with pytest.raises(InputError):
        build_report(lib, papers=None, questions=["q?"], summary="essay")  # type: ignore[arg-type]
    lib.close()


def test_papers_without_text_are_left_out_with_their_reason(
    settings: Settings, wordllama: WordLlamaEmbedder, folder: Path
) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nnot a pdf at all\n")
    lib = _lib(settings, wordllama, NoModelBackend())
    report = build_report(lib, papers=None, questions=["How was water level measured?"])
    assert [p.file for p in report.labelled.papers] == ["cameras.pdf", "wheat.pdf"]
    assert all("broken.pdf" not in (u.paper or "") for u in report.labelled.units)
    left = [w for w in report.warnings if w.startswith("broken.pdf is left out: ")]
    assert len(left) == 1, report.warnings
    assert "no indexed text in the scope" not in report.warnings
    with pytest.raises(InputError) as info:
        build_report(lib, papers=["broken.pdf"], questions=["q?"])
    assert info.value.code == "no_text"
    assert "broken.pdf" in info.value.message
    lib.close()


def test_split_sections() -> None:
    got = split_sections("Intro.\n**Agreement:** a [1]\n## Differences\nb [2]\nOpen points: c")
    assert got == {"agreement": "a [1]", "differences": "b [2]", "open_points": "c"}
    assert split_sections("just text [1]") == {"agreement": "just text [1]"}


def test_empty_library(
    tmp_settings: Settings, wordllama: WordLlamaEmbedder, tmp_path: Path
) -> None:
    lib = _lib(tmp_settings.model_copy(update={"library_dirs": [tmp_path / "none"]}), wordllama,
               NoModelBackend())  # fmt: skip
    with pytest.raises(InputError) as info:
        build_report(lib, papers=None, questions=["q?"])
    assert info.value.code == "empty"
    lib.close()


def test_real_pdfs_every_cited_passage_is_highlighted(
    tmp_settings: Settings, wordllama: WordLlamaEmbedder, fixtures_dir: Path, tmp_path: Path
) -> None:
    import shutil

    from lxml import html as lxml_html

    from litdesk.services.synthesis import report_html

    folder = tmp_path / "real"
    folder.mkdir()
    for name in ("naacl_2018_N18-3011.pdf", "scielo_transinf_2021_es.pdf"):
        shutil.copy(fixtures_dir / "pdf" / name, folder / name)
    settings = tmp_settings.model_copy(update={"library_dirs": [folder]})
    lib = _lib(settings, wordllama, NoModelBackend())
    report = build_report(
        lib, papers=None, questions=["Which data sources were used?"], summary="bullets", top_k=4
    )
    lib.close()
    _assert_passages_on_their_pages(report)
    doc = lxml_html.fromstring(report_html(report, dpi=40))
    cites = {a.get("data-label"): a for a in doc.xpath("//a[@class='cite']")}
    assert len(cites) == len(report.labelled.passages) >= 10
    assert all(a.get("data-rects") for a in cites.values())
    pages = {(c.file, c.page) for c in report.labelled.passages}
    assert len(doc.xpath("//div[@id='pages']/img")) == len(pages)


def test_a_pdf_without_a_record_is_named_by_what_its_first_pages_say(
    tmp_settings: Settings, wordllama: WordLlamaEmbedder, fixtures_dir: Path, tmp_path: Path
) -> None:
    """Issue 32: offline, the report's paper table shows the title and first author read
    from the PDF, marked as such with a confidence, not the file name."""
    import shutil

    from litdesk.services.synthesis import report_html

    folder = tmp_path / "real"
    folder.mkdir()
    shutil.copy(fixtures_dir / "pdf" / "naacl_2018_N18-3011.pdf", folder / "graph.pdf")
    settings = tmp_settings.model_copy(update={"library_dirs": [folder]})
    lib = _lib(settings, wordllama, NoModelBackend())
    report = build_report(lib, papers=None, questions=["How many nodes has the graph?"], top_k=3)
    lib.close()
    [paper] = report.labelled.papers
    assert paper.title == "Construction of the Literature Graph in Semantic Scholar"
    assert paper.authors and "Ammar" in paper.authors[0]
    assert paper.read_confidence is not None and 0 < paper.read_confidence <= 1
    assert "Ammar" in report.file_name
    page = report_html(report, dpi=40)
    assert "read from the PDF (confidence" in page and ">graph.pdf</a>" in page


def test_both_detail_modes_and_the_generation_roles_own_thinking_level(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    chat, gen = Scripted(model="chat-m"), Scripted(model="gen-m")
    lib = _lib(settings.model_copy(update={"generation_thinking": "high"}), wordllama, chat)
    report = build_report(
        lib,
        papers=["cameras.pdf", "wheat.pdf"],
        questions=["How was the water level measured?"],
        synthesis=True,
        detail_mode="both",
        top_k=4,
        thinking="low",
        generation=gen,
    )
    lib.close()
    q = [u for u in report.labelled.units if u.kind == "question"]
    # once across the papers (the generation role), then once per paper (the chat role)
    assert [u.paper for u in q] == [None, "cameras.pdf", "wheat.pdf"]
    assert report.detail_mode == "both"
    assert len(gen.requests) == 2 and {r.thinking for r in gen.requests} == {"high"}
    assert len(chat.requests) == 2 and {r.thinking for r in chat.requests} == {"low"}
    for u in q[1:]:
        assert {e.file for e in u.excerpts} <= {u.paper}


def test_the_generation_thinking_level_defaults_to_thinking(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    chat, gen = Scripted(model="chat-m"), Scripted(model="gen-m")
    lib = _lib(settings, wordllama, chat)
    build_report(
        lib,
        papers=["cameras.pdf", "wheat.pdf"],
        questions=["How was the water level measured?"],
        detail_mode="cross-paper",
        top_k=4,
        thinking="medium",
        generation=gen,
    )
    lib.close()
    assert [r.thinking for r in gen.requests] == ["medium"]
