"""Where an import's records came from, as PRISMA 2020 counts them (issue 28): the source's
name ("Embase", "ClinicalTrials.gov", "Citation searching") and its kind (a database, a
register, another method).

The user states them (:func:`source_label`, validated); when they say nothing, the file
says what it can (:func:`default_source`): a RIS export's ``DB`` (else ``DP``) tag (Ovid's own
export's ``DB``), else the marks a database leaves on each record of its RIS export (Web of
Science's ``WOS:`` accession, a record's page on The Lens or Dimensions, Ovid's record link), the
database a format is the export of (a PubMed/MEDLINE file is PubMed's, a Web of Science
file Web of Science's, a Scopus CSV Scopus's, a Cochrane Library text CENTRAL's, …); else
nothing, and the import is named by its file as before. A name with a trial register's words
is a register unless the kind is stated.

PRISMA counts where the reviewers searched. A file a reference manager exported (Zotero,
JabRef, EndNote: ``SourceInfo.tool``, from the file's own markers) is not a database, and its
records' ``DP`` names the catalog each was captured from (Zotero's "Library Catalog":
"PubMed", "BioMed Central"), not the search: unless every record still names its database
(``DB``, the "Name of Database" a database's export gave it, which the tool carried along),
such a file counts under "other methods", named after the tool and the file ("Zotero export:
refs.ris") until the user names the databases.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, get_args
from urllib.parse import parse_qs, urlsplit

from litdesk._errors import InputError

from ._trace import ImportTrace, RecordTrace

__all__ = [
    "IMPORT_SOURCE_KINDS",
    "MAX_SOURCE_NAME",
    "REGISTER_WORDS",
    "ImportSourceKind",
    "SourceLabel",
    "SourceLabelInvalid",
    "default_source",
    "kind_of_name",
    "source_label",
    "tool_source",
]

ImportSourceKind = Literal["database", "register", "other"]
#: PRISMA 2020's kinds of source, in its order
IMPORT_SOURCE_KINDS: Final[tuple[ImportSourceKind, ...]] = get_args(ImportSourceKind)
MAX_SOURCE_NAME: Final = 200
#: a source name with one of these words is a trial register (PRISMA's "registers")
REGISTER_WORDS: Final = ("clinicaltrials", "trial regist", "ictrp", "registry", "register")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class SourceLabelInvalid(InputError):
    """A source name or kind that cannot be stored."""

    default_code = "bad_source"


@dataclass(frozen=True, slots=True)
class SourceLabel:
    """An import's source: ``name`` as PRISMA lists it, ``kind`` where it counts, and
    ``origin``: ``"given"`` (the user said so) or ``"file"`` (read from the file)."""

    name: str
    kind: ImportSourceKind
    origin: Literal["given", "file"] = "given"

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "origin": self.origin}

    @classmethod
    def from_dict(cls, data: object) -> SourceLabel | None:
        """The label a stored import document holds (``None``: an import made before
        sources were named, or a malformed entry — counted by its file as before)."""
        if not isinstance(data, dict):
            return None
        name, kind, origin = data.get("name"), data.get("kind"), data.get("origin", "given")
        if not isinstance(name, str) or kind not in IMPORT_SOURCE_KINDS:
            return None
        try:
            clean = _clean_name(name)
        except SourceLabelInvalid:
            return None
        return cls(clean, kind, "file" if origin == "file" else "given")


@lru_cache(maxsize=4096)
def kind_of_name(name: str) -> ImportSourceKind:
    """A register when the name has a trial register's words, else a database (kept per
    name: the PRISMA 2020 flow asks it of each of a Study's records, of a few names)."""
    folded = name.casefold().replace(".", "").replace("-", " ")
    return "register" if any(w in folded for w in REGISTER_WORDS) else "database"


def _clean_name(name: str) -> str:
    if _CONTROL.search(name.strip()):
        raise SourceLabelInvalid("a source name cannot hold control characters (tabs, newlines…)")
    clean = " ".join(name.split())
    if not clean:
        raise SourceLabelInvalid("a source name cannot be empty")
    if len(clean) > MAX_SOURCE_NAME:
        raise SourceLabelInvalid(
            f"a source name has at most {MAX_SOURCE_NAME} characters ({len(clean)} given)"
        )
    return clean


def source_label(
    name: str | None, kind: str | None, *, fallback: str | None = None
) -> SourceLabel | None:
    """The label the user stated: ``name`` trimmed (≤ 200 characters, no control
    characters), ``kind`` one of database / register / other (unstated: a register when
    the name has a register's words, else a database). A kind without a name names the
    source ``fallback`` (the file's default); nothing stated is ``None``."""
    name = name if name is None or name.strip() else None
    kind = kind.strip().lower() if kind is not None and kind.strip() else None
    if kind is not None and kind not in IMPORT_SOURCE_KINDS:
        raise SourceLabelInvalid(
            f"source kind {kind[:40]!r} is not one of {', '.join(IMPORT_SOURCE_KINDS)}"
        )
    if name is None and kind is None:
        return None
    if name is None:
        if fallback is None:
            raise SourceLabelInvalid("name the source of the file (e.g. Embase)")
        name = fallback
    clean = _clean_name(name)
    chosen = next((k for k in IMPORT_SOURCE_KINDS if k == kind), None)
    return SourceLabel(clean, chosen or kind_of_name(clean))


