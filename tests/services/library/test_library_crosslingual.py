"""Cross-lingual retrieval with the default embedder: an English question finds the page of
a Portuguese paper that answers it, although no word of the question is on that page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from litdesk._settings import Settings
from litdesk.services.library import Library

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
    lib = Library(settings, workers=1)
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
