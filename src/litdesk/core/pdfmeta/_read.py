"""Title, authors, year, venue and identifiers from a PDF's first pages (pure).

* **Title**: the largest-font block of lines on the title page (page 1, or page 2 when
  page 1 offers none), leaving out running headers, journal and publisher banners, logos
  and figure labels; confirmed (and its casing taken) from the PDF's own ``Title`` when
  that is sane and says the same.
* **Authors**: the name lines under the title (up to the abstract), split at commas,
  "and", "&" and footnote marks; affiliations, e-mails and ORCIDs skipped. The PDF's own
  ``Author`` confirms the first author, or stands in when the layout gives none.
* **Year**: a venue or citation line ("Proceedings of … 2018", "Clinical Science (2014)"),
  a copyright or publication date, the arXiv identifier, then received/accepted dates;
  the PDF's creation date only as a last, weak guess.
* **Venue**: a proceedings line, a journal citation line, a "JOURNAL | https://doi.org"
  footer, or the PDF's ``Subject`` when it names a journal.
* **DOI / arXiv id**: by pattern on the first pages (:func:`litdesk.core.library.find_ids`),
  else a DOI in the PDF's own ``Subject``/``Keywords``.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Final

from litdesk.core.library import find_ids
from litdesk.core.records import normalize_doi

from ._types import Found, PdfHead, PdfMeta, TextLine

__all__ = ["normalise_title", "read_meta"]

#: Words of a banner, running header or publisher line (never part of a title).
_BANNER: Final = re.compile(
    r"(proceedings|\bjournal\b|\bvol(ume)?\.?\s*\d|\bissue\b|\bissn\b|\bisbn\b|\bdoi\b|"
    r"https?:|www\.|©|\bcopyright\b|licen[cs]e|open access|research article|original article|"
    r"review article|\bpreprint|arxiv|\breceived\b|\baccepted\b|\bpublished\b|available online|"
    r"\beditor\b|publishing|publisher|corporation|\bpress\b|association for|society (of|for)|"
    r"university|department|institute|laborator|school of|faculty of|\bfacility\b|"
    r"conference|annual meeting|workshop|symposium|\bsubmitted\b|corresponding|e-?mail|"
    r"\bpages?\s+\d|\bpp\.|@|\bdraft\b|\bdisclaimer\b)",
    re.IGNORECASE,
)
_ABSTRACT: Final = re.compile(
    r"^\W*+(abstract|summary|resumo|resumen|résumé|zusammenfassung|keywords|key words|"
    r"palavras-chave|palabras-clave|introduction|\d?\.?\s*introduction|i\.\s*introduction|"
    r"background|objectives?|methods?)\b",
    re.IGNORECASE,
)
_AFFILIATION: Final = re.compile(
    r"(universi|institut|department|departamento|college|school|laborator|centre|center|"
    r"hospital|research|group|faculty|facultad|faculdade|\binc\b|\bltd\b|\bllc\b|corporation|"
    r"foundation|academy|\bai\b|facility|division|street|avenue|\broad\b|\busa\b|\buk\b|"
    r"programa|allen|google|microsoft|bytedance|china|brasil|brazil|españa|spain|ireland|"
    r"korea|germany|france|canada|australia|india|japan|mexico|méxico|\bdept\b)",
    re.IGNORECASE,
)
#: Footnote marks and superscripts that follow author names.
_MARKS: Final = re.compile(r"[\d∗*†‡§¶♦♣♠♥☯✉#⁎,;]+|\s&\s|(?<!\s)\s+and\s+|^and\s+", re.IGNORECASE)
_PARTICLES: Final = frozenset(
    ("da", "de", "do", "dos", "das", "del", "della", "der", "den", "di", "du", "e", "la")
    + ("le", "van", "von", "y", "zu", "al", "el", "bin", "ibn", "ter")
)
_YEAR: Final = r"((?:19|20)\d\d)"
_COPYRIGHT: Final = re.compile(
    r"(?:©|\(c\)|copyright:?|^c(?= (?:19|20)\d\d\b))\s*(?:©\s*)?(?:[A-Za-z]+\s+)?" + _YEAR + r"\b",
    re.IGNORECASE,
)
_PUBLISHED: Final = re.compile(
    r"^\W*(?i:(published|publication date|available online)(?: online)?)\s*:?\s*(?:on\s+)?"
    r"(?:\d{1,2}\s+)?(?:[A-Z][a-z]+\.?\s+)?(?:\d{1,2},?\s+)?" + _YEAR + r"\b"
)
_ACCEPTED: Final = re.compile(r"\b(accepted|aprovad[oa]|aceptad[oa])\b.{0,30}?" + _YEAR, re.I)
_RECEIVED: Final = re.compile(r"\b(received|recebido|recibido)\b.{0,40}?" + _YEAR, re.I)
_PROCEEDINGS: Final = re.compile(
    r"\b(proceedings of (?:the )?.+?)(?:,\s*pages?\b|,\s*pp\.|$)", re.I
)
#: "Clinical Science (2014) 126, 305–313", "Z. Naturforsch. 54 a, 272-273 (1999)",
#: "TransInformação, Campinas, 33:e200057, 2021", "Journal of X 2010, 4:1"
_CITATION: Final = re.compile(
    r"^(?:.*?\bet al\.?\s+)?(?P<venue>[A-Z][^\d|()]{2,80}?)[\s,]*"
    r"(?:\((?P<y1>(?:19|20)\d\d)\)\s*\d|\d{1,4}\s*\w?\s*[,:]\s*[\w-]*\d[\w–-]*[\s,]*\(?(?P<y2>(?:19|20)\d\d)\)?|"
    r"(?P<y3>(?:19|20)\d\d)\s*,\s*\d)"
)
#: "TransInformação I Campinas I v. 35 I e227169 I 2023"
_PIPED: Final = re.compile(
    r"^(?P<venue>[A-Z][^|\d]{2,60}?)\s+[I|]\s+.*?\bv\.\s*\d+.*?\b(?P<y>(?:19|20)\d\d)\b"
)
_FOOTER_VENUE: Final = re.compile(r"^(?P<venue>[A-Z][A-Za-z .&-]{2,60}?)\s*\|\s*https?://doi", re.I)
_JOURNAL_WORDS: Final = re.compile(
    r"\b(journal|proceedings|research|review|letters|transactions|annals|bulletin|"
    r"science|medicine|practice|reports|acta|revista)\b",
    re.IGNORECASE,
)
_BAD_META_TITLE: Final = re.compile(
    r"(\.(dvi|docx?|pdf|tex|indd|qxd|rtf)\b|^untitled|^microsoft\b|^title\b|^document\d*$|"
    r"^paper\b\.?|^article\b\.?|^\W*$)",
    re.IGNORECASE,
)
_BAD_META_AUTHOR: Final = re.compile(
    r"^(author|authors|admin|administrator|user|owner|unknown|anonymous|editor|default|"
    r"[a-z]{1,3}\d*)$",
    re.IGNORECASE,
)
_DOI_IN_TEXT: Final = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>()\[\]{}]+)")
_DATE: Final = re.compile(r"D:(\d{4})")


def normalise_title(text: str) -> str:
    """A title for comparison: accents, case, punctuation and spacing folded."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    folded = folded.replace("-", " ").replace("‐", " ")
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def read_meta(head: PdfHead) -> PdfMeta:
    """Title, authors, year, venue, DOI and arXiv id read from ``head`` (see the module)."""
    info = dict(head.info)
    page = _title_page(head)
    lines = [line for line in head.lines if line.page == page]
    title_block = _title_block(lines, head) if lines else None
    weak = title_block is not None and title_block[0].size < _body_size(lines) * _LARGER
    title = _title(title_block, info, weak=weak)
    authors = _authors(lines, title_block, info)
    ids = find_ids(head.texts)
    arxiv = (
        Found(ids.arxiv, 0.9, f"arXiv identifier printed on page {ids.arxiv_page}")
        if (ids.arxiv)
        else None
    )
    doi = _doi(ids.doi, ids.doi_page, info)
    year = _year(head, page, arxiv.value if arxiv else None, info)
    venue = _venue(head, page, info)
    return PdfMeta(title, authors, year, venue, doi, arxiv)