#: the database a format is the export of (formats that hold one database's records)
_FORMAT_SOURCES: Final = {
    "medline": "PubMed",
    "pubmed-xml": "PubMed",
    "wos": "Web of Science",
    "wos-tab": "Web of Science",
    "scopus-csv": "Scopus",
    "europepmc-json": "Europe PMC",
    "openalex-json": "OpenAlex",
    "crossref-json": "Crossref",
    "arxiv-atom": "arXiv",
}
#: the Cochrane Library's databases by a record's accession (``CN-``: CENTRAL, ``CD``: the
#: Cochrane Database of Systematic Reviews) or its page (``/central/``, ``/cdsr/``)
_COCHRANE: Final = (
    (re.compile(r"CN-\d", re.IGNORECASE), "/central/", "Cochrane CENTRAL"),
    (re.compile(r"CD\d", re.IGNORECASE), "/cdsr/", "Cochrane Database of Systematic Reviews"),
)
_COCHRANE_LIBRARY: Final = "Cochrane Library"
#: the fields a record names its database in, by format: the database ("Name of Database":
#: RIS ``DB``, Ovid's own export's ``DB``, EndNote's ``remote-database-name``), then its
#: provider (RIS ``DP``)
_NAME_FIELDS: Final = {
    "ris": ("DB", "DP"),
    "ovid": ("DB",),
    "endnote-xml": ("remote-database-name",),
}
#: a RIS ``DB``/``DP`` value as PRISMA names the database (EBSCOhost's short codes, the
#: provider of PubMed); matched case-insensitively on the whole value
_RIS_NAMES: Final = {
    "psyh": "APA PsycInfo",
    "ecn": "EconLit",
    "cin20": "CINAHL",
    "ccm": "CINAHL",
    "c8h": "CINAHL",
    "rzh": "CINAHL",
    "cmedm": "MEDLINE",
    "mdc": "MEDLINE",
    "mnh": "MEDLINE",
    "eric": "ERIC",
    "nlm": "PubMed",
    "pubmed": "PubMed",
    "medline": "MEDLINE",
    "embase": "Embase",
}
#: an Ovid segment's years ("<2008 to 2009>") and MEDLINE's sub-files name one database;
#: the spaces before them go too, matched from the start of a run of spaces only (tried at
#: each space of a run, ``\s*<`` read the rest of the run each time: quadratic)
_OVID_YEARS: Final = re.compile(r"(?<!\s)\s*<[^>]*>")
_OVID_MEDLINE: Final = re.compile(r"^ovid medline\(r\)", re.IGNORECASE)
#: the most databases a mixed export's default name lists
_MAX_NAMED: Final = 3
#: a database's own RIS export that names no database (no ``DB``/``DP``) still marks each
#: record as only that database does: its accession (Web of Science's ``AN  - WOS:`` plus
#: 15 digits) or the record's page on the database (``UR``: The Lens, Dimensions)
_WOS_ACCESSION: Final = re.compile(r"^AN[ \t]{1,3}-[ \t]?WOS:\d{15}[ \t\r]*$", re.MULTILINE)
_PAGE_HOSTS: Final = {
    "lens.org": "The Lens",
    "www.lens.org": "The Lens",
    "app.dimensions.ai": "Dimensions",
}
#: Ovid's record links (``L2``: ``http://ovidsp.ovid.com/ovidweb.cgi?…&D=psyc16&…``) name the
#: database by its Ovid code (the query's ``D``); the codes of the databases reviews search
#: there, by their prefix
_OVID_CODES: Final = (
    ("psyc", "APA PsycInfo"),
    ("emed", "Embase"),
    ("emez", "Embase"),
    ("oemezd", "Embase"),
    ("medl", "Ovid MEDLINE(R)"),
    ("mesz", "Ovid MEDLINE(R)"),
    ("prem", "Ovid MEDLINE(R)"),
    ("coch", "Cochrane Database of Systematic Reviews"),
    ("cctr", "Cochrane CENTRAL"),
)


def _without_years(value: str) -> str:
    """``value`` without its Ovid years: looked for up to its last ``>`` only (tried at each
    ``<`` of a run with no ``>`` after it, ``<[^>]*>`` read the rest each time: quadratic)."""
    end = value.rfind(">") + 1
    return _OVID_YEARS.sub("", value[:end]) + value[end:]


