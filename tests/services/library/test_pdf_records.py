"""Issue 32, papers from PDFs: a library PDF's description read from its first pages is
confirmed or corrected per account, the PDF is attached to a saved paper (and so is that
paper's PDF in its Studies, the saved list and the library), a PDF no paper matches
becomes a saved paper, and the Study's PDFs are a chat and report scope for members only.
Real fixture PDFs, SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync
from litdesk.services.library import (
    AttachPdfPaperRequest,
    ConfirmPdfRequest,
    LibraryPageRequest,
    PdfRecordInputError,
    SavePdfPaperRequest,
)
from litdesk.services.library._area import StudyNotLinked
from litdesk.services.studies import SavedRequest
from litdesk.services.synthesis import ReportRequest
from litdesk.services.synthesis._build import _paper_record
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.fixtures

SPECTER = "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
SPECTER_PDF = "acl_2020_main_207_specter.pdf"  # no identifier printed: its title only
HINDAWI_PDF = "hindawi_rrp_2010_157939.pdf"  # DOI 10.1155/2010/157939 on page 1
PASSWORD = "correct horse battery"


@pytest.fixture
def settings(
    tmp_settings: Settings, fixtures_dir: Path, tmp_path: Path, library_db: str | None
) -> Settings:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in (SPECTER_PDF, HINDAWI_PDF, "encrypted_libreoffice_password.pdf"):
        shutil.copyfile(fixtures_dir / "pdf" / name, folder / name)
    update: dict[str, Any] = {"library_dirs": [folder], "llm_backend": "none"}
    if library_db is not None:
        update["database_url"] = library_db
    return tmp_settings.model_copy(update=update)


def _field(view: Any, name: str) -> dict[str, Any]:
    return next(f for f in view.fields if f["name"] == name)


def test_a_pdf_is_confirmed_attached_and_saved_as_a_paper(settings: Settings) -> None:
    me = LOCAL_OWNER
    with open_app_sync(settings) as app:
        lib = app.library
        ws = Workspace(app.store)
        study = ws.create_study("Citation embeddings")
        specter = ws.save_paper(
            make_paper(
                openalex_id="W3034153734", title=SPECTER, year=2020,
                authors=["Cohan, Arman", "Feldman, Sergey"],
            ),
            study=study.id,
        ).paper  # fmt: skip

        # read from the PDF, with a confidence; the saved paper is offered by its title
        view = lib.pdf_record(SPECTER_PDF, owner=me)
        title = _field(view, "title")
        assert title["source"] == "read from the PDF" and 0 < title["confidence"] <= 1
        assert title["value"].startswith("SPECTER")
        assert view.confirmed is None and view.paper is None
        [cand] = view.candidates
        assert cand["id"] == specter.id and cand["how"] == "title" and not cand["certain"]

        # corrected and confirmed: shown as the person's, the reading kept beside it
        fixed = lib.confirm_pdf(
            ConfirmPdfRequest(
                view.sha256, title=SPECTER, authors=("Arman Cohan", "Sergey Feldman"),
                year=2020, venue="ACL 2020", doi=" https://doi.org/10.18653/V1/2020.acl-main.207 ",
            ),
            owner=me,
        )  # fmt: skip
        assert _field(fixed, "title")["source"] == "confirmed by you"
        assert _field(fixed, "doi")["value"] == "10.18653/v1/2020.acl-main.207"
        assert _field(fixed, "venue")["value"] == "ACL 2020"
        assert fixed.read is not None and fixed.read["title"]["source"] == "read from the PDF"
        # a report names the PDF by the person's description (not "read from the PDF")
        [named], _paths, _shas = _paper_record(app.pdfs, [SPECTER_PDF], me)
        assert (named.title, named.authors) == (SPECTER, ("Arman Cohan", "Sergey Feldman"))
        assert named.read_confidence is None and named.doi == "10.18653/v1/2020.acl-main.207"
        with pytest.raises(PdfRecordInputError):
            lib.confirm_pdf(ConfirmPdfRequest(SPECTER_PDF, title="  "), owner=me)
        with pytest.raises(PdfRecordInputError):
            lib.confirm_pdf(ConfirmPdfRequest(SPECTER_PDF, title="T", doi="not-a-doi"), owner=me)
        with pytest.raises(NotFoundError):
            lib.pdf_record("nowhere.pdf", owner=me)

        # attached: one object in the Study, the saved list and the library
        done = lib.attach_pdf(AttachPdfPaperRequest(SPECTER_PDF, specter.id), owner=me)
        assert done.paper is not None and done.paper["id"] == specter.id
        assert done.linked_in == [study.id]
        assert [s["id"] for s in done.studies] == [study.id]
        ft = app.studies.fulltext(study.id, owner=me)
        [row] = ft.rows
        assert row["pdf"] is not None and row["pdf"]["sha256"] == done.sha256
        assert row["pdf"]["state"] == "linked" and row["retrieved"] == "pdf"
        assert app.reader.reader(specter.id, owner=me).pdf == {
            "sha256": done.sha256, "file": SPECTER_PDF,
        }  # fmt: skip
        saved = app.studies.saved(SavedRequest(), owner=me)
        assert saved.rows[0]["pdf"] == {"sha256": done.sha256, "file": SPECTER_PDF}
        files = {r["file"]: r for r in lib.view(LibraryPageRequest(), owner=me).files}
        assert files[SPECTER_PDF]["paper"]["id"] == specter.id
        assert files[SPECTER_PDF]["confirmed_title"] == SPECTER
        assert files[HINDAWI_PDF]["paper"] is None
        # the page's Studies column: the Study the PDF is linked in, though it prints no
        # DOI or arXiv id (it listed only Studies found by those)
        assert files[SPECTER_PDF]["studies"] == [{"id": study.id, "name": "Citation embeddings"}]
        assert files[HINDAWI_PDF]["studies"] == []

        # identifiers only: the SPECTER PDF (title only) is not attached by matching; one
        # saved paper with the Hindawi DOI is, in a second account's view only theirs
        assert lib.attach_matching(owner=me) == []
        # no saved paper is the Hindawi PDF: it becomes one from what was read
        hv = lib.pdf_record(HINDAWI_PDF, owner=me)
        assert hv.candidates == [] and _field(hv, "doi")["value"] == "10.1155/2010/157939"
        made = lib.save_pdf_paper(SavePdfPaperRequest(HINDAWI_PDF), owner=me)
        assert made.paper is not None and made.paper["doi"] == "10.1155/2010/157939"
        assert made.paper["title"] == _field(hv, "title")["value"]
        assert ws.paper("10.1155/2010/157939").paper.id == made.paper["id"]
        with pytest.raises(InputError):  # nothing can be read from an encrypted PDF
            lib.save_pdf_paper(SavePdfPaperRequest("encrypted_libreoffice_password.pdf"), owner=me)

        # the Study's PDFs are a scope: chat and report (the attached PDF has no DOI)
        name, names = lib.study_pdfs("Citation embeddings", owner=me)
        assert (name, names) == ("Citation embeddings", (SPECTER_PDF,))
        request = ReportRequest(study="Citation embeddings", questions=("What is learned?",))
        assert app.reports.scoped(request, owner=me).papers == (SPECTER_PDF,)
        assert app.reports.plan(request, owner=me).papers == 1  # of the library's three


def test_records_and_study_scopes_are_each_accounts_own(settings: Settings) -> None:
    with open_app_sync(settings) as app:
        ana = app.accounts.add("ana", PASSWORD).id
        bob = app.accounts.add("bob", PASSWORD).id
        lib = app.library
        ana_ws = Workspace(app.store, owner=ana)
        study = ana_ws.create_study("Ana's review")
        paper = ana_ws.save_paper(make_paper(doi="10.1155/2010/157939", title="Hindawi"),
                                  study=study.id).paper  # fmt: skip
        lib.confirm_pdf(
            ConfirmPdfRequest(HINDAWI_PDF, title="Ana's title", doi="10.1155/2010/157939"),
            owner=ana,
        )
        assert lib.attach_matching(owner=bob) == []  # ana's paper is not bob's
        assert lib.attach_matching(owner=ana) == [(HINDAWI_PDF, paper.id)]  # by its DOI
        assert lib.attach_matching(owner=ana) == []  # once
        assert lib.study_pdfs(study.id, owner=ana)[1] == (HINDAWI_PDF,)

        assert _paper_record(app.pdfs, [HINDAWI_PDF], ana)[0][0].title == "Ana's title"
        [read], _paths, _shas = _paper_record(app.pdfs, [HINDAWI_PDF], bob)  # not ana's correction
        assert read.title != "Ana's title" and read.read_confidence is not None
        theirs = lib.pdf_record(HINDAWI_PDF, owner=bob)
        assert theirs.confirmed is None and theirs.paper is None and theirs.studies == []
        assert _field(theirs, "title")["source"] == "read from the PDF"
        assert theirs.candidates == []  # ana's saved paper is not offered to bob
        with pytest.raises(NotFoundError):  # not bob's paper
            lib.attach_pdf(AttachPdfPaperRequest(HINDAWI_PDF, paper.id), owner=bob)
        with pytest.raises(NotFoundError):  # not a member: no Study scope
            lib.study_pdfs(study.id, owner=bob)
        with pytest.raises(NotFoundError):
            app.reports.plan(ReportRequest(study=study.id, questions=("q?",)), owner=bob)
        with pytest.raises(StudyNotLinked):
            lib.study_pdfs(ana_ws.create_study("Empty").id, owner=ana)
