"""Identifier normalisers and primary-id rules (pure).

Every ``normalize_*`` function takes arbitrary text and returns the canonical form
or ``None`` when the text is not that kind of identifier. They never raise and are
idempotent: ``f(f(x)) == f(x)`` whenever ``f(x)`` is not ``None``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final
from urllib.parse import unquote

__all__ = [
    "EUROPE_PMC_SOURCES",
    "PRIMARY_ID_PATTERN",
    "ArxivId",
    "detect_identifier",
    "fallback_id",
    "normalize_arxiv",
    "normalize_doi",
    "normalize_openalex_id",
    "normalize_pmcid",
    "normalize_pmid",
    "normalize_source_id",
    "primary_id",
    "split_arxiv",
]

MAX_DOI_CHARS: Final = 512
EUROPE_PMC_SOURCES: Final = ("MED", "PMC", "PPR", "AGR", "CBA", "CTX", "PAT", "ETH", "HIR", "NBK")
#: Namespaces litdesk adds for papers Europe PMC does not name: OpenAlex, arXiv,
#: DOI-only (hashed) and records with no identifier at all (hashed raw record).
LITDESK_SOURCES: Final = ("OAX", "ARX", "DOI", "S2", "REC")
PRIMARY_ID_PATTERN: Final = re.compile(r"^[A-Z0-9]{2,6}-[A-Z0-9][A-Z0-9._-]{0,99}$")

_WS = re.compile(r"\s+")
_DOI_PREFIXES = re.compile(
    r"^(?:(?:https?://)?(?:(?:dx\.|www\.)?doi\.org|doi\.acm\.org|dx\.crossref\.org)/"
    r"|doi\s*[:=]?\s*|urn:doi:|info:doi/)+",
    re.IGNORECASE,
)
_DOI_CORE = re.compile(r"^10\.\d{4,9}/\S+$", re.ASCII)
_PMID_PREFIXES = re.compile(
    r"^(?:(?:https?://)?(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)"
    r"|pmid\s*[:=]?\s*|med[-:/]\s*)",
    re.IGNORECASE,
)
_PMCID_PREFIXES = re.compile(
    r"^(?:(?:https?://)?(?:www\.)?(?:ncbi\.nlm\.nih\.gov/pmc/articles/|pmc\.ncbi\.nlm\.nih\.gov/articles/"
    r"|europepmc\.org/articles?/(?:pmc/)?)|pmcid\s*[:=]?\s*|pmc-)",
    re.IGNORECASE,
)
_OPENALEX_PREFIXES = re.compile(
    r"^(?:(?:https?://)?(?:api\.)?openalex\.org/(?:works/)?|oax-)", re.IGNORECASE
)
_ARXIV_PREFIXES = re.compile(
    r"^(?:(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|arxiv\s*:\s*|arx-"
    r"|(?:https?://(?:dx\.)?doi\.org/)?10\.48550/arxiv\.)",
    re.IGNORECASE,
)
_ARXIV_NEW = re.compile(r"^(\d{4}\.\d{4,5})(?:v(\d{1,3}))?$", re.ASCII)
_ARXIV_OLD = re.compile(
    r"^([a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?)/(\d{7})(?:v(\d{1,3}))?$", re.IGNORECASE | re.ASCII
)


def _clean(text: object) -> str:
    if not isinstance(text, str):
        return ""
    return _WS.sub(" ", text).strip()


# A DOI already in the form the general path reads as itself but for case: "10.", 4-9
# digits, "/", then printable ASCII without spaces, "%" or a trailing "." "," ";". The
# general path only lower-cases it (no prefix, escape or space to remove), so it is
# answered without that path's regexes — the common case on import (tests compare both).
_PLAIN_DOI_FORM: Final = re.compile(r"10\.[0-9]{4,9}/[!-$&-~]*[!-$&-+\-/-:<-~]").fullmatch


def plain_doi(t: str) -> bool:
    """True for a DOI that :func:`normalize_doi` only lower-cases (see ``_PLAIN_DOI_FORM``)."""
    return len(t) <= MAX_DOI_CHARS and _PLAIN_DOI_FORM(t) is not None


def normalize_doi(text: object) -> str | None:
    """Canonical DOI: lower-case ``10.<4-9 digits>/<suffix>``, at most 512 characters.

    Accepts bare DOIs, ``doi:`` prefixes, doi.org/dx.doi.org URLs and percent-encoding.
    """
    if type(text) is str and plain_doi(text):
        return text.lower()
    return _normalize_doi(text)


def _normalize_doi(text: object) -> str | None:
    """:func:`normalize_doi`'s general path (prefixes, URLs, escapes, spaces)."""
    s = _clean(text)
    if not s or len(s) > 4 * MAX_DOI_CHARS:
        return None
    s = _DOI_PREFIXES.sub("", s)
    if "%" in s:
        s = unquote(s)
        s = _DOI_PREFIXES.sub("", s.strip())
    s = s.strip().rstrip(".,;")
    s = s.lower()
    if len(s) > MAX_DOI_CHARS or not _DOI_CORE.match(s):
        return None
    return s


