"""The metadata reader on hand-made first pages (pure: lines with sizes and positions)."""

from __future__ import annotations

from litdesk.core.pdfmeta import SOURCE, PdfHead, PdfMeta, TextLine, normalise_title, read_meta


def line(text: str, size: float, top: float, page: int = 1, left: float = 72.0) -> TextLine:
    return TextLine(page, text, size, left, top - size, left + 6 * len(text), top)


BODY = "We measured the flow at forty stations along the river over three dry summers."


def page_one(*extra: TextLine, title_size: float = 18.0) -> list[TextLine]:
    return [
        line("Journal of River Studies 2016, 4:12", 8.0, 780),
        line("Dry-Season Flow in Braided Rivers:", title_size, 740),
        line("A Field Study of Forty Stations", title_size, 718),
        line("Ana M. Souza1*, Peter O'Neill2 and Li Wei1", 11.0, 690),
        line("1 Department of Geography, University of Somewhere, Brazil", 8.0, 672),
        *extra,
        line("Abstract", 10.0, 640),
        *[line(BODY, 9.5, 620 - 12 * i) for i in range(20)],
    ]


def head(lines: list[TextLine], **info: str) -> PdfHead:
    return PdfHead(tuple(lines), ((595.0, 842.0),), info, 2, ("\n".join(x.text for x in lines),))


def test_title_authors_year_venue_from_the_layout() -> None:
    meta = read_meta(head(page_one()))
    assert meta.title is not None
    assert meta.title.value == "Dry-Season Flow in Braided Rivers: A Field Study of Forty Stations"
    assert meta.title.source == SOURCE == "read from the PDF"
    assert meta.authors is not None
    assert meta.authors.value == ("Ana M. Souza", "Peter O'Neill", "Li Wei")
    assert meta.year is not None and meta.year.value == 2016
    assert meta.venue is not None and meta.venue.value == "Journal of River Studies"
    assert meta.doi is None and meta.arxiv is None
    assert meta.missing == ("doi", "arxiv")
    assert 0 < meta.title.confidence < 1


def test_the_pdfs_own_title_confirms_and_gives_the_casing() -> None:
    lines = page_one()
    lines[1:3] = [line("DRY-SEASON FLOW IN BRAIDED RIVERS", 18, 740)]
    confirmed = read_meta(head(lines, Title="Dry-season flow in braided rivers"))
    alone = read_meta(head(lines))
    assert confirmed.title is not None and alone.title is not None
    assert confirmed.title.value == "Dry-season flow in braided rivers"
    assert alone.title.value == "Dry-Season Flow In Braided Rivers"
    assert confirmed.title.confidence > alone.title.confidence


def test_an_insane_pdf_title_is_ignored_and_a_sane_one_stands_in() -> None:
    body_only = [line(BODY, 9.5, 700 - 12 * i) for i in range(30)]
    assert read_meta(head(body_only, Title="paper.dvi")).title is None
    assert read_meta(head(body_only, Title="Microsoft Word - draft3.docx")).title is None
    meta = read_meta(head(body_only, Title="Dry-season flow in braided rivers"))
    assert meta.title is not None and meta.title.value == "Dry-season flow in braided rivers"
    assert "own title" in meta.title.how


def test_banners_logos_figure_labels_and_running_headers_are_not_titles() -> None:
    lines = [
        line("Hindsight Publishing Corporation", 22, 800),  # a publisher banner in large type
        line("Proceedings of the 9th Workshop on Rivers", 20, 780),
        line("R", 90, 760),  # a logo glyph
        *page_one(line("Flow Gauge", 30, 660))[1:],  # a two-word figure label
    ]
    meta = read_meta(head(lines))
    assert meta.title is not None
    assert meta.title.value.startswith("Dry-Season Flow in Braided Rivers")


def test_a_cover_page_sends_the_reader_to_page_two() -> None:
    cover = [
        line("Technical Report Series of the Water Laboratory", 14, 700),
        line("DISCLAIMER: this report is distributed as received.", 9, 600),
    ]
    second = [TextLine(2, x.text, x.size, x.left, x.bottom, x.right, x.top) for x in page_one()]
    meta = read_meta(head(cover + second))
    assert meta.title is not None and meta.title.value.startswith("Dry-Season Flow")
    assert meta.authors is not None and meta.authors.value[0] == "Ana M. Souza"


def test_names_stop_at_the_abstract_and_skip_affiliations_and_orcids() -> None:
    lines = [
        line("Groundwater Recharge Under Irrigated Fields", 18, 740),
        line("MARÍA PACHE-DURÁN1", 11, 700),
        line("0000-0002-6670-5818", 10, 699),
        line("Universidad de Málaga, España", 9, 690),
        line("João da Silva Neto2 & Hans van der Berg", 11, 680),
        line("Abstract", 10, 640),
        line("Carlos Mendes Ribeiro", 11, 620),  # after the abstract heading: not an author
        *[line(BODY, 9.5, 600 - 12 * i) for i in range(20)],
    ]
    meta = read_meta(head(lines))
    assert meta.authors is not None
    assert meta.authors.value == ("María Pache-Durán", "João da Silva Neto", "Hans van der Berg")


