"""BibTeX edge cases, one tiny hand-written input each."""

from __future__ import annotations

import pytest

from litdesk.adapters.formats._bibtex import FORMATS, dumps, parse, sniff
from litdesk.core.imports import ImportRefused
from litdesk.core.records import make_paper


def one(text: str):
    result = parse(text)
    assert len(result.records) == 1
    return result.records[0]


def test_string_macros_concatenation_and_months() -> None:
    rec = one(
        '@string{ name = "Doe" }\n@STRING{first = {John}}\n'
        "@article{k1, author = first # { } # name, title = {T}, journal = jn, month = mar,"
        " year = 2001}\n"
    )
    assert rec.paper.authors == ("Doe, John",)
    assert rec.extras["month"] == ["March"]
    assert rec.paper.journal == "jn"  # undefined macro kept as text, with a notice
    assert any("undefined @string macro 'jn'" in n.message for n in rec.notices)


def test_comment_and_preamble_are_not_records() -> None:
    result = parse(
        '@comment{ignore @article{x, title={no}} }\n@preamble{ "\\def\\x{}" }\n'
        "@article{real, title = {Yes}}\n"
    )
    assert [r.source_id for r in result.records] == ["real"]
    assert any(n.kind == "skipped" and n.line == 2 for n in result.notices)


def test_round_brackets_comma_first_and_quoted_values() -> None:
    rec = one('@article(key\n , title = "A {"}quoted{"} title"\n , year = "1999"\n)\n')
    assert rec.source_id == "key"
    assert rec.paper.title == 'A "quoted" title'
    assert rec.paper.year == 1999
    assert (rec.first_line, rec.last_line) == (1, 4)


def test_nested_braces_and_protection_braces() -> None:
    rec = one("@book{b, title = {The {{DNA}} of {\\emph{Nested {Braces}}}}}")
    assert rec.paper.title == "The DNA of Nested Braces"


def test_missing_comma_recovered_with_notice() -> None:
    rec = one("@article{m,\n  title = {One}\n  year = {2010},\n  journal = {J}\n}")
    assert rec.paper.title == "One"
    assert rec.paper.year == 2010
    assert rec.paper.journal == "J"
    notice = next(n for n in rec.notices if "missing comma" in n.message)
    assert notice.line == 2


def test_field_names_with_underscores_and_unknown_fields_kept() -> None:
    rec = one("@misc{u, title = {X}, my_field = {v1}, Dc.Date = {2004}}")
    assert rec.extras["my_field"] == ["v1"]
    assert rec.extras["dc.date"] == ["2004"]
    assert any(n.kind == "unknown_tag" and "my_field" in n.message for n in rec.notices)


def test_latex_accents_and_commands() -> None:
    rec = one(
        "@article{a, author = {M{\\\"u}ller, J{\\o}rn and Garc{\\'\\i}a, Fran\\c{c}ois and "
        '{\\AA}str{\\"o}m, Karl and Stra\\ss{}er, Ute and {\\r a}berg, Ole},'
        " title = {$\\alpha$-helix at 37~$^\\circ$C \\& 5\\% {CO}$_2$ --- a test}}"
    )
    assert rec.paper.authors == (
        "Müller, Jørn",
        "García, François",
        "Åström, Karl",
        "Straßer, Ute",
        "åberg, Ole",
    )
    assert rec.paper.title == "α-helix at 37 °C & 5% CO₂ — a test"


def test_author_splitting_capital_and_literal_names_and_von() -> None:
    rec = one(
        "@book{n, author = {Ludwig van Beethoven AND {Barnes and Noble, Inc.} and "
        "Smith, Jr., John and Jean Laid{\\'e} and others}}"
    )
    assert rec.paper.authors == (
        "van Beethoven, Ludwig",
        "Barnes and Noble, Inc.",
        "Smith, Jr., John",
        "Laidé, Jean",
    )


def test_identifiers_and_mapped_fields() -> None:
    rec = one(
        "@article{i, title = {T}, doi = {https://doi.org/10.1000/ABC\\_1}, pmid = {123},"
        " eprint = {2101.00001v2}, archivePrefix = {arXiv}, url = {https://ex.org/a},"
        " journal = {J}, volume = {7}, number = {2}, pages = {10--20},"
        " keywords = {alpha; beta gamma}, abstract = {An {abstract}.}, year = {2021}}"
    )
    p = rec.paper
    assert p.doi == "10.1000/abc_1"
    assert p.pmid == "123"
    assert p.arxiv_id == "2101.00001" and p.arxiv_version == 2
    assert p.id == "MED-123"
    assert p.source_url == "https://ex.org/a"
    assert (p.volume, p.issue, p.pages) == ("7", "2", "10-20")
    assert p.keywords == ("alpha", "beta gamma")
    assert p.abstract == "An abstract."
    assert p.publication_types == ("article",)


