"""Which library PDF is a paper's: identifiers first, then a strict, verified title —
never a fuzzy match (issue 27)."""

from __future__ import annotations

from litdesk.core.pdfmeta import PdfFacts, find_pubmed_ids, match_paper, surname
from litdesk.core.records import Paper

SPECTER = "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
SPECTER_PDF = PdfFacts(
    "a" * 64,
    "specter.pdf",
    title=SPECTER,
    authors=("Arman Cohan", "Sergey Feldman"),
    year=2020,
)
HINDAWI_PDF = PdfFacts("b" * 64, "hindawi.pdf", doi="10.1155/2010/157939", title="Patient X")
PASA_PDF = PdfFacts("c" * 64, "pasa.pdf", arxiv="2501.10120")
PUBMED_PDF = PdfFacts("d" * 64, "pm.pdf", pmid="40342701", pmcid="PMC12061466")
ALL = [SPECTER_PDF, HINDAWI_PDF, PASA_PDF, PUBMED_PDF]


def specter(**kw: object) -> Paper:
    fields: dict[str, object] = {
        "id": "OAX-W1",
        "title": SPECTER.lower(),
        "authors": ("Cohan, Arman", "Feldman, Sergey"),
        "year": 2020,
    }
    fields.update(kw)
    return Paper.model_validate(fields)


def test_identifiers_link_at_once_and_say_how() -> None:
    by_doi = match_paper(Paper(id="DOI-1", doi="10.1155/2010/157939"), ALL)
    assert by_doi is not None and by_doi.file == "hindawi.pdf"
    assert (by_doi.how, by_doi.certain) == ("doi", True)
    assert "10.1155/2010/157939" in by_doi.detail
    by_arxiv = match_paper(Paper(id="ARX-2501.10120", arxiv_id="2501.10120v2"), ALL)
    assert by_arxiv is not None and by_arxiv.how == "arxiv" and by_arxiv.file == "pasa.pdf"
    by_pmid = match_paper(Paper(id="MED-40342701", pmid="40342701"), ALL)
    assert by_pmid is not None and by_pmid.how == "pmid"
    by_pmcid = match_paper(Paper(id="PMC-PMC12061466", pmcid="PMC12061466"), ALL)
    assert by_pmcid is not None and by_pmcid.how == "pmcid"


def test_a_verified_title_is_a_suggestion_with_its_checks() -> None:
    found = match_paper(specter(), ALL)
    assert found is not None and found.file == "specter.pdf"
    assert (found.how, found.certain) == ("title", False)
    assert "year 2020" in found.detail and "Arman Cohan" in found.detail


def test_title_matching_is_strict() -> None:
    # one word different: no match (never fuzzy)
    assert match_paper(specter(title=SPECTER.replace("Document", "Paper")), ALL) is None
    # the year disagrees by more than one
    assert match_paper(specter(year=2016), ALL) is None
    assert match_paper(specter(year=2021), ALL) is not None  # online first, print later
    # the PDF's first author is not among the paper's authors
    assert match_paper(specter(authors=("Smith, J.",)), ALL) is None
    # the PDF names another paper's DOI
    other = PdfFacts("e" * 64, "other.pdf", doi="10.1234/other", title=SPECTER)
    assert match_paper(specter(doi="10.1234/mine"), [other]) is None
    # short titles name many papers
    short = PdfFacts("f" * 64, "short.pdf", title="Introduction")
    assert match_paper(Paper(id="OAX-W2", title="Introduction"), [short]) is None


def test_two_pdfs_with_the_title_suggest_neither() -> None:
    twin = PdfFacts("9" * 64, "copy.pdf", title=SPECTER, year=2020)
    assert match_paper(specter(), [SPECTER_PDF, twin]) is None
    same_content = PdfFacts("a" * 64, "same.pdf", title=SPECTER)
    assert match_paper(specter(), [SPECTER_PDF, same_content]) is not None


def test_without_year_or_authors_the_exact_title_is_enough() -> None:
    found = match_paper(
        Paper(id="OAX-W3", title=SPECTER), [PdfFacts("a" * 64, "s.pdf", title=SPECTER)]
    )
    assert found is not None and found.how == "title"


def test_pubmed_ids_and_surnames() -> None:
    assert find_pubmed_ids(["x PMID: 40342701 y", "PMCID: PMC12061466"]) == (
        "40342701",
        "PMC12061466",
    )
    assert find_pubmed_ids(["nothing"]) == (None, None)
    assert surname("Smith, John") == surname("John Smith") == "smith"
    assert surname("José Núñez") == "nunez"


def test_a_hand_attached_pdf_that_is_another_papers_is_doubted() -> None:
    from litdesk.core.pdfmeta import DOUBT_PREFIX, attach_doubt

    hindawi = Paper(id="DOI-H", title="Patient X", doi="10.1155/2010/157939")
    other = Paper(id="DOI-O", title="Another paper entirely", doi="10.1000/other")
    # the PDF is the paper's: nothing to say
    assert attach_doubt(hindawi, HINDAWI_PDF, [other]) is None
    # attached to the wrong paper: the Study's paper it is named, with how it matched
    doubt = attach_doubt(other, HINDAWI_PDF, [other, hindawi])
    assert doubt is not None and doubt.startswith(DOUBT_PREFIX)
    assert "'Patient X'" in doubt and "DOI 10.1155/2010/157939 on both" in doubt
    # a verified title of another paper (no identifier on the PDF) is named too
    doubt = attach_doubt(other, SPECTER_PDF, [specter()])
    assert doubt is not None and "first page is the paper's title" in doubt
    # no other paper is it, but its DOI contradicts the paper's
    doubt = attach_doubt(other, HINDAWI_PDF, [])
    assert doubt == (
        f"{DOUBT_PREFIX}its first pages name DOI 10.1155/2010/157939; this paper's is 10.1000/other"
    )
    # an identifier of a kind the paper lacks, or no identifier: no doubt from a title guess
    assert attach_doubt(Paper(id="DOI-Y", title="Patient Y"), HINDAWI_PDF, []) is None
    assert attach_doubt(other, PdfFacts("e" * 64, "x.pdf", title="Something else"), []) is None


def test_the_certain_match_of_another_paper_is_named_before_a_title_one() -> None:
    from litdesk.core.pdfmeta import attach_doubt

    pdf = PdfFacts("f" * 64, "s.pdf", doi="10.18653/v1/2020.acl-main.207", title=SPECTER)
    by_title = specter(id="OAX-W2")  # the same title, no DOI
    by_doi = Paper(id="DOI-S", title="Specter (published)", doi="10.18653/v1/2020.acl-main.207")
    mine = Paper(id="DOI-M", title="Mine", doi="10.1000/mine")
    doubt = attach_doubt(mine, pdf, [by_title, by_doi])
    assert doubt is not None and "'Specter (published)'" in doubt and "DOI" in doubt
