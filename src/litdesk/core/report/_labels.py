"""The report page's fixed labels in each label language (pure data, no I/O).

A report's prose (answers, summaries, synthesis) is written in the prose language (the
language of the questions unless one is set); its *page labels* — the headings, table
heads, flags, the "About this report" rows, the viewer's buttons — come from this table in
the label language the wizard (or ``litdesk report --labels``) chose. English is the
default; every language has exactly the English keys (a test checks it).

``{n}``, ``{page}``, ``{confidence}``: filled by the renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from litdesk._errors import InputError

__all__ = [
    "DEFAULT_LABELS",
    "LABEL_LANGUAGES",
    "UnknownLabelLanguage",
    "check_label_language",
    "label_language_names",
    "report_labels",
]

DEFAULT_LABELS: Final = "en"


class UnknownLabelLanguage(InputError):
    """The page-label language is not one the report has labels for."""

    default_code = "labels"


_EN: Final[Mapping[str, str]] = {
    "language_name": "English",
    "title_prefix": "Synthesis report",
    "title_no_question": "papers",
    "paper_one": "paper",
    "paper_many": "papers",
    "model_is": "model: {model}",
    "generation_is": "generation: {model}",
    "layout": "Layout",
    "layout_column": "Column",
    "layout_contents": "Contents",
    "layout_compare": "Compare",
    "contents": "Contents",
    "papers": "Papers",
    "questions": "Questions",
    "synthesis": "Synthesis",
    "compare": "Compare",
    "about": "About this report",
    "col_paper": "Paper",
    "col_title": "Title",
    "col_first_author": "First author",
    "col_file": "File",
    "col_pages_cited": "Pages cited",
    "read_from_pdf": "read from the PDF (confidence {confidence})",
    "not_grounded": "not grounded: cites no excerpt",
    "extractive_answer": "extractive answer (no model)",
    "extracts": "extracts",
    "cited_passages": "Cited passages ({n})",
    "page": "page {page}",
    "rank": "rank {n}",
    "more": "+ {n} more",
    "unit_question": "question {n}",
    "unit_summary": "summary: {facet}",
    "unit_synthesis": "synthesis: {section}",
    "row_created": "Created",
    "row_model": "Model",
    "row_generation_model": "Generation model",
    "row_question_units": "Question units",
    "row_summary": "Summary",
    "row_language": "Language",
    "detail_per-paper": "per-paper",
    "detail_cross-paper": "cross-paper",
    "detail_both": "both",
    "summary_none": "none",
    "summary_bullets": "bullets",
    "summary_prose": "prose",
    "language_default": "the language of the questions",
    "about_text": (
        "Every citation is an excerpt that the code checked against the retrieval (file, "
        "page, passage); a label is one passage on one page. Clicking a label shows the "
        "rendered page with the passage's character boxes highlighted; the link in the "
        "viewer opens the PDF itself at that page. A citation has its own address (this "
        "file followed by #cite- and the label, e.g. report.html#cite-A1), which opens its "
        'page view directly. Summaries marked "extracts" are sentences taken from the '
        "excerpts, not written by a model."
    ),
    "facet_aim": "Aim",
    "facet_methods": "Methods",
    "facet_study_area": "Study area",
    "facet_results": "Results",
    "facet_discussion": "Discussion",
    "facet_outlook": "Outlook",
    "section_agreement": "Agreement",
    "section_differences": "Differences",
    "section_open_points": "Open points",
    "viewer_open_pdf": "Open the PDF",
    "viewer_open_at": "Open the PDF at page {page}",
    "viewer_close": "Close",
    "viewer_not_located": (
        "The passage could not be located on the page image; the page is shown without a highlight."
    ),
    "viewer_image": "cited page",
    "date": "{day} {month} {year}, {time}",
    "months": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
}

_DE: Final[Mapping[str, str]] = {
    "language_name": "Deutsch",
    "title_prefix": "Synthesebericht",
    "title_no_question": "Publikationen",
    "paper_one": "Publikation",
    "paper_many": "Publikationen",
    "model_is": "Modell: {model}",
    "generation_is": "Generierung: {model}",
    "layout": "Ansicht",
    "layout_column": "Spalte",
    "layout_contents": "Inhaltsverzeichnis",
    "layout_compare": "Vergleich",
    "contents": "Inhalt",
    "papers": "Publikationen",
    "questions": "Fragen",
    "synthesis": "Synthese",
    "compare": "Vergleich",
    "about": "Über diesen Bericht",
    "col_paper": "Publikation",
    "col_title": "Titel",
    "col_first_author": "Erstautor",
    "col_file": "Datei",
    "col_pages_cited": "Zitierte Seiten",
    "read_from_pdf": "aus der PDF gelesen (Konfidenz {confidence})",
    "not_grounded": "nicht belegt: zitiert keinen Auszug",
    "extractive_answer": "extraktive Antwort (ohne Modell)",
    "extracts": "Auszüge",
    "cited_passages": "Zitierte Textstellen ({n})",
    "page": "Seite {page}",
    "rank": "Rang {n}",
    "more": "+ {n} weitere",
    "unit_question": "Frage {n}",
    "unit_summary": "Zusammenfassung: {facet}",
    "unit_synthesis": "Synthese: {section}",
    "row_created": "Erstellt",
    "row_model": "Modell",
    "row_generation_model": "Generierungsmodell",
    "row_question_units": "Fragen beantwortet",
    "row_summary": "Zusammenfassung",
    "row_language": "Sprache",
    "detail_per-paper": "je Publikation",
    "detail_cross-paper": "einmal über alle Publikationen",
    "detail_both": "über alle Publikationen und je Publikation",
    "summary_none": "keine",
    "summary_bullets": "Stichpunkte",
    "summary_prose": "Fließtext",
    "language_default": "die Sprache der Fragen",
    "about_text": (
        "Jedes Zitat ist ein Auszug, den der Code mit den abgerufenen Textstellen abgeglichen "
        "hat (Datei, Seite, Textstelle); ein Verweis steht für genau eine Textstelle auf "
        "einer Seite. Ein Klick auf einen Verweis zeigt die gerenderte Seite mit den "
        "hervorgehobenen Zeichen der Textstelle; der Link im Betrachter öffnet die PDF selbst "
        "auf dieser Seite. Jedes Zitat hat eine eigene Adresse (diese Datei, gefolgt von "
        "#cite- und dem Verweis, z. B. report.html#cite-A1), die seine Seitenansicht direkt "
        "öffnet. Mit „Auszüge“ markierte Zusammenfassungen bestehen aus Sätzen der Auszüge "
        "und wurden nicht von einem Modell geschrieben."
    ),
    "facet_aim": "Ziel",
    "facet_methods": "Methoden",
    "facet_study_area": "Untersuchungsgebiet",
    "facet_results": "Ergebnisse",
    "facet_discussion": "Diskussion",
    "facet_outlook": "Ausblick",
    "section_agreement": "Übereinstimmungen",
    "section_differences": "Unterschiede",
    "section_open_points": "Offene Fragen",
    "viewer_open_pdf": "PDF öffnen",
    "viewer_open_at": "PDF auf Seite {page} öffnen",
    "viewer_close": "Schließen",
    "viewer_not_located": (
        "Die Textstelle wurde auf dem Seitenbild nicht gefunden; die Seite wird ohne "
        "Hervorhebung gezeigt."
    ),
    "viewer_image": "zitierte Seite",
    "date": "{day}. {month} {year}, {time}",
    "months": "Jan. Feb. März Apr. Mai Juni Juli Aug. Sept. Okt. Nov. Dez.",
}

_FR: Final[Mapping[str, str]] = {
    "language_name": "Français",
    "title_prefix": "Rapport de synthèse",
    "title_no_question": "articles",
    "paper_one": "article",
    "paper_many": "articles",
    "model_is": "modèle : {model}",
    "generation_is": "génération : {model}",
    "layout": "Disposition",
    "layout_column": "Colonne",
    "layout_contents": "Sommaire",
    "layout_compare": "Comparaison",
    "contents": "Sommaire",
    "papers": "Articles",
    "questions": "Questions",
    "synthesis": "Synthèse",
    "compare": "Comparaison",
    "about": "À propos de ce rapport",
    "col_paper": "Article",
    "col_title": "Titre",
    "col_first_author": "Premier auteur",
    "col_file": "Fichier",
    "col_pages_cited": "Pages citées",
    "read_from_pdf": "lu dans le PDF (confiance {confidence})",
    "not_grounded": "non étayée : ne cite aucun extrait",
    "extractive_answer": "réponse extractive (sans modèle)",
    "extracts": "extraits",
    "cited_passages": "Passages cités ({n})",
    "page": "page {page}",
    "rank": "rang {n}",
    "more": "+ {n} autres",
    "unit_question": "question {n}",
    "unit_summary": "résumé : {facet}",
    "unit_synthesis": "synthèse : {section}",
    "row_created": "Créé le",
    "row_model": "Modèle",
    "row_generation_model": "Modèle de génération",
    "row_question_units": "Réponses aux questions",
    "row_summary": "Résumé",
    "row_language": "Langue",
    "detail_per-paper": "par article",
    "detail_cross-paper": "une fois pour l'ensemble des articles",
    "detail_both": "pour l'ensemble des articles et par article",
    "summary_none": "aucun",
    "summary_bullets": "liste à puces",
    "summary_prose": "texte rédigé",
    "language_default": "la langue des questions",
    "about_text": (
        "Chaque citation est un extrait que le code a vérifié par rapport aux passages "
        "retrouvés (fichier, page, passage) ; une référence désigne un seul passage sur une "
        "seule page. Un clic sur une référence affiche la page rendue avec les caractères du "
        "passage surlignés ; le lien de la visionneuse ouvre le PDF lui-même à cette page. "
        "Chaque citation a sa propre adresse (ce fichier suivi de #cite- et de la référence, "
        "p. ex. report.html#cite-A1), qui ouvre directement la vue de sa page. Les résumés "
        "marqués « extraits » sont des phrases tirées des extraits, non rédigées par un "
        "modèle."
    ),
    "facet_aim": "Objectif",
    "facet_methods": "Méthodes",
    "facet_study_area": "Zone d'étude",
    "facet_results": "Résultats",
    "facet_discussion": "Discussion",
    "facet_outlook": "Perspectives",
    "section_agreement": "Points d'accord",
    "section_differences": "Différences",
    "section_open_points": "Questions ouvertes",
    "viewer_open_pdf": "Ouvrir le PDF",
    "viewer_open_at": "Ouvrir le PDF à la page {page}",
    "viewer_close": "Fermer",
    "viewer_not_located": (
        "Le passage n'a pas pu être localisé sur l'image de la page ; la page est affichée "
        "sans surlignage."
    ),
    "viewer_image": "page citée",
    "date": "{day} {month} {year}, {time}",
    "months": "janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.",
}

_ES: Final[Mapping[str, str]] = {
    "language_name": "Español",
    "title_prefix": "Informe de síntesis",
    "title_no_question": "artículos",
    "paper_one": "artículo",
    "paper_many": "artículos",
    "model_is": "modelo: {model}",
    "generation_is": "generación: {model}",
    "layout": "Disposición",
    "layout_column": "Columna",
    "layout_contents": "Índice",
    "layout_compare": "Comparación",
    "contents": "Índice",
    "papers": "Artículos",
    "questions": "Preguntas",
    "synthesis": "Síntesis",
    "compare": "Comparación",
    "about": "Acerca de este informe",
    "col_paper": "Artículo",
    "col_title": "Título",
    "col_first_author": "Primer autor",
    "col_file": "Archivo",
    "col_pages_cited": "Páginas citadas",
    "read_from_pdf": "leído del PDF (confianza {confidence})",
    "not_grounded": "sin respaldo: no cita ningún fragmento",
    "extractive_answer": "respuesta extractiva (sin modelo)",
    "extracts": "extractos",
    "cited_passages": "Pasajes citados ({n})",
    "page": "página {page}",
    "rank": "posición {n}",
    "more": "+ {n} más",
    "unit_question": "pregunta {n}",
    "unit_summary": "resumen: {facet}",
    "unit_synthesis": "síntesis: {section}",
    "row_created": "Creado",
    "row_model": "Modelo",
    "row_generation_model": "Modelo de generación",
    "row_question_units": "Respuestas a las preguntas",
    "row_summary": "Resumen",
    "row_language": "Idioma",
    "detail_per-paper": "por artículo",
    "detail_cross-paper": "una vez para todos los artículos",
    "detail_both": "para todos los artículos y por artículo",
    "summary_none": "ninguno",
    "summary_bullets": "viñetas",
    "summary_prose": "prosa",
    "language_default": "el idioma de las preguntas",
    "about_text": (
        "Cada cita es un fragmento que el código comprobó frente a los pasajes recuperados "
        "(archivo, página, pasaje); una referencia corresponde a un solo pasaje en una sola "
        "página. Al hacer clic en una referencia se muestra la página renderizada con los "
        "caracteres del pasaje resaltados; el enlace del visor abre el propio PDF en esa "
        "página. Cada cita tiene su propia dirección (este archivo seguido de #cite- y la "
        "referencia, p. ej., report.html#cite-A1), que abre directamente la vista de su "
        "página. Los resúmenes marcados como «extractos» son frases tomadas de los "
        "fragmentos, no redactadas por un modelo."
    ),
    "facet_aim": "Objetivo",
    "facet_methods": "Métodos",
    "facet_study_area": "Área de estudio",
    "facet_results": "Resultados",
    "facet_discussion": "Discusión",
    "facet_outlook": "Perspectivas",
    "section_agreement": "Coincidencias",
    "section_differences": "Diferencias",
    "section_open_points": "Cuestiones abiertas",
    "viewer_open_pdf": "Abrir el PDF",
    "viewer_open_at": "Abrir el PDF en la página {page}",
    "viewer_close": "Cerrar",
    "viewer_not_located": (
        "No se pudo localizar el pasaje en la imagen de la página; la página se muestra sin "
        "resaltado."
    ),
    "viewer_image": "página citada",
    "date": "{day} {month} {year}, {time}",
    "months": "ene. feb. mar. abr. may. jun. jul. ago. sept. oct. nov. dic.",
}

_LABELS: Final[Mapping[str, Mapping[str, str]]] = {"en": _EN, "de": _DE, "fr": _FR, "es": _ES}
#: the label languages, English first (the default)
LABEL_LANGUAGES: Final[tuple[str, ...]] = tuple(_LABELS)
#: the English names that also choose a language (``--labels German``)
_ENGLISH_NAMES: Final = {"english": "en", "german": "de", "french": "fr", "spanish": "es"}


def label_language_names() -> dict[str, str]:
    """Each label language's code and its own name (``{"de": "Deutsch", …}``)."""
    return {code: labels["language_name"] for code, labels in _LABELS.items()}


def check_label_language(value: str | None) -> str:
    """The label language's code for ``value`` (a code such as ``de``, or a name such as
    ``German`` or ``Deutsch``, any case; empty: English); an unknown one is refused with the
    known ones listed."""
    text = " ".join((value or "").split()).lower()
    if not text:
        return DEFAULT_LABELS
    if text in _LABELS:
        return text
    if text in _ENGLISH_NAMES:
        return _ENGLISH_NAMES[text]
    for code, labels in _LABELS.items():
        if labels["language_name"].lower() == text:
            return code
    known = ", ".join(f"{_LABELS[c]['language_name']} ({c})" for c in LABEL_LANGUAGES)
    raise UnknownLabelLanguage(
        f"there are no page labels in “{text[:40]}”; choose one of: {known}",
        known=list(LABEL_LANGUAGES),
    )


def report_labels(code: str) -> Mapping[str, str]:
    """The page labels of the label language ``code`` (checked: see
    :func:`check_label_language`)."""
    return _LABELS[check_label_language(code)]