def normalize_pmid(text: object) -> str | None:
    """Canonical PMID: 1 to 12 digits without leading zeros (``pmid:``, ``MED-``, URLs accepted)."""
    s = _clean(text)
    if not s or len(s) > 200:
        return None
    s = _PMID_PREFIXES.sub("", s).strip().rstrip("/")
    if not s.isascii() or not s.isdigit():
        return None
    s = s.lstrip("0")
    if not s or len(s) > 12:
        return None
    return s


def normalize_pmcid(text: object) -> str | None:
    """Canonical PMCID: ``PMC`` + 1 to 10 digits (bare digits, ``pmcid:``, ``PMC-`` and URLs accepted)."""
    s = _clean(text)
    if not s or len(s) > 200:
        return None
    s = _PMCID_PREFIXES.sub("", s).strip().rstrip("/")
    if s[:3].upper() == "PMC":
        s = s[3:]
    if not s.isascii() or not s.isdigit():
        return None
    s = s.lstrip("0")
    if not s or len(s) > 10:
        return None
    return "PMC" + s


def normalize_openalex_id(text: object) -> str | None:
    """Canonical OpenAlex work id ``W<digits>`` (URL, ``OAX-`` and lower-case forms accepted)."""
    s = _clean(text)
    if not s or len(s) > 200:
        return None
    s = _OPENALEX_PREFIXES.sub("", s).strip().rstrip("/")
    if len(s) < 2 or s[0] not in "Ww":
        return None
    digits = s[1:]
    if not digits.isascii() or not digits.isdigit() or len(digits) > 15:
        return None
    digits = digits.lstrip("0")
    return "W" + digits if digits else None


class ArxivId(tuple[str, int | None]):
    """An arXiv id split into its base id and its version (``None`` when unversioned)."""

    __slots__ = ()

    def __new__(cls, base: str, version: int | None) -> ArxivId:
        return super().__new__(cls, (base, version))

    @property
    def base(self) -> str:
        return self[0]

    @property
    def version(self) -> int | None:
        return self[1]


def split_arxiv(text: object) -> ArxivId | None:
    """Parse an arXiv id (new ``2401.01234v2`` or old ``hep-th/9901001`` style) into base + version."""
    s = _clean(text)
    if not s or len(s) > 200:
        return None
    s = _ARXIV_PREFIXES.sub("", s).strip()
    if s.lower().endswith(".pdf"):
        s = s[:-4]
    m = _ARXIV_NEW.match(s)
    if m:
        return ArxivId(m.group(1), int(m.group(2)) if m.group(2) else None)
    m = _ARXIV_OLD.match(s)
    if m:
        archive = m.group(1)
        if "." in archive:
            main, sub = archive.split(".", 1)
            archive = f"{main.lower()}.{sub.upper()}"
        else:
            archive = archive.lower()
        return ArxivId(f"{archive}/{m.group(2)}", int(m.group(3)) if m.group(3) else None)
    return None


def normalize_arxiv(text: object) -> str | None:
    """Canonical arXiv base id without version (see :func:`split_arxiv` for the version)."""
    parsed = split_arxiv(text)
    return parsed.base if parsed else None


_SOURCE_ID = re.compile(r"^([A-Za-z0-9]{2,6})-(.+)$")
_ACCESSION = re.compile(r"^[A-Z0-9][A-Z0-9._-]{0,99}$")


