"""The report's page labels in the chosen label language (German here): the headings,
table heads, flags, the meta rows, the viewer's buttons and ``<html lang>`` — none of the
English ones left — while the prose stays as written; in the browser too (screenshot)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lxml import html as lxml_html
from tests._shots import shoot
from tests.adapters.report_html.test_report_html import make_report

from litdesk.services.synthesis import report_html, write_report

ENGLISH_LABELS = (
    "Papers", "Questions", "Synthesis", "Compare", "About this report", "Title",
    "First author", "File", "Pages cited", "Created", "Generation model", "Question units",
    "Language", "Results", "Open the PDF", "Close", "Column", "Contents",
)  # fmt: skip


def _labels(doc: Any) -> list[str]:
    """The page's fixed texts: headings, table heads, summaries, buttons, links in nav."""
    found = doc.xpath(
        "//h2|//th|//summary|//button|//nav//a|//a[@id='viewer-pdf']|//div[@class='facet']"
    )
    return [" ".join(e.text_content().split()) for e in found]


def test_german_labels_replace_the_english_ones(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    english = lxml_html.fromstring(report_html(report, dpi=40))
    assert english.get("lang") == "en"
    assert {"Papers", "Questions", "About this report"} <= set(_labels(english))
    german_html = report_html(report, dpi=40, labels="de")
    german = lxml_html.fromstring(german_html)
    assert german.get("lang") == "de"
    shown = _labels(german)
    for label in ("Publikationen", "Fragen", "Synthese", "Vergleich", "Über diesen Bericht",
                  "Titel", "Erstautor", "Datei", "Erstellt", "Generierungsmodell", "Sprache",
                  "PDF öffnen", "Schließen", "Spalte", "Inhaltsverzeichnis"):  # fmt: skip
        assert label in shown, (label, shown)
    assert any(s.startswith("Ergebnisse") for s in shown)  # the facet, flagged "Auszüge"
    assert "Zitierte Textstellen (1)" in shown and "Zitierte Textstellen (2)" in shown
    for label in ENGLISH_LABELS:
        assert not any(s == label or s.startswith(label + " ") for s in shown), label
    text = german.text_content()
    assert "Synthesebericht — How was water level measured?" in german.findtext(".//title")
    assert "2 Publikationen" in text and "1. Dez. 2026" in text
    assert "Seite 2" in text and "Rang 1" in text and "Frage 1" in text
    assert "+ 1 weitere" in text  # the Compare cell's three points: two shown
    assert "Auszüge" in text and "extraktive" not in text  # the answer is a model's here
    assert "die Sprache der Fragen" in text and "the language of the questions" not in text
    assert "Jedes Zitat ist ein Auszug" in text and "Every citation is an excerpt" not in text
    assert german.xpath("//dialog/@data-open-at") == ["PDF auf Seite {page} öffnen"]
    cite = german.xpath("//section[@id='questions']//a[@class='cite']")[0]
    assert "Seite 2" in cite.get("title") and "page 2" not in cite.get("title")
    # the prose is the report's own, untouched
    assert "Gauges were read" in text
    assert "a warning" in text  # the service's notes are not labels


def test_a_german_report_in_the_browser(tmp_path: Path, browser: Any) -> None:
    report = make_report(tmp_path)
    path = write_report(
        report, tmp_path / "bericht.html", default_dir=tmp_path, dpi=60, labels="de"
    )
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    assert page.inner_text("#papers h2") == "Publikationen"
    assert page.inner_text("button[data-set-layout=compare]") == "Vergleich"
    page.click("button[data-set-layout=compare]")
    assert "+ 1 weitere" in page.inner_text("#compare")
    page.click("button[data-set-layout=column]")
    page.locator("#questions a.cite[data-label=A1]").click()
    assert page.inner_text("#viewer-pdf") == "PDF auf Seite 2 öffnen"
    assert "Seite 2" in page.inner_text("#viewer-title")
    assert page.inner_text("#viewer-close") == "Schließen"
    shoot(page, "report-german-viewer.png")
    page.click("#viewer-close")
    page.click("#about summary")
    assert "Über diesen Bericht" in page.inner_text("#about")
    shoot(page, "report-german.png", full_page=True)
    assert problems == []
    page.close()


def test_a_passages_units_are_named_in_the_label_language(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    units = {
        code: [
            " ".join(e.text_content().split())
            for e in lxml_html.fromstring(report_html(report, dpi=40, labels=code)).xpath(
                "//div[@class='passage']"
            )
        ]
        for code in ("en", "de", "es")
    }
    assert any("· rank 1 · question 1, summary: Results" in p for p in units["en"]), units
    # German nouns keep their capital after the colon
    assert any("· Rang 1 · Frage 1, Zusammenfassung: Ergebnisse" in p for p in units["de"])
    assert any("· posición 1 · pregunta 1, resumen: Resultados" in p for p in units["es"])
