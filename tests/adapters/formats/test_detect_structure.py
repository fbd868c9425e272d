"""Issue 12: format detection by structure — every format's sample with another format's
lines inside a field is still read as its own format; ambiguous content is refused with
both candidates named, or read as ``format=`` says."""

from __future__ import annotations

import json

import pytest

from litdesk.adapters.formats import loads
from litdesk.core.imports import ImportRefused

RIS_LINES = "TY  - JOUR\nTI  - Not a record\nER  - "
BIB_LINES = "@article{fake2020,\n  title = {Not a record},\n}"
MEDLINE_LINES = "PMID- 12345678\nTI  - Not a record"
WOS_LINES = "PT J\nTI Not a record\nER"

BIBTEX = """@article{smith2020,
  author = {Smith, John and Doe, Jane},
  title = {Stroke outcomes},
  journal = {Stroke},
  year = {2020},
  abstract = {Background text.
%s
More text.},
}

@article{jones2021,
  author = {Jones, Ann},
  title = {Aphasia therapy},
  year = {2021},
}
"""

RIS = """TY  - JOUR
AU  - Smith, John
TI  - Stroke outcomes
AB  - Background text.
%s
More text.
PY  - 2020
ER  -

TY  - JOUR
AU  - Jones, Ann
TI  - Aphasia therapy
PY  - 2021
ER  -
"""

MEDLINE = """PMID- 11111111
TI  - Stroke outcomes
AB  - Background text.
      %s
FAU - Smith, John
DP  - 2020

PMID- 22222222
TI  - Aphasia therapy
FAU - Jones, Ann
DP  - 2021
"""

WOS = """FN Clarivate Analytics Web of Science
VR 1.0
PT J
AU Smith, J
TI Stroke outcomes
AB Background text.
   %s
PY 2020
UT WOS:000000000000001
ER

PT J
AU Jones, A
TI Aphasia therapy
PY 2021
UT WOS:000000000000002
ER

EF
"""

CSV = 'title,year,abstract\n"Stroke outcomes",2020,"Background text.\n%s\nMore text."\n"Aphasia therapy",2021,""\n'

ENDNOTE = """<?xml version="1.0" encoding="UTF-8"?><xml><records>
<record><rec-number>1</rec-number><ref-type name="Journal Article">17</ref-type>
<titles><title>Stroke outcomes</title></titles>
<abstract>Background text.
%s
More text.</abstract></record>
<record><rec-number>2</rec-number><ref-type name="Journal Article">17</ref-type>
<titles><title>Aphasia therapy</title></titles></record>
</records></xml>"""


def _csljson(inner: str) -> str:
    items = [
        {"id": "a", "type": "article-journal", "title": "Stroke outcomes",
         "abstract": "Background text.\n" + inner, "issued": {"date-parts": [[2020]]}},
        {"id": "b", "type": "article-journal", "title": "Aphasia therapy",
         "issued": {"date-parts": [[2021]]}},
    ]  # fmt: skip
    return json.dumps(items, indent=2)