def normalize_source_id(text: object) -> str | None:
    """Canonical primary id ``<SOURCE>-<accession>`` (Europe PMC sources and litdesk's own).

    ``MED-`` takes a PMID, ``PMC-`` a PMCID (stored as ``PMC-PMC123``), ``OAX-`` an
    OpenAlex work id; other Europe PMC sources take an accession of ``[A-Z0-9._-]``.
    """
    s = _clean(text)
    if not s or len(s) > 120:
        return None
    m = _SOURCE_ID.match(s)
    if not m:
        return None
    source, acc = m.group(1).upper(), m.group(2).strip()
    if source == "MED":
        pmid = normalize_pmid(acc)
        return f"MED-{pmid}" if pmid else None
    if source == "PMC":
        pmcid = normalize_pmcid(acc)
        return f"PMC-{pmcid}" if pmcid else None
    if source == "OAX":
        work = normalize_openalex_id(acc)
        return f"OAX-{work}" if work else None
    if source not in EUROPE_PMC_SOURCES and source not in LITDESK_SOURCES:
        return None
    acc = acc.upper()
    if not _ACCESSION.match(acc):
        return None
    return f"{source}-{acc}"


def _hash_accession(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24].upper()


def primary_id(
    *,
    pmid: str | None = None,
    pmcid: str | None = None,
    source_id: str | None = None,
    openalex_id: str | None = None,
    arxiv_id: str | None = None,
    doi: str | None = None,
    fallback: str | None = None,
) -> str | None:
    """The paper's primary id, by the reference's preference.

    ``MED-<pmid>`` whenever a PMID exists (so a paper first seen by PMCID or OpenAlex
    resolves to the same saved identity), then ``PMC-<pmcid>``, then a provider's own
    source id (``PPR-…`` etc.), ``OAX-W…``, ``ARX-<arXiv id>``, ``DOI-<hash of DOI>``,
    and finally ``REC-<hash of fallback>`` (for example a raw record's digest).

    ``None`` when there is no identifier and no fallback (``None``, empty or blank): such
    a record has no identity of its own, and a shared ``REC-<hash of "">`` would make
    every such record one paper.
    """
    if pmid and (p := normalize_pmid(pmid)):
        return f"MED-{p}"
    if pmcid and (c := normalize_pmcid(pmcid)):
        return f"PMC-{c}"
    if source_id and (s := normalize_source_id(source_id)):
        return s
    if openalex_id and (w := normalize_openalex_id(openalex_id)):
        return f"OAX-{w}"
    if arxiv_id and (a := normalize_arxiv(arxiv_id)):
        return "ARX-" + a.upper().replace("/", "_")
    if doi and (d := normalize_doi(doi)):
        return "DOI-" + _hash_accession(d)
    return fallback_id(fallback)


def fallback_id(fallback: str | None) -> str | None:
    """``REC-<hash of fallback>``; ``None`` when ``fallback`` is ``None``, empty or blank."""
    if fallback is None or not fallback.strip():
        return None
    return "REC-" + _hash_accession(fallback)


_PREFIX_SPACE = re.compile(r"^(doi|pmid|pmcid|arxiv)\s*:\s+", re.IGNORECASE)


def detect_identifier(text: object) -> tuple[str, str] | None:
    """Recognise a whole-input exact identifier: ``(namespace, canonical value)`` or ``None``.

    Namespaces: ``doi``, ``pmid``, ``pmcid``, ``openalex``, ``arxiv``, ``source``.
    Bare digits are a PMID; bare ``PMC123`` a PMCID; bare ``W123`` an OpenAlex id.
    """
    s = _PREFIX_SPACE.sub(r"\1:", _clean(text))
    if not s or " " in s:
        return None
    if d := normalize_doi(s):
        return ("doi", d)
    low = s.lower()
    pmc_like = low.startswith(("pmcid", "pmc")) or any(
        marker in low for marker in ("/pmc/", "pmc.ncbi", "europepmc.org")
    )
    if pmc_like and (c := normalize_pmcid(s)):
        return ("pmcid", c)
    if (p := normalize_pmid(s)) and (s.isdigit() or low.startswith(("pmid", "med-", "http"))):
        return ("pmid", p)
    if (w := normalize_openalex_id(s)) and (s[0] in "Ww" or low.startswith(("oax-", "http"))):
        return ("openalex", w)
    if a := normalize_arxiv(s):
        return ("arxiv", a)
    if src := normalize_source_id(s):
        return ("source", src)
    return None
