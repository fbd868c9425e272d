"""Zotero items as litdesk reads them, and their litdesk records (pure).

A :class:`ZoteroItem` is one regular item of a Zotero library with every field Zotero
stores for it (field name → value, as in the Web API's JSON), its creators with their
roles, tags, collections, child notes and attachments. :func:`item_paper_fields` makes
the fields of litdesk's :class:`~litdesk.core.records.Paper` from it: the item type
mapped to litdesk's record type (the RIS type names litdesk's importers record), the
authors (the item type's primary creator role), the date read as Zotero reads it, the
identifiers from fields and ``Extra``, tags as keywords.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from ._dates import parse_zotero_date
from ._extra import Identifiers

__all__ = [
    "RECORD_TYPES",
    "SKIPPED_TYPES",
    "ZoteroAttachment",
    "ZoteroCollection",
    "ZoteroCreator",
    "ZoteroItem",
    "ZoteroNote",
    "creator_name",
    "item_paper_fields",
    "primary_role",
    "record_type",
]

#: Zotero item type → litdesk record type (``Paper.publication_types``: RIS type names).
RECORD_TYPES: Final[dict[str, str]] = {
    "journalArticle": "Journal Article",
    "magazineArticle": "Magazine Article",
    "newspaperArticle": "Newspaper Article",
    "book": "Book",
    "bookSection": "Book Section",
    "conferencePaper": "Conference Paper",
    "thesis": "Thesis",
    "report": "Report",
    "preprint": "Preprint",
    "manuscript": "Manuscript",
    "webpage": "Web Page",
    "blogPost": "Blog",
    "forumPost": "Internet Communication",
    "dataset": "Dataset",
    "computerProgram": "Computer Program",
    "patent": "Patent",
    "standard": "Standard",
    "case": "Case",
    "statute": "Statute",
    "bill": "Bill",
    "hearing": "Hearing",
    "encyclopediaArticle": "Encyclopedia",
    "dictionaryEntry": "Dictionary",
    "document": "Generic",
    "letter": "Personal Communication",
    "email": "Internet Communication",
    "instantMessage": "Internet Communication",
    "interview": "Generic",
    "presentation": "Slide",
    "map": "Map",
    "artwork": "Art Work",
    "film": "Motion Picture",
    "videoRecording": "Video Recording",
    "tvBroadcast": "Video Recording",
    "audioRecording": "Sound Recording",
    "radioBroadcast": "Sound Recording",
    "podcast": "Sound Recording",
}
#: Item types that are not records: read as notes, attachments or annotations instead.
SKIPPED_TYPES: Final = frozenset({"note", "attachment", "annotation"})

#: The creator role that makes a type's authors when it has no ``author`` role.
_PRIMARY_ROLES: Final[dict[str, str]] = {
    "computerProgram": "programmer",
    "patent": "inventor",
    "film": "director",
    "tvBroadcast": "director",
    "videoRecording": "director",
    "radioBroadcast": "director",
    "audioRecording": "performer",
    "podcast": "podcaster",
    "presentation": "presenter",
    "artwork": "artist",
    "map": "cartographer",
    "bill": "sponsor",
    "letter": "author",
    "interview": "interviewee",
}
# the field holding a record's journal-like container, per Zotero's base field mapping
_CONTAINER_FIELDS: Final = (
    "publicationTitle",
    "bookTitle",
    "proceedingsTitle",
    "encyclopediaTitle",
    "dictionaryTitle",
    "websiteTitle",
    "blogTitle",
    "forumTitle",
    "repository",
    "university",
    "institution",
    "programTitle",
    "seriesTitle",
)
_TITLE_FIELDS: Final = ("title", "caseName", "nameOfAct", "subject")
_NUMBER_FIELDS: Final = ("volume", "codeVolume", "reporterVolume")
_ISSUE_FIELDS: Final = ("issue", "number")
_PAGE_FIELDS: Final = ("pages", "firstPage")
_DATE_FIELDS: Final = ("date", "dateDecided", "dateEnacted", "issueDate", "filingDate")


@dataclass(frozen=True, slots=True)
class ZoteroCreator:
    """One creator: ``last``/``first`` (two-field) or ``name`` only (single field, an
    organisation), and the role (``author``, ``editor``, ``translator``, …)."""

    role: str
    last: str = ""
    first: str = ""
    single: bool = False


def creator_name(c: ZoteroCreator) -> str:
    """``Last, First`` (litdesk's author form), or the single-field name."""
    if c.single or not c.first:
        return c.last.strip()
    return f"{c.last.strip()}, {c.first.strip()}".strip(", ")


def primary_role(item_type: str) -> str:
    """The creator role whose creators are the record's authors."""
    return _PRIMARY_ROLES.get(item_type, "author")


def record_type(item_type: str) -> str:
    """litdesk's record type for a Zotero item type (an unknown type: ``Generic``)."""
    return RECORD_TYPES.get(item_type, "Generic")


@dataclass(frozen=True, slots=True)
class ZoteroNote:
    """A note: its key, HTML, version and parent item's key (``None``: standalone);
    ``related``: the keys of the items a standalone note is related to (Zotero's
    "Related"), sorted."""

    key: str
    html: str
    version: int
    date_modified: str
    parent_key: str | None = None
    related: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ZoteroAttachment:
    """An attachment as Zotero stores it: link mode (0 imported file, 1 imported URL,
    2 linked file, 3 linked URL, 4 embedded image), content type and ``path``
    (``storage:<name>``, an absolute path, ``attachments:<relative>``) or URL."""

    key: str
    link_mode: int
    content_type: str
    path: str
    title: str = ""
    url: str = ""
    parent_key: str | None = None

    @property
    def is_file(self) -> bool:
        return self.link_mode in (0, 1, 2)

    @property
    def is_snapshot(self) -> bool:
        """A saved web page (imported URL that is not a PDF)."""
        return self.link_mode == 1 and self.content_type != "application/pdf"


@dataclass(frozen=True, slots=True)
class ZoteroCollection:
    """A collection: key, name, parent collection key (``None``: top level)."""

    key: str
    name: str
    parent_key: str | None = None


@dataclass(frozen=True, slots=True)
class ZoteroItem:
    """One regular item with everything litdesk reads of it (see the module docstring)."""

    library: str
    key: str
    item_type: str
    version: int
    date_added: str
    date_modified: str
    fields: Mapping[str, str]
    creators: tuple[ZoteroCreator, ...] = ()
    tags: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    notes: tuple[ZoteroNote, ...] = ()
    attachments: tuple[ZoteroAttachment, ...] = ()
    identifiers: Identifiers = field(default_factory=Identifiers)

    @property
    def title(self) -> str:
        for name in _TITLE_FIELDS:
            if self.fields.get(name):
                return self.fields[name]
        return ""

    @property
    def citation_key(self) -> str | None:
        return self.identifiers.citation_key

    def first_field(self, names: tuple[str, ...]) -> str | None:
        for name in names:
            value = self.fields.get(name, "").strip()
            if value:
                return value
        return None


def _limited(value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value[:limit] if value else None


def item_paper_fields(item: ZoteroItem) -> dict[str, object]:
    """The fields of litdesk's Paper for ``item`` (``make_paper(**fields)``)."""
    role = primary_role(item.item_type)
    authors = [creator_name(c) for c in item.creators if c.role == role]
    if not authors:  # e.g. an edited book: its editors are its names
        authors = [creator_name(c) for c in item.creators if c.role == "editor"]
    date = parse_zotero_date(item.first_field(_DATE_FIELDS))
    ids = item.identifiers
    url = item.fields.get("url", "").strip()
    out: dict[str, object] = {
        "title": item.title,
        "authors": [a for a in authors if a],
        "journal": _limited(item.first_field(_CONTAINER_FIELDS), 2_000),
        "year": date.year if date.year is not None and 1000 <= date.year <= 2999 else None,
        "volume": _limited(item.first_field(_NUMBER_FIELDS), 100),
        "issue": _limited(item.first_field(_ISSUE_FIELDS), 100),
        "pages": _limited(item.first_field(_PAGE_FIELDS), 100),
        "doi": ids.doi,
        "pmid": ids.pmid,
        "pmcid": ids.pmcid,
        "arxiv_id": ids.arxiv,
        "abstract": item.fields.get("abstractNote") or None,
        "keywords": [t[:2_000] for t in item.tags],
        "publication_types": [record_type(item.item_type)],
        "source_url": url if url.lower().startswith("https://") else None,
        "provider": "zotero",
    }
    return out