def _escape_xml(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


SAMPLES = {
    "bibtex": (lambda inner: BIBTEX % inner.replace("{", "(").replace("}", ")")),
    "ris": (lambda inner: RIS % inner),
    "medline": (lambda inner: MEDLINE % inner.replace("\n", "\n      ")),
    "wos": (lambda inner: WOS % inner.replace("\n", "\n   ")),
    "csv": (lambda inner: CSV % inner),
    "csljson": _csljson,
    "endnote-xml": (lambda inner: ENDNOTE % _escape_xml(inner)),
}
INNER = {"ris": RIS_LINES, "bibtex": BIB_LINES, "medline": MEDLINE_LINES, "wos": WOS_LINES}


@pytest.mark.parametrize(
    ("fmt", "inner"),
    [(f, i) for f in SAMPLES for i in INNER if i != f],
)
def test_other_format_lines_inside_a_field(fmt: str, inner: str) -> None:
    text = SAMPLES[fmt](INNER[inner])
    trace = loads(text.encode("utf-8"))
    assert trace.source.format == fmt
    titles = [r.paper.title for r in trace.records]
    assert titles == ["Stroke outcomes", "Aphasia therapy"]


def test_bibtex_abstract_quoting_ris_as_in_the_issue() -> None:
    # the reported case: "TY  - JOUR" and "ER  - " lines inside a BibTeX abstract
    text = BIBTEX.replace("%s", RIS_LINES)
    assert "{" in text and RIS_LINES in text
    trace = loads(text.encode(), path="export.txt")
    assert trace.source.format == "bibtex" and len(trace.records) == 2


def test_ambiguous_content_is_refused_with_both_candidates() -> None:
    text = (RIS % "plain text") + "\n" + BIB_LINES + "\n"
    with pytest.raises(ImportRefused) as info:
        loads(text.encode())
    assert info.value.code == "ambiguous"
    assert info.value.details["candidates"] == ["ris", "bibtex"]
    assert "--format ris" in info.value.message and "--format bibtex" in info.value.message
    # … or read as the format the user names
    assert len(loads(text.encode(), format="ris").records) == 2
    assert len(loads(text.encode(), format="bibtex").records) == 1


def test_bibtex_first_then_ris_outside_is_ambiguous() -> None:
    text = BIBTEX % "plain" + "\n" + RIS % "plain"
    with pytest.raises(ImportRefused) as info:
        loads(text.encode())
    assert info.value.details["candidates"] == ["bibtex", "ris"]


def test_csv_row_of_one_cell_holding_a_ris_record_is_outside_the_table() -> None:
    text = CSV % "x" + RIS % "plain"
    with pytest.raises(ImportRefused) as info:
        loads(text.encode())
    assert info.value.code == "ambiguous"


def test_bib_extension_breaks_a_tie() -> None:
    text = "@article{a,\n title = {T},\n}\n"
    assert loads(text.encode(), path="refs.bib").source.format == "bibtex"


@pytest.mark.parametrize(
    ("body", "provider", "message"),
    [
        ({"error": "Invalid query parameters error.", "message": "FOO is not a valid field."},
         "OpenAlex", "FOO is not a valid field."),
        ({"status": "failed", "message-type": "validation-failure",
          "message": [{"type": "parameter-not-allowed", "value": "query.*",
                       "message": "This route does not support field query parameters"}]},
         "Crossref validation-failure", "This route does not support field query parameters"),
        ({"error": "Paper with id 0 not found"}, "Semantic Scholar", "Paper with id 0 not found"),
        ({"errCode": 500, "errMsg": "Search failed: syntax error near AND"}, "Europe PMC",
         "syntax error near AND"),
    ],
)  # fmt: skip
def test_provider_error_body_is_refused_with_its_message(
    body: dict[str, object], provider: str, message: str
) -> None:
    data = json.dumps(body).encode()
    for fmt in (None, "csljson", "openalex-json", "crossref-json", "s2-json", "europepmc-json"):
        with pytest.raises(ImportRefused) as info:
            loads(data, format=fmt)
        assert info.value.code == "provider_error", fmt
        assert f"{provider} error" in info.value.message and message in info.value.message


def test_a_record_with_an_error_field_is_not_an_error_body() -> None:
    items = [{"id": "a", "type": "article-journal", "title": "Error bars", "error": "x"}]
    assert loads(json.dumps(items).encode()).source.format == "csljson"


# --------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from litdesk.adapters.formats._detect import outline  # noqa: E402
from litdesk.adapters.formats._errorbody import error_message  # noqa: E402

_LINES = st.lists(
    st.one_of(
        st.sampled_from(
            ["TY  - JOUR", "ER  - ", "ER  -", "PMID- 123", "PT J", "ER", "FN x", "VR 1.0",
             "@article{k,", "@misc(k,", "title = x,", "AU  - Doe, J", "}", ")", '"', ",", ""]
        ),
        st.text(
            st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"), exclude_characters="{}"),
            max_size=30,
        ),
    ),
    max_size=12,
)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(_LINES)
def test_any_lines_inside_a_bibtex_field_keep_it_bibtex(lines: list[str]) -> None:
    inner = "\n".join(lines).replace("{", "").replace("}", "")
    # detection only: how the BibTeX reader treats an "@type(" line inside a braced value
    # is the reader's business
    trace = loads(SAMPLES["bibtex"](inner).encode("utf-8"))
    assert trace.source.format == "bibtex"


@settings(max_examples=80, deadline=None)
@given(_LINES)
def test_any_lines_inside_a_quoted_csv_cell_keep_it_csv(lines: list[str]) -> None:
    inner = "\n".join(lines).replace('"', '""')
    trace = loads(SAMPLES["csv"](inner).encode("utf-8"))
    assert trace.source.format == "csv" and len(trace.records) == 2


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.sampled_from(["bibtex", "ris", "medline", "wos", "table"]))
def test_outline_never_raises_and_spans_are_ordered(text: str, family: str) -> None:
    o = outline(family, text)
    assert all(0 <= a <= b <= len(text) for a, b in o.spans)
    assert all(x[1] <= y[0] for x, y in zip(o.spans, o.spans[1:], strict=False))


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda c: (
                st.lists(c, max_size=4)
                | st.dictionaries(
                    st.sampled_from(
                        ["error", "errors", "message", "status", "errMsg", "code", "x"]
                    ),
                    c,
                    max_size=4,
                )
            ),
            max_leaves=12,
        ).map(json.dumps),
    )
)
def test_error_message_is_total(text: str) -> None:
    message = error_message(text)
    assert message is None or (" error: " in message and len(message) < 400)
