"""Subjects as objects (issue 33), on SQLite and PostgreSQL: evidence linked to subjects
when recorded (named as the vocabulary names them; unknown ones refused), a subject's page
with the searches it seeds and the evidence linked to it, the evidence table filtered by
subject, links in and out of the trash with their record, and one account never seeing
another's linked evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url
from tests.services.accounts.conftest import team_store, team_url

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import Store, subject_links
from litdesk.adapters.vocab import VocabularyPackage
from litdesk.core.records import make_paper
from litdesk.core.vocab import Subject, SubjectLinkInvalid, SubjectRef, parse_subject_refs
from litdesk.services.accounts import Accounts
from litdesk.services.app import App, open_app_sync
from litdesk.services.reader import EvidenceRequest, ReaderArea
from litdesk.services.subjects import SubjectRequest, SubjectsArea
from litdesk.services.workspace import Workspace

__all__ = ["pg_schema", "store_url", "team_store", "team_url"]

ABSTRACT = "Metformin lowered fasting glucose in adults with type 2 diabetes over a year."
SMALL = [
    Subject("mesh", "D003920", "Diabetes Mellitus", ("Diabetes",)),
    Subject("mesh", "D008687", "Metformin"),
    Subject("mesh", "D001249", "Asthma"),
]


def _load(package: VocabularyPackage) -> list[Subject] | None:
    return SMALL


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        # the small vocabulary in place of MeSH, in the area and in the reader
        a.subjects = SubjectsArea(load=_load, store=a.providers.store)
        a.reader = ReaderArea(a.providers, subjects=a.subjects.resolve)
        yield a


def _paper(ws: Workspace, n: int = 1) -> str:
    paper = make_paper(pmid=str(500 + n), title=f"Metformin trial {n}", abstract=ABSTRACT)
    return ws.save_paper(paper).paper.id


def _record(app: App, paper_id: str, *subjects: str, study: str | None = None) -> None:
    request = EvidenceRequest(
        paper_id,
        finding="Lower glucose",
        passage="lowered fasting glucose",
        study=study,
        subjects=subjects,
    )
    asyncio.run(app.reader.add_evidence(request, owner="local"))


def test_parse_refs() -> None:
    assert parse_subject_refs(["mesh:D003920", "D003920", " D008687 ", ""]) == (
        ("mesh", "D003920"),
        ("mesh", "D008687"),
    )
    for bad in ("mesh:", "MeSH:D1", "mesh:D 1", "a" * 41 + ":D1", "mesh:" + "D" * 65):
        with pytest.raises(SubjectLinkInvalid):
            parse_subject_refs([bad])
    with pytest.raises(SubjectLinkInvalid, match="at most 8"):
        parse_subject_refs([f"mesh:D{n:06d}" for n in range(9)])


def test_link_page_and_filter(app: App) -> None:
    ws = app.workspace()
    study = ws.create_study("Metformin review")
    first, second = _paper(ws, 1), _paper(ws, 2)
    _record(app, first, "mesh:D003920", "D008687", study=study.id)
    _record(app, second, "D008687")
    _record(app, second)  # no subject

    views, _ = ws.evidence()
    assert [[s.key for s in v.subjects] for v in views] == [
        ["mesh:D003920", "mesh:D008687"],
        ["mesh:D008687"],
        [],
    ]
    assert views[0].subjects[0] == SubjectRef("mesh", "D003920", "Diabetes Mellitus")

    page = app.subjects.subject(SubjectRequest("mesh", "D003920"), owner="local").to_dict()
    assert page["subject"]["label"] == "Diabetes Mellitus" and page["installed"]
    assert page["subject"]["url"] == "https://id.nlm.nih.gov/mesh/D003920"
    assert page["seeds"] == {
        "keywords": '"Diabetes Mellitus"',
        "controlled": 'MESH:"Diabetes Mellitus"',
        "synonyms": '("Diabetes Mellitus" OR Diabetes)',
    }
    assert [e["paper_id"] for e in page["evidence"]] == [first]
    metformin = app.subjects.subject(SubjectRequest("mesh", "D008687"), owner="local")
    assert [e["paper_id"] for e in metformin.to_dict()["evidence"]] == [first, second]
    asthma = app.subjects.subject(SubjectRequest("mesh", "D001249"), owner="local").to_dict()
    assert asthma["evidence"] == [] and asthma["seeds"]["synonyms"] is None

    table = app.reader.evidence_table(subject="mesh:D008687", owner="local").to_dict()
    assert [e["paper_id"] for e in table["evidence"]] == [first, second]
    assert table["filters"]["subject"] == "mesh:D008687"
    assert [(s["key"], s["records"]) for s in table["subjects"]] == [
        ("mesh:D003920", 1),
        ("mesh:D008687", 2),
    ]
    in_study = app.reader.evidence_table(
        study=study.id, subject="mesh:D008687", owner="local"
    ).to_dict()
    assert [e["paper_id"] for e in in_study["evidence"]] == [first]
    assert len(app.reader.evidence_table(owner="local").to_dict()["evidence"]) == 3


def test_unknown_subjects_are_refused_and_nothing_is_recorded(app: App) -> None:
    ws = app.workspace()
    paper = _paper(ws)
    with pytest.raises(SubjectLinkInvalid, match="not a subject of MeSH"):
        _record(app, paper, "mesh:D999999")
    with pytest.raises(SubjectLinkInvalid, match="no vocabulary"):
        _record(app, paper, "doid:0001816")
    with pytest.raises(InputError):
        EvidenceRequest(paper, passage="x", subjects=("not a ref",))
    assert ws.evidence() == ([], [])
    with pytest.raises(NotFoundError):
        app.subjects.subject(SubjectRequest("mesh", "D999999"), owner="local")
    with pytest.raises(InputError):
        SubjectRequest("mesh", "../etc")
    with pytest.raises(InputError):
        app.reader.evidence_table(subject="mesh:", owner="local")


def test_a_subject_known_only_from_its_links(app: App) -> None:
    """A subject whose vocabulary no longer has it still has its page, named as linked."""
    paper = _paper(app.workspace())
    _record(app, paper, "mesh:D001249")
    bare = SubjectsArea(load=lambda package: [], store=app.providers.store)
    page = bare.subject(SubjectRequest("mesh", "D001249"), owner="local").to_dict()
    assert page["subject"]["label"] == "Asthma" and not page["installed"]
    assert [e["paper_id"] for e in page["evidence"]] == [paper]


def test_links_go_into_the_trash_and_back(app: App) -> None:
    ws = app.workspace()
    paper = _paper(ws)
    _record(app, paper, "mesh:D003920")
    (view,), _ = ws.evidence()
    change = app.studies.delete_evidence(view.id, owner="local")
    assert app.reader.evidence_table(subject="mesh:D003920", owner="local").rows == []
    assert app.reader.evidence_table(owner="local").subjects == []
    app.studies.restore(change.trash_id or "", owner="local")
    (back,), _ = ws.evidence(subject=("mesh", "D003920"))
    assert back.id == view.id and [s.key for s in back.subjects] == ["mesh:D003920"]


def test_one_account_never_sees_anothers_linked_evidence(team_store: Store) -> None:
    settings = Settings()
    accounts = Accounts(team_store, settings)
    ana_id = accounts.add("ana", "correct horse battery").id
    bob_id = accounts.add("bob", "correct horse battery").id
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    paper = _paper(ana)
    ana.add_evidence(
        paper,
        finding="Lower glucose",
        passage="lowered fasting glucose",
        source="abstract",
        subjects=[SubjectRef("mesh", "D003920", "Diabetes Mellitus")],
    )
    area = SubjectsArea(load=_load, store=team_store)
    request = SubjectRequest("mesh", "D003920")
    assert len(area.subject(request, owner=ana_id).evidence) == 1
    assert area.subject(request, owner=bob_id).evidence == ()
    assert bob.evidence(subject=("mesh", "D003920")) == ([], [])
    with team_store.read() as conn:
        assert subject_links.linked_subjects(conn, visible_to=bob_id) == []
        assert len(subject_links.linked_subjects(conn, visible_to=ana_id)) == 1


def test_a_concept_groups_first_alternative_and_its_other_names() -> None:
    from litdesk.services.subjects import AliasesRequest

    area = SubjectsArea(load=_load)
    by_label = area.aliases(AliasesRequest("diabetes  mellitus")).to_dict()
    assert by_label["subject"]["id"] == "D003920" and by_label["aliases"] == ["Diabetes"]
    assert by_label["subject"]["page"] == "/subject/mesh/D003920"
    by_synonym = area.aliases(AliasesRequest("Diabetes")).to_dict()
    assert by_synonym["subject"]["id"] == "D003920"
    assert by_synonym["aliases"] == ["Diabetes Mellitus"]  # the heading, the typed one left out
    assert area.aliases(AliasesRequest("Metformin")).to_dict()["aliases"] == []
    assert area.aliases(AliasesRequest("diabet")).to_dict() == {"subject": None, "aliases": []}
    for bad in ("", "   ", "x" * 181):
        with pytest.raises(SubjectLinkInvalid):
            AliasesRequest(bad)
