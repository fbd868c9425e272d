from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from litdesk.adapters.embeddings import WordLlamaEmbedder


@pytest.fixture(scope="session")
def wordllama(tmp_path_factory: pytest.TempPathFactory) -> WordLlamaEmbedder:
    """One wordllama model for the whole session (kept out of hot loops)."""
    return WordLlamaEmbedder(tmp_path_factory.mktemp("wl-models"))


def write_pdf(path: Path, pages: list[str]) -> Path:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


@pytest.fixture
def make_pdf() -> Callable[[Path, list[str]], Path]:
    return write_pdf
