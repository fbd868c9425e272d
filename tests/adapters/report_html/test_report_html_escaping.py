"""Property: whatever text PDFs, titles or questions carry, it stays text in the HTML."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from litdesk.adapters.report_html import CitationView, PageView, ReportMeta, render_html
from litdesk.core.report import ReportPaper, ReportUnit, UnitExcerpt, assign_labels

NASTY = st.lists(
    st.sampled_from(list("<>\"'&/=; abcXYZ\n") + ["<script>", "</textarea>", "-->", "]]>"]),
    min_size=1,
    max_size=30,
).map("".join)
PIXEL = "data:image/jpeg;base64,AAAA"


@settings(max_examples=80, deadline=None)
@given(title=NASTY, question=NASTY, passage=NASTY, answer=NASTY, file=NASTY)
def test_untrusted_text_never_becomes_markup(
    title: str, question: str, passage: str, answer: str, file: str
) -> None:
    name = file.replace("\n", " ") + ".pdf"
    papers = [ReportPaper(name, title, (title,)), ReportPaper("other.pdf", None)]
    unit = ReportUnit(
        "question", question, answer.replace("[", "(") + " [1]",
        (UnitExcerpt(1, name, 3, passage, 1),), None, 0,
    )  # fmt: skip
    rep = assign_labels(papers, [unit])
    meta = ReportMeta("2026-12-01", "m", "m", "cross-paper", "none", None, (question,))
    html = render_html(
        rep,
        meta,
        {"pg-0001": PageView("pg-0001", PIXEL, 10, 10)},
        {"A1": CitationView("pg-0001", "file:///x.pdf#page=3", ((0.1, 0.2, 0.3, 0.05),))},
    )
    doc = lxml_html.fromstring(html)
    assert len(doc.xpath("//script")) == 1 and len(doc.xpath("//style")) == 1
    assert not doc.xpath("//textarea") and len(doc.xpath("//img")) == 2
    assert {e.tag for e in doc.iter() if isinstance(e.tag, str)} <= {
        "html", "head", "meta", "title", "style", "body", "header", "h1", "div", "button",
        "nav", "ul", "li", "a", "main", "section", "h2", "table", "thead", "tr", "th",
        "tbody", "td", "h3", "span", "article", "details", "summary", "br", "p", "dialog",
        "strong", "img", "script", "time",
    }  # fmt: skip
    cite = doc.xpath("//section[@id='questions']//a[@class='cite']")[0]
    assert cite.get("data-passage") == " ".join(passage.split())
    assert doc.xpath("//section[@id='questions']//h3")[0].text_content() == question
