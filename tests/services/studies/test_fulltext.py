"""PDFs and licensed full text of a Study's papers (issue 27), on SQLite and PostgreSQL:
real library PDFs matched by DOI / arXiv id (linked) and by a verified title read from
their first pages (suggested, confirmed by a person), undo that sticks, a PDF uploaded
for one paper, and "check full text for all" as a job through the real transport
(recorded Europe PMC bodies), stopping within the owner's allowance."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import NotPermitted, repo
from litdesk.core.records import Paper
from litdesk.services.accounts._sharing import Sharing
from litdesk.services.app import App, open_app
from litdesk.services.studies import (
    AttachPdfRequest,
    CreateStudyRequest,
    NotInStudy,
    PdfLinkRequest,
    RecoverRequest,
    StudiesInputError,
)

pytestmark = pytest.mark.fixtures

SPECTER = "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
LIBRARY = (
    "hindawi_rrp_2010_157939.pdf",  # DOI 10.1155/2010/157939 on page 1
    "arxiv_2501.10120v1_pasa.pdf",  # arXiv 2501.10120 on page 1
    "acl_2020_main_207_specter.pdf",  # no identifier: the title only
    "encrypted_libreoffice_password.pdf",  # unreadable: named, never matched
)
PAPERS = (
    Paper(
        id="MED-20011111",
        pmid="20011111",
        doi="10.1155/2010/157939",
        title="Patient experiences of structured heart failure programmes",
        year=2010,
    ),
    Paper(id="ARX-2501.10120", arxiv_id="2501.10120", title="PaSa", year=2025),
    Paper(
        id="OAX-W3034153734",
        openalex_id="W3034153734",
        title=SPECTER,
        authors=("Cohan, Arman", "Feldman, Sergey", "Beltagy, Iz"),
        year=2020,
    ),
    # the title is printed on the NAACL PDF, but its first author is not this paper's
    Paper(
        id="OAX-W2798874413",
        title="Construction of the Literature Graph in Semantic Scholar",
        authors=("Smith, John",),
        year=2018,
    ),
    Paper(id="MED-40342701", pmid="40342701", title="Wildlife paper (CC BY)", year=2025),
    Paper(id="PMC-PMC12099753", pmcid="PMC12099753", title="Review (CC BY-NC-ND)", year=2025),
)
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/"


@pytest.fixture(params=["sqlite", "postgres"])
def settings(
    request: pytest.FixtureRequest, tmp_settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> Settings:
    library = tmp_path / "pdfs"
    library.mkdir()
    for name in LIBRARY:
        shutil.copyfile(fixtures_dir / "pdf" / name, library / name)
    update: dict[str, Any] = {"library_dirs": [library]}
    if request.param == "postgres":
        update["database_url"] = request.getfixturevalue("pg_schema")
    return tmp_settings.model_copy(update=update)


class EuropePmc:
    """Recorded Europe PMC answers: the PMID lookup and two full texts; nothing else."""

    def __init__(self, fixtures_dir: Path) -> None:
        base = fixtures_dir / "providers/europepmc"
        self.texts = {
            "PMC12061466": (base / "fulltext-PMC12061466-ccby.xml").read_bytes(),
            "PMC12099753": (base / "fulltext-PMC12099753-ccbyncnd.xml").read_bytes(),
        }
        self.none = (base / "search-no-results.json").read_bytes()
        self.requests: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        self.requests.append(url)
        if url.startswith(EPMC + "search"):
            query = parse_qs(urlsplit(url).query).get("query", [""])[0]
            if "40342701" in query:
                record = {"id": "40342701", "source": "MED", "pmid": "40342701", "title": "T"}
                record["pmcid"] = "PMC12061466"
                doc = {"version": "6.9", "hitCount": 1, "resultList": {"result": [record]}}
                return httpx.Response(200, content=json.dumps(doc).encode())
            return httpx.Response(200, content=self.none)
        for pmcid, body in self.texts.items():
            if url == f"{EPMC}{pmcid}/fullTextXML":
                return httpx.Response(200, content=body)
        return httpx.Response(404, content=b"not here")


def on_app(
    settings: Settings, body: Callable[[App], Any], transport: EuropePmc | None = None
) -> Any:
    async def go() -> Any:
        hook = httpx.MockTransport(transport) if transport else None
        async with open_app(settings, http_transport=hook) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def new_study(app: App, owner: str | None = None) -> str:
    who = owner or app.owner
    study = app.studies.create_study(CreateStudyRequest("Full text"), owner=who).id
    app.workspace(who).save_papers(PAPERS, study=study)
    return study


def rows(view: Any) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in view.to_dict()["papers"]}


def test_matching_links_by_identifier_and_suggests_by_verified_title(settings: Settings) -> None:
    def body(app: App) -> None:
        study = new_study(app)
        before = app.studies.fulltext(study, owner=app.owner)
        assert before.counts["papers"] == 6
        assert before.counts["without_full_text"] == 6
        assert before.library_files == len(LIBRARY)

        view = app.studies.match_pdfs(study, owner=app.owner)
        assert view.changed == {"linked": 2, "suggested": 1}
        got = rows(view)
        doi = got["MED-20011111"]["pdf"]
        assert doi is not None and doi["file"] == "hindawi_rrp_2010_157939.pdf"
        assert (doi["how"], doi["state"]) == ("doi", "linked")
        arxiv = got["ARX-2501.10120"]["pdf"]
        assert arxiv is not None and (arxiv["how"], arxiv["file"]) == (
            "arxiv",
            "arxiv_2501.10120v1_pasa.pdf",
        )
        title = got["OAX-W3034153734"]["pdf"]
        assert title is not None and (title["how"], title["state"]) == ("title", "suggested")
        assert "first author Arman Cohan" in title["detail"]
        assert got["OAX-W2798874413"]["pdf"] is None  # the author disagrees: no match
        assert got["OAX-W3034153734"]["retrieved"] == "missing"  # until a person confirms
        assert any("encrypted_libreoffice_password.pdf" in n for n in view.notices)
        assert view.counts["with_pdf"] == 2 and view.counts["suggested"] == 1
        assert view.counts["without_full_text"] == 4

        confirmed = app.studies.confirm_pdf(  # named by its OpenAlex id
            PdfLinkRequest(study, "W3034153734"), owner=app.owner
        )
        assert rows(confirmed)["OAX-W3034153734"]["pdf"]["state"] == "linked"  # type: ignore[index]
        assert confirmed.counts["with_pdf"] == 3
        with pytest.raises(NotFoundError):  # nothing suggested any more
            app.studies.confirm_pdf(PdfLinkRequest(study, "OAX-W3034153734"), owner=app.owner)

        undone = app.studies.undo_pdf(PdfLinkRequest(study, "10.1155/2010/157939"), owner=app.owner)
        assert rows(undone)["MED-20011111"]["pdf"] is None
        again = app.studies.match_pdfs(study, owner=app.owner)
        assert again.changed == {"linked": 0, "suggested": 0}  # an undone PDF stays undone
        assert rows(again)["MED-20011111"]["pdf"] is None

        page = app.studies.study(study, owner=app.owner).to_dict()
        retrieval = page["retrieval"]
        assert isinstance(retrieval, dict)
        assert retrieval["counts"]["with_pdf"] == 2
        assert retrieval["papers"]["OAX-W3034153734"]["retrieved"] == "pdf"
        with app.store.read() as conn:
            history = [h.action for h in _history(conn, study)]
        assert {"pdfs_matched", "pdf_confirmed", "pdf_unlinked"} <= set(history)

    on_app(settings, body)


def _history(conn: Any, study: str) -> list[Any]:
    from litdesk.adapters.store import accounts

    return accounts.list_history(conn, study, limit=100)


def test_a_pdf_uploaded_for_a_paper_goes_into_the_library_and_is_linked(
    settings: Settings, fixtures_dir: Path
) -> None:
    naacl = (fixtures_dir / "pdf/naacl_2018_N18-3011.pdf").read_bytes()
    hindawi = (fixtures_dir / "pdf/hindawi_rrp_2010_157939.pdf").read_bytes()

    def body(app: App) -> None:
        study = new_study(app)
        done = app.studies.attach_pdf(
            AttachPdfRequest(study, "OAX-W2798874413", "graph.pdf", naacl), owner=app.owner
        )
        assert done.stored and done.file == "graph.pdf" and done.index_job is not None
        assert (app.pdfs.inbox / "graph.pdf").read_bytes() == naacl
        assert done.paper_title == "Construction of the Literature Graph in Semantic Scholar"
        # the same content already in the library: linked to it, nothing stored twice
        same = app.studies.attach_pdf(
            AttachPdfRequest(study, "MED-20011111", "again.pdf", hindawi), owner=app.owner
        )
        assert not same.stored and same.file == "hindawi_rrp_2010_157939.pdf"
        assert not (app.pdfs.inbox / "again.pdf").exists()
        got = rows(app.studies.fulltext(study, owner=app.owner))
        assert got["OAX-W2798874413"]["pdf"]["how"] == "upload"  # type: ignore[index]
        assert got["OAX-W2798874413"]["retrieved"] == "pdf"
        # the library's checks: a name already in the library is refused
        from litdesk.services.library import UploadRefused

        with pytest.raises(StudiesInputError):
            AttachPdfRequest(study, "MED-20011111", "x.pdf", b"")
        with pytest.raises(UploadRefused):  # the library's check: not a PDF
            app.studies.attach_pdf(
                AttachPdfRequest(study, "MED-20011111", "x.pdf", b"not a pdf"), owner=app.owner
            )

        with pytest.raises(UploadRefused):
            app.studies.attach_pdf(
                AttachPdfRequest(study, "MED-40342701", "graph.pdf", naacl + b"\n"),
                owner=app.owner,
            )
        app.workspace().save_paper(Paper(id="MED-99999999", pmid="99999999", title="Elsewhere"))
        with pytest.raises(NotInStudy):  # saved, but not one of the Study's papers
            app.studies.attach_pdf(
                AttachPdfRequest(study, "99999999", "y.pdf", naacl), owner=app.owner
            )
        with pytest.raises(NotFoundError):  # not saved at all
            app.studies.attach_pdf(
                AttachPdfRequest(study, "MED-88888888", "y.pdf", naacl), owner=app.owner
            )

    on_app(settings, body)


def test_check_full_text_for_all_is_a_job_that_records_each_paper(
    settings: Settings, fixtures_dir: Path
) -> None:
    epmc = EuropePmc(fixtures_dir)

    def body(app: App) -> None:
        study = new_study(app)
        view = app.studies.check_fulltext(study, owner=app.owner)
        assert view.job is not None and view.job.active
        assert view.counts["unchecked"] == 6
        assert app.studies.check_fulltext(study, owner=app.owner).job.id == view.job.id  # type: ignore[union-attr]
        done = app.studies.work_fulltext(view.job.id, owner=app.owner)
        assert done.status == "done", done.message
        assert done.result is not None and done.result["checked"] == 6
        assert done.result["available"] == 1
        after = app.studies.fulltext(study, owner=app.owner)
        got = rows(after)
        open_text = got["MED-40342701"]["fulltext"]
        assert open_text is not None and open_text["available"]
        assert open_text["pmcid"] == "PMC12061466" and "CC BY" in (open_text["licence"] or "")
        assert got["MED-40342701"]["retrieved"] == "fulltext"
        closed = got["PMC-PMC12099753"]["fulltext"]
        assert closed is not None and not closed["available"] and closed["reason"]
        no_id = got["ARX-2501.10120"]["fulltext"]
        assert no_id is not None and "no PMCID" in (no_id["reason"] or "")
        assert after.counts["checked"] == 6 and after.counts["with_fulltext"] == 1
        assert after.counts["without_full_text"] == 5
        sent = len(epmc.requests)
        again = app.studies.check_fulltext(study, owner=app.owner)
        app.studies.work_fulltext(again.job.id, owner=app.owner)  # type: ignore[union-attr]
        assert len(epmc.requests) == sent  # checked papers are not checked again

    on_app(settings, body, epmc)


def test_the_check_stops_within_the_allowance_and_resumes(
    settings: Settings, fixtures_dir: Path
) -> None:
    epmc = EuropePmc(fixtures_dir)
    tight = settings.model_copy(update={"owner_daily_requests": 2})

    def body(app: App) -> None:
        from litdesk.services.screening import DecideRequest

        study = new_study(app)
        last = rows(app.studies.fulltext(study, owner=app.owner)).keys()
        sought = list(last)[-1]  # the paper the check would come to last
        decided = DecideRequest(study, "title_abstract", sought, "include")
        app.screening.decide(decided, owner=app.owner)
        job = app.studies.check_fulltext(study, owner=app.owner).job
        assert job is not None
        done = app.studies.work_fulltext(job.id, owner=app.owner)
        assert done.result is not None and done.result.get("stopped")
        assert done.result["left"] > 0
        view = app.studies.fulltext(study, owner=app.owner)
        assert 0 < view.counts["checked"] < 6 and view.counts["unchecked"] > 0
        assert len(epmc.requests) <= 2
        # the allowance went to the paper screening sought for retrieval first
        assert rows(view)[sought]["fulltext"] is not None, epmc.requests

    on_app(tight, body, epmc)


def test_team_accounts_see_and_change_only_their_studies(settings: Settings) -> None:
    def body(app: App) -> None:
        alice = app.accounts.add("alice", "alice-password-long-enough")
        bob = app.accounts.add("bob", "bob-password-long-enough")
        study = new_study(app, alice.id)
        for call in (app.studies.fulltext, app.studies.match_pdfs, app.studies.check_fulltext):
            with pytest.raises(NotFoundError):
                call(study, owner=bob.id)
        with pytest.raises(NotFoundError):
            app.studies.undo_pdf(PdfLinkRequest(study, "MED-20011111"), owner=bob.id)
        Sharing(app.store, alice.id).share(study, "bob", "viewer")
        assert app.studies.fulltext(study, owner=bob.id).counts["papers"] == 6
        with pytest.raises(NotPermitted):
            app.studies.match_pdfs(study, owner=bob.id)
        app.studies.match_pdfs(study, owner=alice.id)
        with pytest.raises(NotPermitted):
            app.studies.undo_pdf(PdfLinkRequest(study, "MED-20011111"), owner=bob.id)
        with app.store.read() as conn:
            assert repo.get_study(conn, study, account=alice.id).id == study

    on_app(settings, body)


def test_the_zip_export_carries_the_pdf_links_and_recovery_restores_those_present(
    settings: Settings,
) -> None:
    def body(app: App) -> None:
        study = new_study(app)
        app.studies.match_pdfs(study, owner=app.owner)
        zipped = app.studies.export_zip(study, owner=app.owner).body
        with zipfile.ZipFile(io.BytesIO(zipped)) as zf:
            carried = json.loads(zf.read("pdf-links.json"))
        assert {(x["paper_id"], x["state"]) for x in carried} == {
            ("MED-20011111", "linked"),
            ("ARX-2501.10120", "linked"),
            ("OAX-W3034153734", "suggested"),
        }
        done = app.studies.recover_zip(RecoverRequest(zipped, "Recovered"), owner=app.owner)
        assert (done.study.pdf_links, done.study.pdf_links_missing) == (3, 0)
        got = rows(app.studies.fulltext(done.study.study_id, owner=app.owner))
        pdfs = {pid: (r["pdf"] or {}).get("file") for pid, r in got.items()}
        assert pdfs["MED-20011111"] == "hindawi_rrp_2010_157939.pdf"
        assert got["ARX-2501.10120"]["retrieved"] == "pdf"
        assert got["OAX-W3034153734"]["pdf"]["state"] == "suggested"  # type: ignore[index]
        # a PDF no longer in the library: its link is not restored, and said so
        library = settings.library_dirs[0]
        (library / "arxiv_2501.10120v1_pasa.pdf").unlink()
        again = app.studies.recover_zip(RecoverRequest(zipped, "Recovered"), owner=app.owner)
        assert (again.study.pdf_links, again.study.pdf_links_missing) == (2, 1)
        got = rows(app.studies.fulltext(again.study.study_id, owner=app.owner))
        assert got["ARX-2501.10120"]["pdf"] is None

    on_app(settings, body)