# -- title ---------------------------------------------------------------------------


def _title_page(head: PdfHead) -> int:
    """Page 1, unless it offers no title candidate and page 2 does (a cover page)."""
    for page in (1, 2):
        lines = [line for line in head.lines if line.page == page]
        if lines and _title_block(lines, head, weak_ok=page == 1) is not None:
            return page
    return 1


def _body_size(lines: Sequence[TextLine]) -> float:
    weighted = [line.size for line in lines for _ in range(min(len(line.text), 200) // 20 + 1)]
    return statistics.median(weighted) if weighted else 0.0


def _letters_ratio(text: str) -> float:
    visible = [c for c in text if not c.isspace()]
    return sum(c.isalpha() for c in visible) / len(visible) if visible else 0.0


def _candidate(line: TextLine, body: float, low: float, high: float, repeated: set[str]) -> bool:
    text = line.text
    if line.size > 3.5 * body or line.size < body * 0.95:
        return False  # a logo glyph, or body-size text
    extent = high - low
    in_margin = line.bottom < low + 0.03 * extent or line.top > high - 0.01 * extent
    if extent > 0 and in_margin and normalise_title(text) in repeated:
        return False  # a running header or footer
    if _BANNER.search(text) or _letters_ratio(text) < 0.6:
        return False
    return not _ABSTRACT.match(text) or len(text.split()) > 3


def _title_block(
    lines: Sequence[TextLine], head: PdfHead, *, weak_ok: bool = True
) -> list[TextLine] | None:
    """The title's lines on this page; with ``weak_ok`` also a short first block set in
    body-size type (an OCR layer), never a paragraph of body text."""
    body = _body_size(lines)
    low = min(line.bottom for line in lines)
    high = max(line.top for line in lines)
    other = {normalise_title(x.text) for x in head.lines if x.page != lines[0].page}
    blocks: list[list[TextLine]] = []
    current: list[TextLine] = []
    for line in lines:
        if not _candidate(line, body, low, high, other):
            if current:
                blocks.append(current)
            current = []
            continue
        if current and _continues(current, line):
            current.append(line)
            continue
        if current:
            blocks.append(current)
        current = [line]
    if current:
        blocks.append(current)
    good = [
        b
        for b in blocks
        if len(b) <= _MAX_TITLE_LINES
        and 3 <= sum(len(x.text.split()) for x in b) <= _MAX_TITLE_WORDS
    ]
    if not good:
        return None
    # the largest font wins; on a tie (within 3 %), the block higher on the page
    biggest = max(b[0].size for b in good)
    tied = [b for b in good if b[0].size >= biggest * 0.97]
    block = max(tied, key=lambda b: b[0].top)
    if block[0].size < body * _LARGER and (not weak_ok or len(block) > 3 or block is not good[0]):
        return None  # body-size type (an OCR layer has one size): only a short first block
    return block


#: A title is at most this many words; type this much larger than the body is "larger".
_MAX_TITLE_WORDS: Final = 40
_MAX_TITLE_LINES: Final = 6
_LARGER: Final = 1.05


def _continues(block: list[TextLine], line: TextLine) -> bool:
    last = block[-1]
    if abs(line.size - last.size) > 0.1 * last.size:
        return False
    step = last.top - line.top
    if step <= 0 or step > 1.6 * last.size:
        return False
    if len(block) >= 2:
        first_step = block[-2].top - last.top
        if first_step > 0 and step > 1.25 * first_step:
            return False
    return True


def _sane_meta_title(value: str | None) -> str | None:
    if not value:
        return None
    text = " ".join(value.split())
    if len(text) < 12 or len(text.split()) < 3 or _BAD_META_TITLE.search(text):
        return None
    return text if _letters_ratio(text) >= 0.6 else None


def _title(
    block: list[TextLine] | None, info: dict[str, str], *, weak: bool = False
) -> Found[str] | None:
    """``weak``: the block's type is no larger than the body's (an OCR layer)."""
    meta = _sane_meta_title(info.get("Title"))
    printed = " ".join(line.text for line in block) if block else None
    if printed:
        printed = re.sub(r"(\w)- (\w)", r"\1-\2", printed).strip(" .,;:*∗†")
    if printed and meta:
        if normalise_title(printed) == normalise_title(meta):
            value = meta if printed.isupper() else printed
            return Found(value, 0.95, "largest type on the first page; the PDF's own title agrees")
        if normalise_title(meta) in normalise_title(printed) or normalise_title(
            printed
        ) in normalise_title(meta):
            return Found(printed, 0.8, "largest type on the first page; the PDF's title overlaps")
        return Found(printed, 0.65, "largest type on the first page (the PDF's title differs)")
    if printed and weak:
        value = printed.title() if printed.isupper() else printed
        return Found(value, 0.5, "first block of the first page (no larger type)")
    if printed:
        value = printed.title() if printed.isupper() else printed
        return Found(value, 0.75, "largest type on the first page")
    if meta:
        return Found(meta, 0.6, "the PDF's own title (no title found in the layout)")
    return None


# -- authors -------------------------------------------------------------------------


def _clean_name(raw: str) -> str | None:
    name = raw.strip(" .'\"’`´-")
    tokens = name.split()
    if not 2 <= len(tokens) <= 5 or any(ch.isdigit() for ch in name):
        return None
    capitals = 0
    for tok in tokens:
        if tok.casefold() in _PARTICLES:
            continue
        if not tok[0].isupper():
            return None
        capitals += 1
    if capitals < 2 or _AFFILIATION.search(name):
        return None
    return " ".join(t.title() if t.isupper() and len(t) > 2 else t for t in tokens)


def _names(text: str) -> list[str] | None:
    """The names on an author line, or None when the line is not one."""
    parts = [p for p in _MARKS.split(text) if p and p.strip()]
    if not parts or "@" in text or "orcid" in text.casefold():
        return None
    names = [_clean_name(p) for p in parts]
    good = [n for n in names if n]
    if not good:
        return None
    return good if len(good) * 3 >= len(parts) * 2 else None


def _authors(
    lines: Sequence[TextLine], block: list[TextLine] | None, info: dict[str, str]
) -> Found[tuple[str, ...]] | None:
    found: list[str] = []
    if block:
        start = lines.index(block[-1]) + 1
        misses = 0
        for line in lines[start : start + 16]:
            if _ABSTRACT.match(line.text) or len(line.text.split()) > 16:
                break
            names = _names(line.text)
            if names:
                found += [n for n in names if n not in found]
                misses = 0
            elif found:
                misses += 1
                if misses > 3:
                    break
    meta = _meta_authors(info.get("Author"))
    if found:
        how = "the name lines under the title"
        confidence = 0.75
        if meta and _surname(meta[0]) == _surname(found[0]):
            how += "; the PDF's own author list agrees on the first author"
            confidence = 0.9
        return Found(tuple(found), confidence, how)
    if meta:
        return Found(meta, 0.55, "the PDF's own author list (no names found under the title)")
    return None


def _meta_authors(value: str | None) -> tuple[str, ...] | None:
    if not value:
        return None
    text = re.sub(r"\{?\bet al\.?\}?", "", value).strip(" ,;")
    parts = [p.strip() for p in re.split(r";|\band\b", text) if p.strip()]
    if len(parts) == 1 and text.count(",") >= 1:
        commas = [p.strip() for p in text.split(",") if p.strip()]
        if all(len(p.split()) >= 2 for p in commas):
            parts = commas
    names = tuple(p for p in parts if not _BAD_META_AUTHOR.match(p) and _letters_ratio(p) > 0.7)
    return names or None


def _surname(name: str) -> str:
    return normalise_title(name.rsplit(maxsplit=1)[-1]) if name.split() else ""


# -- year, venue, identifiers --------------------------------------------------------


def _head_lines(head: PdfHead, page: int) -> Iterable[str]:
    """The lines up to the title page: a venue or date in the body of the next page is
    most likely a cited work's."""
    for line in head.lines:
        if line.page <= page:
            yield line.text


def _year(head: PdfHead, page: int, arxiv: str | None, info: dict[str, str]) -> Found[int] | None:
    created = _DATE.match(info.get("CreationDate", ""))
    latest = int(created.group(1)) + 1 if created else 2100  # online before the print year
    picks: list[tuple[float, int, str]] = []

    def add(confidence: float, year: str, how: str) -> None:
        value = int(year)
        if 1900 <= value <= latest:
            picks.append((confidence, value, how))

    for text in _head_lines(head, page):
        if _PROCEEDINGS.search(text):
            for y in re.findall(_YEAR, text):
                add(0.85, y, "the proceedings line")
        if m := _PIPED.match(text):
            add(0.85, m.group("y"), "the journal citation line")
        if (m := _CITATION.match(text)) and not _PUBLISHED.search(text):
            y = m.group("y1") or m.group("y2") or m.group("y3")
            add(0.85, y, "the journal citation line")
        if m := _COPYRIGHT.search(text):
            add(0.8, m.group(1), "the copyright line")
        if m := _PUBLISHED.search(text):
            add(0.8, m.group(2), "the publication date")
        if m := _ACCEPTED.search(text):
            add(0.6, m.group(2), "the acceptance date")
        if m := _RECEIVED.search(text):
            add(0.5, m.group(2), "the date received")
    if arxiv:
        old = re.search(r"/(\d\d)\d{5}", arxiv)
        new = re.match(r"(\d\d)\d\d\.", arxiv)
        if old:
            yy = int(old.group(1))
            add(0.75, str(1900 + yy if yy >= 91 else 2000 + yy), "the arXiv identifier")
        elif new:
            add(0.75, str(2000 + int(new.group(1))), "the arXiv identifier")
    if picks:
        confidence, value, how = max(picks, key=lambda p: p[0])
        if sum(1 for p in picks if p[1] == value) > 1:
            confidence = min(0.95, confidence + 0.1)
        return Found(value, confidence, how)
    if created:
        return Found(int(created.group(1)), 0.3, "the PDF's creation date (no date printed)")
    return None


def _venue(head: PdfHead, page: int, info: dict[str, str]) -> Found[str] | None:
    for text in _head_lines(head, page):
        if m := _PROCEEDINGS.search(text):
            return Found(m.group(1).strip(" ,."), 0.75, "the proceedings line")
    for text in _head_lines(head, page):
        if m := _FOOTER_VENUE.match(text):
            return Found(m.group("venue").strip(), 0.7, "the page footer")
    for text in _head_lines(head, page):
        if m := _PIPED.match(text):
            return Found(m.group("venue").strip(), 0.6, "the journal citation line")
    for text in _head_lines(head, page):
        if (m := _CITATION.match(text)) and not _PUBLISHED.search(text):
            venue = re.sub(r"^.*?\bet al\.?\s+", "", m.group("venue")).split(",")[0]
            venue = venue.strip(" ,.;")
            if len(venue) >= 4 and not _AFFILIATION.search(venue):
                return Found(venue, 0.6, "the journal citation line")
    subject = " ".join(info.get("Subject", "").split())
    if subject and _JOURNAL_WORDS.search(subject):
        venue = re.split(r"\s(?:19|20)\d\d\b|[.;]\s|\bdoi\b", subject, maxsplit=1)[0].strip(" ,.")
        if len(venue) >= 4:
            return Found(venue, 0.5, "the PDF's own subject field")
    return None


def _doi(printed: str | None, page: int | None, info: dict[str, str]) -> Found[str] | None:
    if printed:
        return Found(printed, 0.9, f"DOI printed on page {page}")
    for key in ("Subject", "Keywords"):
        if m := _DOI_IN_TEXT.search(info.get(key, "")):
            doi = normalize_doi(m.group(1).rstrip(".,;"))
            if doi:
                return Found(doi, 0.8, f"the PDF's own {key.lower()} field")
    return None
