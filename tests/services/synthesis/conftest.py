from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder

CAMERAS = (
    "Monitoring River Water Levels with Time-Lapse Cameras. "
    + "Water level was measured with time-lapse cameras mounted on two bridges. "
    "Each camera took one image every ten minutes and a staff gauge was visible in the frame. " * 6
)
WHEAT = (
    "Heat Stress in Winter Wheat. "
    + "Post-anthesis heat stress reduced grain yield and kernel weight in wheat plants. "
    "Chlorophyll fluorescence was measured with a modulated fluorometer. " * 6
)


def write_pdf(path: Path, pages: list[str]) -> Path:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="session")
def wordllama(tmp_path_factory: pytest.TempPathFactory) -> WordLlamaEmbedder:
    return WordLlamaEmbedder(tmp_path_factory.mktemp("wl-models"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "pdfs"
    write_pdf(
        root / "cameras.pdf",
        [CAMERAS, "Results: the cameras agreed with the gauge within two centimetres. " * 12],
    )
    write_pdf(
        root / "wheat.pdf", [WHEAT, "Results: yield fell by a third under heat stress. " * 12]
    )
    return root


@pytest.fixture
def settings(tmp_settings: Settings, folder: Path) -> Settings:
    return tmp_settings.model_copy(update={"library_dirs": [folder]})