def test_malformed_doi_is_a_notice_and_kept() -> None:
    rec = one("@article{d, title = {T}, doi = {not a doi}}")
    assert rec.paper.doi is None
    assert rec.extras["doi"] == ["not a doi"]
    assert any(n.kind == "malformed_identifier" for n in rec.notices)


def test_unclosed_entry_does_not_swallow_the_next() -> None:
    result = parse(
        "@article{broken,\n  title = {Never closed,\n  year = {2000}\n\n"
        "@article{fine,\n  title = {Fine}\n}\n"
    )
    assert [r.source_id for r in result.records] == ["broken", "fine"]
    assert result.records[1].first_line == 5
    assert any(n.kind == "unterminated" for n in result.records[0].notices)


def test_entry_with_nothing_readable_is_skipped_with_its_line() -> None:
    result = parse("@article{ok, title={A}}\n\n@article{\n")
    assert [r.source_id for r in result.records] == ["ok"]
    skipped = [n for n in result.notices if "nothing could be read" in n.message]
    assert skipped and skipped[0].line == 3


def test_only_unreadable_entries_is_a_malformed_refusal() -> None:
    with pytest.raises(ImportRefused) as err:
        parse("@article{\n")
    assert err.value.code == "malformed"
    assert "line 1" in err.value.message


def test_no_entries_is_empty() -> None:
    with pytest.raises(ImportRefused) as err:
        parse("% just a comment\n@string{a = {b}}\n")
    assert err.value.code == "empty"


def test_duplicate_field_notice() -> None:
    rec = one("@article{x, title = {First}, title = {Second}}")
    assert rec.paper.title == "First"
    assert rec.extras["title"] == ["Second"]
    assert any(n.kind == "duplicate_field" for n in rec.notices)


def test_crossref_inheritance_cascade() -> None:
    result = parse(
        "@inproceedings{c, title = {Child}, crossref = {P}}\n"
        "@proceedings{p, title = {Proc}, year = 1999, crossref = {gp}}\n"
        "@misc{gp, publisher = {Pub}, doi = {10.1000/x}}\n"
    )
    child = result.records[0].paper
    assert child.title == "Child"
    assert child.journal == "Proc"
    assert child.year == 1999
    assert child.doi == "10.1000/x"
    assert result.records[0].extras["publisher"] == ["Pub"]


def test_crossref_cycle_is_reported_not_looping() -> None:
    result = parse("@book{a, crossref={b}}\n@book{b, crossref={a}}\n@book{c, crossref={c}}\n")
    cycles = [n for r in result.records for n in r.notices if "cycle" in n.message]
    assert len(cycles) == 2


def test_bom_and_line_numbers() -> None:
    result = parse("\ufeff\n\n@article{a, title={A}}\n@article{b,\n title={B}\n}\n")
    assert [(r.first_line, r.last_line) for r in result.records] == [(3, 3), (4, 6)]
    assert result.records[1].raw == "@article{b,\n title={B}\n}"


def test_sniff() -> None:
    assert sniff("% x\n@article{a,\n title = {x}}") >= 50
    assert sniff("TY  - JOUR\nER  -") == 0
    assert FORMATS[0].name == "bibtex"


def test_dumps_keys_and_escaping() -> None:
    papers = [
        make_paper(
            title="50% of {braces} & $money$ #1 a_b ~ ^ \\cmd -- ``q''",
            authors=("Smith, John", "Barnes and Noble", "O'Brien, Pat"),
            year=2020,
            journal="J & K",
            doi="10.1000/a_b%c",
            fallback_key="x",
        ),
        make_paper(title="The title", authors=("Smith, John",), year=2020, fallback_key="y"),
        make_paper(title="The title", authors=("Smith, John",), year=2020, fallback_key="z"),
    ]
    out = dumps(papers)
    assert "@article{smith202050," in out
    assert "@article{smith2020title," in out and "@article{smith2020titlea," in out
    back = parse(out).records
    assert back[0].paper.title == papers[0].title
    assert back[0].paper.authors == papers[0].authors
    assert back[0].paper.journal == "J & K"
    assert back[0].paper.doi == "10.1000/a_b%c"
    assert [r.source_id for r in back] == ["smith202050", "smith2020title", "smith2020titlea"]


def test_dumps_value_cannot_break_out() -> None:
    evil = make_paper(title="x}, title = {pwned}, note = {", fallback_key="e")
    back = parse(dumps([evil])).records
    assert len(back) == 1
    assert back[0].paper.title == evil.title
    assert "note" not in back[0].extras


def test_one_line_file_with_many_entries_stays_linear() -> None:
    import time

    text = "".join(f"@article{{k{i}, title = {{T{i}}}, year = 2000}}" for i in range(20_000))
    start = time.perf_counter()
    result = parse(text)
    elapsed = time.perf_counter() - start
    assert len(result.records) == 20_000
    assert result.records[-1].source_id == "k19999"
    assert elapsed < 30  # quadratic rescanning took minutes here
