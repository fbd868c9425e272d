"""Issue 32: summary units speak from the paper's body: no author lists, affiliations,
contributions, funding, conflicts, acknowledgements, journal headers or references, and
no sentence twice in one paper's summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.services.synthesis.conftest import write_pdf

from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.llm import NoModelBackend
from litdesk.core.report import matter_kind, sentences
from litdesk.services.app import app_library
from litdesk.services.synthesis import build_report

FRONT = (
    "Journal of River Studies 2021; 14(2): 101-118. doi: 10.1234/jrs.2021.101 "
    "Monitoring river water levels with time-lapse cameras. "
    "Anna Berg, Carlos Ruiz, Mei Chen, Tomas Novak. "
    "Department of Hydrology, University of Lund, Lund, Sweden. "
    "Correspondence to anna.berg@example.org. "
    "Received 12 March 2020; accepted 3 May 2020. "
    "Abstract. The aim of this study was to test whether time-lapse cameras can measure the "
    "water level of small rivers. "
)
BODY = (
    "We mounted cameras on two bridges and photographed a staff gauge every ten minutes. "
    "The water level read from the images agreed with the gauge within two centimetres. "
    "Floods were recorded at night with infrared light. "
    "The method is cheap and suits small catchments where no gauge station exists. "
)
BACK = (
    "Author contributions: Anna Berg and Carlos Ruiz conceived and designed the study; Mei "
    "Chen wrote the manuscript. "
    "Funding: This work was supported by the Swedish Research Council under grant no. 2019-1234. "
    "Conflicts of interest: The authors declare no conflict of interest. "
    "Acknowledgements: We thank the river wardens of Lund for their help with the aim of the study. "
    "© 2021 The Authors. Published under a Creative Commons licence. "
)


@pytest.fixture
def one_paper(tmp_settings: Settings, tmp_path: Path) -> Settings:
    root = tmp_path / "pdfs"
    write_pdf(root / "rivers.pdf", [FRONT + BODY * 2, BODY + BACK])
    return tmp_settings.model_copy(update={"library_dirs": [root], "database_url": None})


def test_matter_sentences_are_named() -> None:
    kinds = {matter_kind(s) for s in sentences(BACK) if len(s) > 20}
    assert {"contributions", "funding", "conflicts", "acknowledgements", "journal"} <= kinds
    assert matter_kind("Anna Berg, Carlos Ruiz, Mei Chen, Tomas Novak.") == "authors"
    assert all(matter_kind(s) is None for s in sentences(BODY))


def test_extractive_summary_is_from_the_body_and_repeats_nothing(
    one_paper: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = app_library(one_paper, embedder=wordllama, backend=NoModelBackend(), workers=1)
    report = build_report(lib, papers=["rivers.pdf"], questions=[], summary="prose", top_k=4)
    lib.close()
    units = [u for u in report.labelled.units if u.kind == "summary"]
    assert len(units) == 6
    text = "\n".join(u.text for u in units)
    assert any(u.grounded for u in units)
    for banned in (
        "contributions", "conceived", "supported by", "grant", "declare", "thank",
        "Acknowledgements", "©", "Creative Commons", "doi", "Department of", "@",
        "Received", "Anna Berg, Carlos",
    ):  # fmt: skip
        assert banned not in text, banned
    said = [
        " ".join(re.findall(r"\w+", re.sub(r"\[\d+\]", "", s).lower()))
        for u in units
        for line in u.text.splitlines()
        for s in sentences(line.lstrip("- "))
    ]
    said = [s for s in said if s]
    assert said and len(said) == len(set(said))
