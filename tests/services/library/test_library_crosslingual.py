"""Cross-lingual retrieval with the default embedder: an English question finds the page of
a Portuguese paper that answers it, although no word of the question is on that page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from litdesk._settings import Settings
from litdesk.adapters.embeddings import cross_lingual_part
from litdesk.core.library import paper_vocabulary
from litdesk.services.app import app_library
from litdesk.services.library._bridging import WordBridge, WordVectors
from litdesk.services.library._catalogue import StoredChunk

PT_METHODS = (
    "Métodos. Esta pesquisa foi realizada em maio de 2022 na base de dados e recuperou os "
    "artigos válidos publicados por autores da China e do Brasil na área. "
) * 5
PT_RESULTS = (
    "Resultados. Da produção científica chinesa, uma pequena parte dos artigos está em acesso "
    "aberto; da produção brasileira, o acesso aberto representa a maior parte dos artigos. "
) * 5
EN_OTHER = (
    "Results. The time-lapse cameras mounted on two bridges recorded the river water level "
    "every ten minutes, and the staff gauge agreed with the automatic readings. "
) * 5
EN_MORE = (
    "Discussion. Open questions remain about how the cameras behave at night and in the "
    "rain; the access road to the bridges was closed for part of the season. "
) * 5


def test_english_question_finds_the_portuguese_page(
    tmp_settings: Settings, tmp_path: Path, make_pdf: Callable[..., Path]
) -> None:
    root = tmp_path / "pdfs"
    make_pdf(root / "producao_pt.pdf", [PT_METHODS, PT_RESULTS])
    make_pdf(root / "cameras.pdf", [EN_OTHER, EN_MORE])
    settings = tmp_settings.model_copy(update={"library_dirs": [root], "database_url": None})
    assert settings.embedder == "wordllama+use-m3"
    lib = app_library(settings, workers=1)
    try:
        found = lib.retrieve(
            "What share of the Chinese and Brazilian articles is published open access?",
            top_k=2,
        )
        assert [(h.file, h.page) for h in found.hits][0] == ("producao_pt.pdf", 2)
        # each page once before any page twice: the two excerpts are two different pages
        assert len({(h.file, h.page) for h in found.hits}) == 2
    finally:
        lib.close()


def test_question_words_bridge_to_the_words_of_the_portuguese_paper(
    tmp_settings: Settings,
) -> None:
    """The lexical ranking looks for the Portuguese paper's own words too: each question
    word's counterpart in that paper's vocabulary (found with use-m3's word vectors)."""
    lib = app_library(tmp_settings.model_copy(update={"database_url": None}), workers=1)
    try:
        part = cross_lingual_part(lib.embedder())
        assert part is not None
        chunks = [
            StoredChunk(1, "pt", 0, 1, PT_METHODS),
            StoredChunk(2, "pt", 1, 2, PT_RESULTS),
            StoredChunk(3, "en", 0, 1, EN_OTHER),
        ]
        cache = WordVectors()
        bridge = WordBridge(part, cache)
        bridge.prepare([[1, 2, 0]], chunks, foreign={"pt"})
        assert list(bridge.papers) == ["pt"]
        words = ["chinese", "articles", "open", "access"]
        bridged = bridge(words)
        assert bridged[: len(words)] == words
        extra = set(bridged[len(words) :])
        assert {"chinesa", "acesso", "aberto"} <= extra, extra
        assert not extra & set(paper_vocabulary([EN_OTHER]))  # only the paper's own words
        # each word is embedded once: a paper with the same words adds none
        seen = len(cache)
        assert seen == len(set(words) | set(bridge.papers["pt"]))
        twin = [StoredChunk(4, "pt2", 0, 1, PT_RESULTS + PT_METHODS)]
        again = WordBridge(part, cache)
        again.prepare([[0]], twin, foreign={"pt2"})
        assert again(words) == bridged and len(cache) == seen
        # nothing in another language near the top, or no cross-lingual model: no bridge
        english = WordBridge(part, WordVectors())
        english.prepare([[2]], chunks, foreign=set())
        assert english(words) == words
        assert WordBridge(None, WordVectors())(words) == words
        with pytest.raises(ValueError):
            WordVectors(limit=10)
    finally:
        lib.close()


PT_ABSTRACT = (
    "Abstract. This study compares the articles of Brazilian and Chinese authors indexed in "
    "the Web of Science; the articles appear in journals of commercial publishers. "
) * 4
PT_PUBLISHERS = (
    "Editoras. As editoras comerciais publicam a maior parte dos artigos chineses, e uma "
    "única empresa responde por um quarto da amostra; as editoras universitárias publicam "
    "os artigos brasileiros. "
) * 4


def test_the_bridge_takes_the_papers_own_words_not_its_english_abstract(
    tmp_settings: Settings,
) -> None:
    """A Portuguese paper's English abstract holds English words too ("article"): closest to
    the question's "articles", they took the bridge's place. Its own words are looked for
    instead: the abstract (English) and the words of the question's language are left out
    of its vocabulary."""
    lib = app_library(tmp_settings.model_copy(update={"database_url": None}), workers=1)
    try:
        part = cross_lingual_part(lib.embedder())
        assert part is not None
        chunks = [
            StoredChunk(1, "pt", 0, 1, PT_ABSTRACT),
            StoredChunk(2, "pt", 1, 2, PT_METHODS),
            StoredChunk(3, "pt", 2, 3, PT_PUBLISHERS),
            StoredChunk(4, "en", 0, 1, EN_OTHER),
        ]
        bridge = WordBridge(part, WordVectors())
        bridge.prepare([[0, 1, 2]], chunks, foreign={"pt"})
        vocabulary = set(bridge.papers["pt"])
        assert {"artigos", "editoras", "amostra"} <= vocabulary
        assert not vocabulary & {"article", "articles", "journals", "publishers", "compares"}
        words = ["articles", "publishers", "sample"]
        extra = bridge(words)[len(words) :]
        assert "artigos" in extra and "amostra" in extra, extra
        assert not set(extra) & {"article", "journals"}
    finally:
        lib.close()


def test_english_question_finds_the_portuguese_passage_not_the_english_abstract(
    tmp_settings: Settings, tmp_path: Path, make_pdf: Callable[..., Path]
) -> None:
    """The Portuguese paper leads the ranking; within it, the page that answers (in
    Portuguese) comes before its English abstract, which shares the question's words: the
    second pass ranks the paper's chunks again on the bridged words."""
    root = tmp_path / "pdfs"
    make_pdf(root / "editoras_pt.pdf", [PT_ABSTRACT, PT_METHODS, PT_PUBLISHERS])
    make_pdf(root / "cameras.pdf", [EN_OTHER, EN_MORE])
    settings = tmp_settings.model_copy(update={"library_dirs": [root], "database_url": None})
    lib = app_library(settings, workers=1)
    try:
        question = "How many of the Chinese articles does one commercial publisher carry, and what share of the sample is that?"  # fmt: skip
        found = lib.retrieve(question, top_k=3)
        assert [(h.file, h.page) for h in found.hits][0] == ("editoras_pt.pdf", 3)
        before = lib.retrieve(question, top_k=3, params=replace(lib.params, second_foreign=0.0))
        assert [(h.file, h.page) for h in before.hits][0] != ("editoras_pt.pdf", 3)
    finally:
        lib.close()