def _ris_name(value: str) -> str | None:
    v = " ".join(_without_years(value).split())
    if not v or _CONTROL.search(v):
        return None
    if _OVID_MEDLINE.match(v):
        return "Ovid MEDLINE(R)"
    return _RIS_NAMES.get(v.casefold(), v)[:MAX_SOURCE_NAME]


def _ovid_code(link: str) -> str | None:
    """The database code (``D``) of an Ovid record link, casefolded, else ``None``."""
    if "ovid.com/" not in link:
        return None
    try:
        parts = urlsplit(link.strip())
    except ValueError:  # not a link (an unbalanced "[" of an IPv6 host)
        return None
    if not parts.hostname or not parts.hostname.endswith("ovid.com"):
        return None
    codes = parse_qs(parts.query).get("D")
    return codes[0].casefold() if codes else None


def _marked(rec: RecordTrace) -> str | None:
    """The database a RIS record's own marks name (:data:`_WOS_ACCESSION`,
    :data:`_PAGE_HOSTS`, :data:`_OVID_CODES`), else ``None``."""
    url = rec.paper.source_url or ""
    if url.startswith("https://"):
        host = url[8:].split("/", 1)[0].casefold()
        if host in _PAGE_HOSTS:
            return _PAGE_HOSTS[host]
    for link in (*rec.extras.get("L2", ()), url):
        code = _ovid_code(link)
        if code:
            found = next((name for prefix, name in _OVID_CODES if code.startswith(prefix)), None)
            if found:
                return found
    raw = rec.raw  # decoded from the file's bytes at each read
    return "Web of Science" if "WOS:" in raw and _WOS_ACCESSION.search(raw) else None


def _named(names: Counter[str]) -> str:
    """The names by number of records (at most :data:`_MAX_NAMED`), joined with " + "."""
    return " + ".join(n for n, _ in names.most_common(_MAX_NAMED))[:MAX_SOURCE_NAME]


def _cochrane_name(rec: RecordTrace) -> str:
    ident = " ".join(rec.extras.get("ID", ())) or (rec.source_id or "")
    page = " ".join(rec.extras.get("US", ())) or (rec.paper.source_url or "")
    for accession, path, name in _COCHRANE:
        if accession.match(ident.strip()) or path in page:
            return name
    return _COCHRANE_LIBRARY


def tool_source(trace: ImportTrace) -> SourceLabel:
    """The source of a reference manager's export that names no database for every record:
    another method, named after the tool and the file ("Zotero export: refs.ris")."""
    file = trace.source.path.replace("\\", "/").rsplit("/", 1)[-1]
    name = " ".join(_CONTROL.sub(" ", f"{trace.source.tool} export: {file}").split())
    return SourceLabel(name[:MAX_SOURCE_NAME], "other", "file")


def default_source(trace: ImportTrace) -> SourceLabel | None:
    """The source a file states, when it states one (``origin`` ``"file"``): the format's
    database, or the database its RIS records name (each record's first ``DB``, else
    ``DP``; records naming different databases: the names by number of records, joined
    with " + "), else the database the marks on at least half its RIS records name
    (:func:`_marked`); a reference manager's export (``trace.source.tool``): its records' ``DB``
    when every record has one, else :func:`tool_source` (another method); ``None`` when
    the file says nothing (it is named by its file)."""
    fmt = trace.source.format
    if fmt in _FORMAT_SOURCES:
        return SourceLabel(_FORMAT_SOURCES[fmt], "database", "file")
    if fmt == "cochrane-txt":
        cochrane = Counter(_cochrane_name(rec) for rec in trace.records)
        return SourceLabel(_named(cochrane) or _COCHRANE_LIBRARY, "database", "file")
    tool = trace.source.tool
    if fmt not in _NAME_FIELDS:
        return tool_source(trace) if tool else None
    names: Counter[str] = Counter()
    marked: Counter[str] = Counter()
    unnamed = 0
    for rec in trace.records:
        # a tool's export: only the database's own name, never the catalog (DP)
        for tag in _NAME_FIELDS[fmt][:1] if tool else _NAME_FIELDS[fmt]:
            found = next((n for v in rec.extras.get(tag, ()) if (n := _ris_name(v))), None)
            if found:
                names[found] += 1
                break
        else:
            # a tool's export: the record's page is where it was captured, not searched
            found = None if tool or fmt != "ris" else _marked(rec)
            if found:
                marked[found] += 1
            else:
                unnamed += 1
    # a database's marks name the file's source when they are on at least half its records
    # (a hand-made file with a few records copied from The Lens is not The Lens's export)
    if marked and 2 * marked.total() >= len(trace.records):
        names.update(marked)
    else:
        unnamed += marked.total()
    if tool and (unnamed or not names):
        return tool_source(trace)
    if not names:
        return None
    name = _named(names)
    return SourceLabel(name, kind_of_name(name), "file")
