"""JATS article front matter → Paper fields (PMC efetch ``pmc-articleset``, Europe PMC
``fullTextXML``). Only bibliographic metadata; the body is the reading area's concern."""

from __future__ import annotations

from typing import Any

from lxml import etree

from ._common import child, children, descendants, drop_heading, text_of, xml_text, year_of

__all__ = ["jats_fields"]

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_SKIP_ABSTRACTS = frozenset({"graphical", "teaser", "author-highlights", "precis", "toc"})


def jats_fields(article: etree._Element) -> dict[str, Any]:
    """Bibliographic fields of one JATS ``<article>``."""
    front = child(article, "front")
    meta = child(front, "article-meta")
    journal_meta = child(front, "journal-meta")
    ids: dict[str, str] = {}
    for aid in children(meta, "article-id"):
        kind = (aid.get("pub-id-type") or "").lower()
        value = (aid.text or "").strip()
        if value and kind not in ids:
            ids[kind] = value
    pmcid = ids.get("pmcid") or ids.get("pmc")
    fields: dict[str, Any] = {
        "pmid": ids.get("pmid"),
        "pmcid": pmcid,
        "doi": ids.get("doi"),
        "title": text_of(meta, "title-group", "article-title") or "",
        "authors": tuple(_authors(meta)),
        "journal": text_of(journal_meta, "journal-title-group", "journal-title")
        or text_of(journal_meta, "journal-title"),
        "year": _year(meta),
        "volume": text_of(meta, "volume"),
        "issue": text_of(meta, "issue"),
        "pages": _pages(meta),
        "abstract": _abstract(meta),
        "keywords": tuple(k for k in (xml_text(kw, limit=2_000) for kw in _kwds(meta)) if k),
        "publication_types": tuple(t for t in [article.get("article-type")] if t),
        "licence": _licence(meta),
    }
    if _open_access_pi(article):
        fields["open_access"] = True
    return fields


def _authors(meta: etree._Element | None) -> list[str]:
    out: list[str] = []
    for group in children(meta, "contrib-group"):
        for contrib in children(group, "contrib"):
            if (contrib.get("contrib-type") or "author") != "author":
                continue
            name = child(contrib, "name")
            if name is not None:
                surname = text_of(name, "surname") or ""
                given = text_of(name, "given-names") or ""
                full = f"{surname} {given}".strip()
                if full:
                    out.append(full)
                continue
            collab = child(contrib, "collab")
            if collab is not None and (text := xml_text(collab, limit=2_000)):
                out.append(text)
    return out


def _year(meta: etree._Element | None) -> int | None:
    dates = children(meta, "pub-date")
    preferred = sorted(
        dates,
        key=lambda d: (
            0
            if (d.get("pub-type") or d.get("date-type") or "")
            in {"epub", "ppub", "pub", "collection"}
            else 1
        ),
    )
    for date in preferred:
        year = year_of(text_of(date, "year"))
        if year:
            return year
    return None


def _pages(meta: etree._Element | None) -> str | None:
    first, last = text_of(meta, "fpage"), text_of(meta, "lpage")
    if first and last:
        return f"{first}-{last}"
    return first or text_of(meta, "elocation-id")


def _abstract(meta: etree._Element | None) -> str | None:
    for abstract in children(meta, "abstract"):
        if (abstract.get("abstract-type") or "") in _SKIP_ABSTRACTS:
            continue
        sections = children(abstract, "sec")
        if sections:
            parts = []
            for sec in sections:
                label = (text_of(sec, "title") or "").rstrip(":").strip()
                body = " ".join(
                    t for t in (xml_text(p, limit=50_000) for p in children(sec, "p")) if t
                )
                if body:
                    parts.append(f"{label}: {body}" if label else body)
            if parts:
                return "\n\n".join(parts)
        text = xml_text(abstract, blocks=True)
        if text:
            return drop_heading(text)
    return None


def _kwds(meta: etree._Element | None) -> list[etree._Element]:
    out: list[etree._Element] = []
    for group in children(meta, "kwd-group"):
        out.extend(children(group, "kwd"))
    return out


def _licence(meta: etree._Element | None) -> str | None:
    permissions = child(meta, "permissions")
    if permissions is None:
        return None
    for lic in children(permissions, "license"):
        for ref in descendants(lic, "license_ref"):
            if ref.text and ref.text.strip():
                return ref.text.strip()
        href = lic.get(_XLINK_HREF)
        if href:
            return href.strip()
        kind = lic.get("license-type")
        text = xml_text(lic, limit=2_000)
        return text or kind
    return None


def _open_access_pi(article: etree._Element) -> bool:
    for node in article.iter(etree.ProcessingInstruction):
        if getattr(node, "target", None) == "properties" and "open_access" in (node.text or ""):
            return True
    return False
