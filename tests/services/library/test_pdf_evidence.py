"""Evidence from a paper's PDF (brief pdfev): the passage is checked on the page the
reviewer names with the strict PDF matcher, stored as checked with source ``pdf``, the
page and the PDF's SHA-256; an altered quote is refused naming the page (with the nearest
text), a quote on another page is refused naming that page, another account's PDF is
never used, and a later different PDF does not re-validate the record. A real fixture PDF
(Hindawi, CC BY), SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.core.evidence import EvidenceRefused, StoredShapeInvalid, md_escape, read_evidence
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.library import AttachPdfPaperRequest
from litdesk.services.reader import (
    EvidenceRecordView,
    EvidenceRequest,
    EvidenceUpdateRequest,
    PdfNotAvailable,
    ReaderInputError,
)
from litdesk.services.studies import EvidenceExportRequest, NotebookExportRequest, RecoverRequest
from litdesk.services.workspace import Workspace, export_study

pytestmark = pytest.mark.fixtures

HINDAWI_PDF = "hindawi_rrp_2010_157939.pdf"  # 6 pages, CC BY
SPECTER_PDF = "acl_2020_main_207_specter.pdf"
DOI = "10.1155/2010/157939"
#: page 2, over three lines: a typographic apostrophe typed straight and a word split by
#: pdfium's hyphen mark ("rehabil\ufffeitation")
ACROSS_LINES = "description of the patient's perspective on rehabilitation programmes"
REAL = "Fifteen participants took part, seven from the rural hospital and eight from the urban hospital."
ALTERED_NUMBER = REAL.replace("eight", "nine")
ALTERED_CITATION = "as well as reducing hospital readmissions [5]"  # the page says [6]
PAGE_ONE = "Structured rehabilitation programmes are effective in enabling patients"
PASSWORD = "correct horse battery"


@pytest.fixture
def settings(
    tmp_settings: Settings, fixtures_dir: Path, tmp_path: Path, library_db: str | None
) -> Settings:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in (HINDAWI_PDF, SPECTER_PDF):
        shutil.copyfile(fixtures_dir / "pdf" / name, folder / name)
    update: dict[str, Any] = {"library_dirs": [folder], "llm_backend": "none"}
    if library_db is not None:
        update["database_url"] = library_db
    return tmp_settings.model_copy(update=update)


def _record(app: App, owner: str = LOCAL_OWNER, **kw: Any) -> EvidenceRecordView:
    request = EvidenceRequest(kw.pop("paper_id"), source="pdf", **kw)
    return asyncio.run(app.reader.record_evidence(request, owner=owner))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_pdf_passage_is_checked_on_its_page_and_kept_with_the_pdf(
    settings: Settings, fixtures_dir: Path
) -> None:
    sha = _sha(fixtures_dir / "pdf" / HINDAWI_PDF)
    with open_app_sync(settings) as app:
        ws = Workspace(app.store)
        study = ws.create_study("Heart failure")
        paper = ws.save_paper(
            make_paper(doi=DOI, title="Patient experiences"), study=study.id
        ).paper
        # no PDF attached yet: said, nothing stored
        with pytest.raises(PdfNotAvailable) as no_pdf:
            _record(app, paper_id=paper.id, finding="15 took part", passage=REAL, page=2)
        assert no_pdf.value.code == "no_pdf"
        app.library.attach_pdf(AttachPdfPaperRequest(HINDAWI_PDF, paper.id), owner=LOCAL_OWNER)

        done = _record(
            app, paper_id=paper.id, finding="Two focus groups", passage=ACROSS_LINES, page=2,
            study=study.id, pdf=sha,
        )  # fmt: skip
        ev = done.record.evidence
        assert (ev.source, ev.verification, done.record.recheck) == ("pdf", "checked", "ok")
        assert ev.pdf is not None and (ev.pdf.sha256, ev.pdf.page, ev.pdf.file) == (
            sha, 2, HINDAWI_PDF,
        )  # fmt: skip
        assert done.to_dict()["pdf"] == {"sha256": sha, "file": HINDAWI_PDF, "page": 2}
        _record(app, paper_id=paper.id, finding="15 took part", passage=REAL, page=2)

        # an altered quote (a changed number word, a changed citation) is refused, naming
        # the page and showing the page's nearest text; nothing is stored
        with pytest.raises(EvidenceRefused) as altered:
            _record(app, paper_id=paper.id, finding="x", passage=ALTERED_NUMBER, page=2)
        assert altered.value.code == "quote_not_found"
        assert "page 2 of " + HINDAWI_PDF in altered.value.message
        nearest = altered.value.details["nearest"]
        assert "eight from the urban hospital" in nearest
        with pytest.raises(EvidenceRefused) as cited:
            _record(app, paper_id=paper.id, finding="x", passage=ALTERED_CITATION, page=2)
        assert cited.value.code == "quote_not_found"
        assert "readmissions [6]" in cited.value.details["nearest"]

        # a real quote given with the wrong page: the page it is on is offered
        with pytest.raises(EvidenceRefused) as other:
            _record(app, paper_id=paper.id, finding="x", passage=PAGE_ONE, page=2)
        assert other.value.code == "other_page" and other.value.details["found_on"] == [1]
        assert "it is on page 1" in other.value.message
        with pytest.raises(EvidenceRefused) as beyond:
            _record(app, paper_id=paper.id, finding="x", passage=REAL, page=7)
        assert beyond.value.code == "no_page"
        with pytest.raises(ReaderInputError):
            EvidenceRequest(paper.id, finding="x", passage=REAL, source="pdf")  # no page

        views, problems = ws.evidence(study=study.id)
        assert problems == [] and len(views) == 1
        assert len(ws.evidence(paper_ref=paper.id)[0]) == 2

        # the fields of a record from a PDF are edited; its passage is not (it would need
        # its page again)
        edited = app.reader.update_evidence(
            EvidenceUpdateRequest(done.record.id, {"finding": "Two focus groups, 15 people"}),
            owner=LOCAL_OWNER,
        )
        assert edited.record.recheck == "ok" and edited.record.evidence.pdf == ev.pdf
        with pytest.raises(EvidenceRefused) as fixed:
            app.reader.update_evidence(
                EvidenceUpdateRequest(done.record.id, {"passage": REAL}), owner=LOCAL_OWNER
            )
        assert fixed.value.code == "pdf_passage_fixed"

        # exports say where it was checked
        table = app.studies.export_evidence(EvidenceExportRequest(study.id), owner=LOCAL_OWNER)
        csv_text = table.download().text
        assert "From the PDF, page 2 (checked)" in csv_text and sha in csv_text
        book = app.studies.export_notebook(NotebookExportRequest(study.id), owner=LOCAL_OWNER)
        said = (
            f"Source: From the PDF, page 2 (checked) — {md_escape(HINDAWI_PDF)}, sha256 {sha[:12]}"
        )
        assert said in book.download().text

        # the Study ZIP keeps the record as stored; recovered where the same PDF is the
        # paper's, it re-checks ok
        data = export_study(ws, study.id)
        back = app.studies.recover_zip(RecoverRequest(data, "Recovered"), owner=LOCAL_OWNER)
        [again] = ws.evidence(study=back.study.study_id)[0]
        assert again.evidence.pdf == ev.pdf and again.recheck == "ok"

        # another PDF attached to the paper later never re-validates the record
        app.library.attach_pdf(AttachPdfPaperRequest(SPECTER_PDF, paper.id), owner=LOCAL_OWNER)
        [view] = ws.evidence(study=study.id)[0]
        assert ws.evidence(study=back.study.study_id)[0][0].recheck == view.recheck
        assert view.recheck.startswith(f"checked on page 2 of {HINDAWI_PDF}")
        assert "another file" in view.recheck
        with pytest.raises(PdfNotAvailable) as changed:  # the page showed the old PDF
            _record(app, paper_id=paper.id, finding="x", passage=REAL, page=2, pdf=sha)
        assert changed.value.code == "pdf_changed"


def test_another_accounts_pdf_is_never_used(settings: Settings, fixtures_dir: Path) -> None:
    sha = _sha(fixtures_dir / "pdf" / HINDAWI_PDF)
    with open_app_sync(settings) as app:
        ana = app.accounts.add("ana", PASSWORD).id
        bob = app.accounts.add("bob", PASSWORD).id
        ana_ws = Workspace(app.store, owner=ana)
        mine = ana_ws.save_paper(make_paper(doi=DOI, title="Patient experiences")).paper
        app.library.attach_pdf(AttachPdfPaperRequest(HINDAWI_PDF, mine.id), owner=ana)
        assert _record(app, ana, paper_id=mine.id, finding="f", passage=REAL, page=2)

        bob_ws = Workspace(app.store, owner=bob)
        his = bob_ws.save_paper(make_paper(doi=DOI, title="Patient experiences")).paper
        with pytest.raises(PdfNotAvailable) as none:  # ana's attachment is not bob's
            _record(app, bob, paper_id=his.id, finding="f", passage=REAL, page=2, pdf=sha)
        assert none.value.code == "no_pdf"
        if his.id == mine.id:  # the same id is bob's own record of the paper
            assert bob_ws.evidence(paper_ref=his.id)[0] == []
        else:
            with pytest.raises(NotFoundError):
                _record(app, bob, paper_id=mine.id, finding="f", passage=REAL, page=2)


def _set(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def test_stored_external_and_pdf_records_read_back() -> None:
    """Records stored before (external, needs verification) still read as before; a PDF
    record's stored shape round-trips."""
    stored = {
        "version": 1, "paper_id": "DOI-10.1/x", "finding": "f", "passage": "p",
        "source": "external", "location": "p. 4", "verification": "needs_verification",
        "created_at": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    ev = read_evidence(stored)
    dumped = ev.model_dump(mode="json")
    assert ev.pdf is None and "pdf" not in dumped and _set(dumped) == stored
    pdf = stored | {
        "source": "pdf", "location": None, "verification": "checked",
        "pdf": {"sha256": "a" * 64, "file": "x.pdf", "page": 3},
    }  # fmt: skip
    assert _set(read_evidence(pdf).model_dump(mode="json")) == _set(pdf)
    with pytest.raises(StoredShapeInvalid):  # a PDF record names its PDF and page
        read_evidence(pdf | {"pdf": None})
    with pytest.raises(StoredShapeInvalid):  # and is checked
        read_evidence(pdf | {"verification": "needs_verification"})
