"""The Zotero area's requests, each validated once in ``__post_init__`` (the CLI and the
web build the same objects)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from litdesk._errors import InputError

__all__ = [
    "MAX_COLLECTIONS",
    "MAX_NAME_CHARS",
    "ZoteroImportRequest",
    "ZoteroInputError",
    "ZoteroPushRequest",
    "ZoteroWebImportRequest",
]

MAX_COLLECTIONS: Final = 100
MAX_NAME_CHARS: Final = 200
MAX_PATH_CHARS: Final = 4_096


class ZoteroInputError(InputError):
    """A Zotero import or push request does not fit; ``code`` says which rule."""

    default_code = "zotero_input"


def _name(value: str, what: str) -> str:
    value = value.strip()
    if not value:
        raise ZoteroInputError(f"{what} is empty", code="zotero_empty_name")
    if len(value) > MAX_NAME_CHARS:
        raise ZoteroInputError(
            f"{what} is longer than {MAX_NAME_CHARS} characters", code="zotero_long_name"
        )
    return value


def _path(value: str | None, what: str) -> str | None:
    if value is None or not value.strip():
        return None
    if len(value) > MAX_PATH_CHARS or "\x00" in value:
        raise ZoteroInputError(f"{what} is not a usable path", code="zotero_bad_path")
    return value.strip()


@dataclass(frozen=True, slots=True)
class ZoteroImportRequest:
    """Import a Zotero library: ``data_dir`` (``None``: the platform's Zotero data
    directory), the ``collections`` to import by name (each with its sub-collections; none:
    the whole library), ``study`` (one Study for everything; ``None``: one Study per chosen
    or top-level collection, unfiled items in ``Zotero (unfiled)``), the linked-attachment
    ``base_dir``, a ``group`` library id instead of the user's library, whether PDFs go
    into the PDF library, and ``sub_studies``: every sub-collection its own Study (named
    ``Parent / Child``) instead of its items joining its top collection's Study."""

    data_dir: str | None = None
    collections: tuple[str, ...] = ()
    study: str | None = None
    base_dir: str | None = None
    group: int | None = None
    pdfs: bool = True
    sub_studies: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "data_dir", _path(self.data_dir, "the Zotero data directory"))
        if self.sub_studies and self.study is not None:
            raise ZoteroInputError(
                "one Study for everything, or a Study per sub-collection: not both",
                code="zotero_study_choice",
            )
        object.__setattr__(self, "base_dir", _path(self.base_dir, "the base directory"))
        if len(self.collections) > MAX_COLLECTIONS:
            raise ZoteroInputError(
                f"at most {MAX_COLLECTIONS} collections per import", code="zotero_collections"
            )
        names = tuple(dict.fromkeys(_name(c, "a collection name") for c in self.collections))
        object.__setattr__(self, "collections", names)
        if self.study is not None:
            object.__setattr__(self, "study", _name(self.study, "the Study name"))
        if self.group is not None and not 0 < self.group < 2**53:
            raise ZoteroInputError("a group id is a positive number", code="zotero_group")


def _library(value: str) -> str:
    kind, _, number = value.strip().partition("/")
    if kind not in ("users", "groups") or not number.isdigit() or len(number) > 15:
        raise ZoteroInputError(
            "a Zotero library is users/<id> or groups/<id>", code="zotero_library"
        )
    return f"{kind}/{int(number)}"


def _api_key(value: str) -> str:
    key = value.strip()
    if not key or len(key) > 64 or not key.isalnum():
        raise ZoteroInputError("the Zotero API key is malformed", code="zotero_api_key")
    return key


@dataclass(frozen=True, slots=True)
class ZoteroWebImportRequest:
    """Import a library of zotero.org through the Web API v3: ``library`` (``users/<id>``
    or ``groups/<id>``) read with ``api_key`` (``None``: a public library); the
    ``collections``, ``study`` and ``sub_studies`` of :class:`ZoteroImportRequest`; ``pdfs``:
    download the items' stored PDFs (``--with-pdfs``); ``full``: read every item again
    instead of only those changed since the last import of the same choice."""

    library: str
    api_key: str | None = None
    collections: tuple[str, ...] = ()
    study: str | None = None
    sub_studies: bool = False
    pdfs: bool = False
    full: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "library", _library(self.library))
        if self.api_key is not None:
            object.__setattr__(self, "api_key", _api_key(self.api_key))
        shape = ZoteroImportRequest(
            collections=self.collections, study=self.study, sub_studies=self.sub_studies
        )
        object.__setattr__(self, "collections", shape.collections)
        object.__setattr__(self, "study", shape.study)

    def as_import(self) -> ZoteroImportRequest:
        """The same choice of collections and Studies as an offline import's request."""
        return ZoteroImportRequest(
            collections=self.collections,
            study=self.study,
            pdfs=self.pdfs,
            sub_studies=self.sub_studies,
        )

    def __repr__(self) -> str:  # the key never reaches a log or a trace
        key = "<set>" if self.api_key else None
        return (
            f"ZoteroWebImportRequest(library={self.library!r}, api_key={key}, "
            f"collections={self.collections!r}, study={self.study!r}, "
            f"sub_studies={self.sub_studies}, pdfs={self.pdfs}, full={self.full})"
        )


@dataclass(frozen=True, slots=True)
class ZoteroPushRequest:
    """Give a Study's tags and notes back to the Zotero items its papers came from: as an
    RIS file Zotero imports (``ris_path``), through the Web API v3 (``library``:
    ``users/<id>`` or ``groups/<id>``, with its ``api_key``), or through Zotero's local API
    (``local``; the user library is ``users/0``)."""

    study: str
    ris_path: str | None = None
    library: str | None = None
    api_key: str | None = None
    local: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _name(self.study, "the Study"))
        object.__setattr__(self, "ris_path", _path(self.ris_path, "the RIS file"))
        if self.local and self.library is None:
            object.__setattr__(self, "library", "users/0")
        if self.library is not None:
            object.__setattr__(self, "library", _library(self.library))
        if self.api_key is not None:
            object.__setattr__(self, "api_key", _api_key(self.api_key))
        remote = self.library is not None
        if remote and self.ris_path is not None:
            raise ZoteroInputError(
                "either an RIS file or a Zotero library, not both", code="zotero_push_target"
            )
        if remote and not self.local and self.api_key is None:
            raise ZoteroInputError(
                "the Zotero Web API needs an API key (or use the local API)",
                code="zotero_api_key",
            )
        if not remote and self.ris_path is None:
            raise ZoteroInputError(
                "give an RIS file, or a Zotero library with its API key",
                code="zotero_push_target",
            )

    @property
    def target(self) -> str:
        """Where the push goes, without the key."""
        if self.ris_path is not None:
            return f"file {self.ris_path}"
        return ("local API " if self.local else "Web API ") + str(self.library)

    def __repr__(self) -> str:  # the key never reaches a log or a trace
        key = "<set>" if self.api_key else None
        return (
            f"ZoteroPushRequest(study={self.study!r}, ris_path={self.ris_path!r}, "
            f"library={self.library!r}, api_key={key}, local={self.local})"
        )
