"""The ``Extra`` field of a Zotero item and the identifiers in an item's fields (pure).

Zotero keeps what it has no field for in ``Extra``, one ``Key: value`` per line (``PMID:
123``, ``PMCID: PMC45``, ``arXiv: 2101.00001``, ``DOI: 10.1/x`` for item types without a
DOI field, ``Citation Key: smith2020``, CSL variables such as ``original-date: 1900``).
Keys are read case-insensitively with spaces, ``-`` and ``_`` alike; other lines stay
free text. Everything here is one pass over the text (``str.splitlines`` and
``str.partition``), so a hostile ``Extra`` costs linear time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from litdesk.core.records import normalize_arxiv, normalize_doi, normalize_pmcid, normalize_pmid

__all__ = ["ExtraField", "Identifiers", "extra_fields", "item_identifiers"]

#: Only this much of ``Extra`` is read (Zotero's own field is unbounded).
MAX_EXTRA_CHARS: Final = 100_000
MAX_KEY_CHARS: Final = 40
_KEY_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789 -_.")


@dataclass(frozen=True, slots=True)
class ExtraField:
    """One ``Key: value`` line of ``Extra``: ``key`` folded (``citationkey``), ``label`` as
    written."""

    key: str
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Identifiers:
    """The identifiers of one item (normalised; ``None`` when it has none)."""

    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    arxiv: str | None = None
    citation_key: str | None = None


def _fold(label: str) -> str:
    return "".join(c for c in label.lower() if c not in " -_")


def extra_fields(extra: str | None) -> list[ExtraField]:
    """The ``Key: value`` lines of ``extra`` in order (free-text lines left out)."""
    out: list[ExtraField] = []
    for line in (extra or "")[:MAX_EXTRA_CHARS].splitlines():
        label, sep, value = line.partition(":")
        label, value = label.strip(), value.strip()
        if not sep or not label or not value or len(label) > MAX_KEY_CHARS:
            continue
        if not label[0].isalpha() or not set(label.lower()) <= _KEY_CHARS:
            continue
        out.append(ExtraField(_fold(label), label, value))
    return out


_DOI_KEYS: Final = ("doi",)
_PMID_KEYS: Final = ("pmid", "pubmedid")
_PMCID_KEYS: Final = ("pmcid", "pmc")
_ARXIV_KEYS: Final = ("arxiv", "arxivid", "eprint")
_KEY_KEYS: Final = ("citationkey", "bibtex", "texids")


def _arxiv_of(value: str) -> str | None:
    found = normalize_arxiv(value)
    if found is None and value.lower().startswith("arxiv:"):
        found = normalize_arxiv(value[6:])
    return found


def item_identifiers(fields: Mapping[str, str]) -> Identifiers:
    """DOI, PMID, PMCID, arXiv id and citation key from an item's fields (``DOI``,
    ``citationKey``, ``archiveID`` = ``arXiv:…``, an arXiv ``url``, a ``10.48550/arXiv.``
    DOI) and from its ``Extra`` lines; a field wins over ``Extra``."""
    doi = normalize_doi(fields.get("DOI") or "")
    pmid = pmcid = arxiv = None
    key = (fields.get("citationKey") or "").strip() or None
    archive_id = fields.get("archiveID") or ""
    if archive_id.lower().startswith("arxiv:"):
        arxiv = _arxiv_of(archive_id)
    if arxiv is None and doi is not None and doi.startswith("10.48550/arxiv."):
        arxiv = normalize_arxiv(doi)
    url = fields.get("url") or ""
    if arxiv is None and "arxiv.org/" in url.lower():
        arxiv = normalize_arxiv(url)
    for f in extra_fields(fields.get("extra")):
        if f.key in _DOI_KEYS and doi is None:
            doi = normalize_doi(f.value)
        elif f.key in _PMID_KEYS and pmid is None:
            pmid = normalize_pmid(f.value)
        elif f.key in _PMCID_KEYS and pmcid is None:
            pmcid = normalize_pmcid(f.value)
        elif f.key in _ARXIV_KEYS and arxiv is None:
            arxiv = _arxiv_of(f.value)
        elif f.key in _KEY_KEYS and key is None:
            key = f.value.split(",")[0].strip()[:200] or None
    return Identifiers(doi=doi, pmid=pmid, pmcid=pmcid, arxiv=arxiv, citation_key=key)
