"""Bibliographic markup that arrives *as markup* in an export's titles and abstracts (issue 28).

The Lens's and Dimensions' RIS exports copy the publisher's JATS (``<jats:p>``,
``<jats:title>Abstract</jats:title>``) and PubMed's XML (``<AbstractText Label="BACKGROUND"
NlmCategory="…">``) into ``AB`` as they are: the screening card showed a reviewer
``<AbstractText Label="Background and aims" NlmCategory="UNASSIGNED">The Short Gambling Harm
Screen…``, and the model read "abstracttext", "nlmcategory" and "jats" as words of every record
of those databases. Only markup plainly bibliographic is made plain; anything else stays text."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import pytest

from litdesk.adapters import formats
from litdesk.adapters.formats._csvtable import parse_csv


def _ris(*abstracts: str) -> bytes:
    return "".join(
        f"TY  - JOUR\nTI  - Record {i}\nAB  - {a}\nER  - \n\n" for i, a in enumerate(abstracts)
    ).encode()


def test_jats_and_pubmed_markup_in_a_ris_abstract_is_made_plain() -> None:
    papers = formats.loads(
        _ris(
            "<jats:title>Abstract</jats:title><jats:sec><jats:title>Background</jats:title>"
            "<jats:p>Harms <jats:italic>of</jats:italic> gambling.</jats:p></jats:sec>",
            '<AbstractText Label="Background and aims" NlmCategory="UNASSIGNED">Legacy harms'
            ' last.</AbstractText> <AbstractText Label="Methods" NlmCategory="METHODS">A '
            "survey.</AbstractText>",
            "<p>Emissions of CO<sub>2</sub> rise.</p> <p><em>J Drugs Dermatol.</em></p>",
        ),
        format="ris",
    ).papers
    assert [p.abstract for p in papers] == [
        "Background\n\nHarms of gambling.",
        "Background and aims: Legacy harms last.\n\nMethods: A survey.",
        "Emissions of CO2 rise.\n\nJ Drugs Dermatol.",
    ]


def test_other_markup_stays_text_whole() -> None:
    """A tag that is not bibliographic (an image, an event handler, a script) leaves the value
    as it is, shown as text — never half stripped; inline tags alone stay too, and a bare '<'
    is never a tag."""
    values = [
        "An <b onmouseover=alert(33)>abstract</b> with <p>paragraphs</p>",
        "<p>Text</p><script>alert(1)</script>",
        "<p>Hostile <img src=x onerror=alert(32)></p>",
        "p < 0.05 and q > 3 in <i>vivo</i>",
        "levels <5 years and >2 <p",
    ]
    papers = formats.loads(_ris(*values), format="ris").papers
    assert [p.abstract for p in papers] == values


def test_a_csv_cell_with_jats_markup_is_made_plain() -> None:
    buf = io.StringIO()
    csv.writer(buf).writerows(
        [
            ["title", "abstract"],
            ["<jats:p>Gambling <jats:italic>harm</jats:italic></jats:p>", "<p>One.</p><p>Two.</p>"],
        ]
    )
    (record,) = parse_csv(buf.getvalue()).records
    assert (record.paper.title, record.paper.abstract) == ("Gambling harm", "One.\n\nTwo.")


_EXPORTS = [
    "bib/ris/citesource__20221207_gambling-harms_lens_49.ris",
    "bib/ris/citesource__Dimensions_246.ris",
]


@pytest.mark.parametrize("name", _EXPORTS)
def test_no_lens_or_dimensions_abstract_keeps_jats_or_pubmed_tags(name: str) -> None:
    root = os.environ.get("LITDESK_FIXTURES")
    if not root or not (Path(root) / name).is_file():
        pytest.skip("LITDESK_FIXTURES not set")
    papers = formats.load(Path(root) / name).papers
    tagged = re.compile(r"</?(?:jats:|mml:|AbstractText|CopyrightInformation|p>|div>)")
    left = [p.abstract[:80] for p in papers if p.abstract and tagged.search(p.abstract)]
    assert left == []
    with_text = [p for p in papers if p.abstract]
    assert len(with_text) > len(papers) // 2  # abstracts were kept, only their tags went