def test_the_pdfs_author_list_confirms_or_stands_in() -> None:
    confirmed = read_meta(head(page_one(), Author="Ana Souza; Peter O'Neill"))
    assert confirmed.authors is not None and confirmed.authors.confidence >= 0.9
    no_names = [x for x in page_one() if "Souza" not in x.text]
    meta = read_meta(head(no_names, Author="Ana Souza; Peter O'Neill"))
    assert meta.authors is not None and meta.authors.value == ("Ana Souza", "Peter O'Neill")
    assert "own author list" in meta.authors.how
    assert read_meta(head(no_names, Author="Administrator")).authors is None


def test_year_prefers_the_venue_line_and_never_a_cited_year() -> None:
    lines = page_one()
    lines[0] = line("Proceedings of NAACL-HLT 2018, pages 84-91", 8, 30)
    lines.insert(1, line("c 2017 Association for Computational Linguistics", 8, 20))
    meta = read_meta(head(lines, CreationDate="D:20180511113352-07'00'"))
    assert meta.year is not None and meta.year.value == 2018
    assert meta.venue is not None and meta.venue.value == "Proceedings of NAACL-HLT 2018"
    cited = [line("Smith et al. (2023) published at ICLR 2023 a new method.", 9.5, 600)]
    meta = read_meta(head(page_one()[1:5] + cited, CreationDate="D:20250120013254Z"))
    assert meta.year is not None and (meta.year.value, meta.year.confidence) == (2025, 0.3)


def test_year_from_arxiv_ids_old_and_new_and_from_dates() -> None:
    old = head(page_one()[1:5], CreationDate="D:20080131")
    old = PdfHead(old.lines, old.page_sizes, old.info, 2, ("hep-ph/9412269 09 Dec 94",))
    meta = read_meta(old)
    assert meta.arxiv is not None and meta.arxiv.value == "hep-ph/9412269"
    assert meta.year is not None and meta.year.value == 1994
    new = PdfHead(old.lines, old.page_sizes, {}, 2, ("arXiv:2501.10120v1 [cs.IR] 17 Jan 2025",))
    year = read_meta(new).year
    assert year is not None and (year.value, year.how) == (2025, "the arXiv identifier")
    dated = page_one()[1:5] + [line("Published: June 13, 2018", 8, 500)]
    meta = read_meta(head(dated))
    assert meta.year is not None and meta.year.value == 2018 and "publication" in meta.year.how


def test_doi_printed_or_in_the_pdfs_subject() -> None:
    lines = page_one()
    printed = PdfHead(tuple(lines), ((595.0, 842.0),), {}, 2, ("doi:10.1155/2010/157939",))
    meta = read_meta(printed)
    assert meta.doi is not None and meta.doi.value == "10.1155/2010/157939"
    meta = read_meta(head(lines, Subject="Journal of Trauma 2010 4:1. doi:10.1186/1752-2897-4-1"))
    assert meta.doi is not None and meta.doi.value == "10.1186/1752-2897-4-1"
    assert "subject" in meta.doi.how


def test_an_ocr_layer_of_one_size_gives_a_short_first_block_weakly() -> None:
    lines = [
        line("Exact Solutions for the General", 10.7, 666),
        line("Fifth-order Water-wave Models", 10.7, 654.6),
        line("Woo-Pyo Hong and Young-Dae Jung", 10.7, 636),
        *[line(BODY, 10.7, 600 - 12 * i) for i in range(20)],
    ]
    meta = read_meta(head(lines))
    assert meta.title is not None
    assert meta.title.value == "Exact Solutions for the General Fifth-order Water-wave Models"
    assert meta.title.confidence <= 0.5
    assert meta.authors is not None and meta.authors.value == ("Woo-Pyo Hong", "Young-Dae Jung")


def test_body_text_alone_gives_no_title_and_says_so() -> None:
    meta = read_meta(head([line(BODY, 10, 700 - 12 * i) for i in range(30)]))
    assert meta.title is None and meta.authors is None
    assert "title" in meta.missing and "authors" in meta.missing
    assert read_meta(head([])) == PdfMeta()
    out = meta.to_dict()
    assert out["title"] is None and out["source"] == "read from the PDF"


def test_normalise_title_folds_case_accents_and_punctuation() -> None:
    assert normalise_title("Análise  da área: Ciência—da Informação.") == normalise_title(
        "ANALISE DA AREA CIENCIA DA INFORMACAO"
    )
    assert normalise_title("Multi-LexSum") == "multi lexsum"


def test_a_venue_or_date_on_the_next_pages_body_is_a_cited_works() -> None:
    first = page_one()[1:5]  # title and authors, no banner
    cited = TextLine(
        2, "In Proceedings of the 2012 Workshop on Floods, pages 1-9", 9.5, 72, 700, 400, 710
    )
    meta = read_meta(head([*first, cited], CreationDate="D:20190101"))
    assert meta.venue is None
    assert meta.year is not None and (meta.year.value, meta.year.confidence) == (2019, 0.3)
