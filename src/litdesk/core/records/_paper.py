"""The versioned Paper record: the bibliographic snapshot used everywhere (pure).

A Paper is immutable and validated on construction, so a Paper read from storage,
a file or a provider is always well-formed: every field is type-checked,
identifiers are normalised, unsafe URLs (not https, or carrying credentials) are
dropped. Use :func:`make_paper` to build one from parsed fields (it derives the
primary id) and :func:`read_paper` to read untrusted stored data. Both check plain
fields on a fast path that makes pydantic's checks (``_fast_paper``) and leave anything
else to pydantic.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from datetime import datetime
from itertools import repeat
from typing import Annotated, Any, Final, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from litdesk._errors import IntegrityError

from ._identifiers import (
    PRIMARY_ID_PATTERN,
    _hash_accession,
    fallback_id,
    normalize_arxiv,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    normalize_source_id,
    primary_id,
)

__all__ = [
    "PAPER_VERSION",
    "AbstractSource",
    "Paper",
    "PaperError",
    "make_paper",
    "paper_from_fields",
    "read_paper",
    "safe_https_url",
    "same_paper",
]

PAPER_VERSION: Final = 1
MAX_TITLE: Final = 4_000
MAX_ABSTRACT: Final = 200_000
MAX_AUTHORS: Final = 5_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class PaperError(IntegrityError):
    """Stored or recovered paper data failed validation."""

    default_code = "paper_invalid"


def safe_https_url(value: object) -> str | None:
    """``value`` when it is an https URL with a host and no credentials, else ``None``."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    if not url or len(url) > 4_096 or _CONTROL.search(url) or " " in url:
        return None
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return None
    if parts.scheme.lower() != "https" or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return None
    return url


def _text(value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    # every character _CONTROL removes is unprintable: skip the regex for printable text
    cleaned = (value if _no_control(value) else _CONTROL.sub("", value)).strip()
    if len(cleaned) > limit:
        cleaned = cleaned[:limit]
    return cleaned or None


def _no_control(value: str) -> bool:
    """False when ``value`` may hold a character _CONTROL removes (True: it holds none)."""
    if len(value) > 64 and value.isascii():
        # a byte-level check of the same characters, several times faster on long text
        data = value.encode("ascii")
        return len(data.translate(None, _CONTROL_BYTES)) == len(data)
    return value.isprintable()


# the characters _CONTROL matches, as bytes
_CONTROL_BYTES: Final = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


ShortText = Annotated[StrictStr, Field(max_length=2_000)]


class AbstractSource(BaseModel):
    """Where a merged paper's abstract came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: Annotated[StrictStr, Field(min_length=1, max_length=100)]
    source_url: StrictStr | None = None
    retrieved_at: StrictStr | None = None

    @field_validator("source_url")
    @classmethod
    def _safe(cls, v: str | None) -> str | None:
        return safe_https_url(v)


class Paper(BaseModel):
    """One paper as litdesk knows it (version 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    version: Literal[1] = 1
    id: StrictStr
    title: StrictStr = ""
    authors: tuple[ShortText, ...] = ()
    journal: ShortText | None = None
    year: Annotated[StrictInt, Field(ge=1000, le=2999)] | None = None
    volume: Annotated[StrictStr, Field(max_length=100)] | None = None
    issue: Annotated[StrictStr, Field(max_length=100)] | None = None
    pages: Annotated[StrictStr, Field(max_length=100)] | None = None
    doi: StrictStr | None = None
    pmid: StrictStr | None = None
    pmcid: StrictStr | None = None
    openalex_id: StrictStr | None = None
    arxiv_id: StrictStr | None = None
    arxiv_version: Annotated[StrictInt, Field(ge=1, le=999)] | None = None
    abstract: StrictStr | None = None
    keywords: tuple[ShortText, ...] = ()
    publication_types: tuple[ShortText, ...] = ()
    open_access: StrictBool | None = None
    retracted: StrictBool = False
    cited_by: Annotated[StrictInt, Field(ge=0)] | None = None
    source_url: StrictStr | None = None
    full_text_url: StrictStr | None = None
    licence: ShortText | None = None
    retrieved_at: StrictStr | None = None
    provider: ShortText | None = None
    abstract_source: AbstractSource | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        norm = normalize_source_id(v)
        if norm is None or not PRIMARY_ID_PATTERN.match(norm):
            raise ValueError(f"not a primary id: {v[:60]!r}")
        return norm

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        return _text(v, MAX_TITLE) or ""

    @field_validator("abstract")
    @classmethod
    def _abstract(cls, v: str | None) -> str | None:
        return _text(v, MAX_ABSTRACT)

    @field_validator("authors", "keywords", "publication_types")
    @classmethod
    def _names(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        out = tuple(c for c in (_text(x, 2_000) for x in v[:MAX_AUTHORS]) if c)
        return out

    @field_validator("doi")
    @classmethod
    def _doi(cls, v: str | None) -> str | None:
        return _identifier(v, normalize_doi, "DOI")

    @field_validator("pmid")
    @classmethod
    def _pmid(cls, v: str | None) -> str | None:
        return _identifier(v, normalize_pmid, "PMID")

    @field_validator("pmcid")
    @classmethod
    def _pmcid(cls, v: str | None) -> str | None:
        return _identifier(v, normalize_pmcid, "PMCID")

    @field_validator("openalex_id")
    @classmethod
    def _openalex(cls, v: str | None) -> str | None:
        return _identifier(v, normalize_openalex_id, "OpenAlex id")

    @field_validator("arxiv_id")
    @classmethod
    def _arxiv(cls, v: str | None) -> str | None:
        return _identifier(v, normalize_arxiv, "arXiv id")

    @field_validator("source_url", "full_text_url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        return safe_https_url(v)

    @field_validator("retrieved_at")
    @classmethod
    def _when(cls, v: str | None) -> str | None:
        if v is None:
            return None
        try:
            datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError(f"retrieved_at is not an ISO 8601 time: {v[:40]!r}") from exc
        return v

    def identifiers(self) -> dict[str, str]:
        """The paper's identifiers by namespace (only those it has)."""
        out = {"id": self.id}
        for name in ("doi", "pmid", "pmcid", "openalex_id", "arxiv_id"):
            value = getattr(self, name)
            if value:
                out[name] = value
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (None fields kept so the shape is stable)."""
        return self.model_dump(mode="json")


def _identifier(value: str | None, norm: Any, label: str) -> str | None:
    if value is None or value == "":
        return None
    out = norm(value)
    if out is None:
        raise ValueError(f"malformed {label}: {value[:80]!r}")
    return str(out)


def make_paper(
    *, source_id: str | None = None, fallback_key: str | None = None, **fields: Any
) -> Paper:
    """Build a Paper from parsed fields, deriving ``id`` when not given.

    ``source_id`` is a provider's own id (``PPR-…``) that ranks after PMID and PMCID;
    ``fallback_key`` (for example a raw record digest) names a paper with no identifier.
    Raises :class:`PaperError` when a field is invalid, and when the paper has neither an
    identifier (DOI, PMID, PMCID, arXiv, OpenAlex, ``source_id``) nor a ``fallback_key``
    (code ``paper_unkeyed``): such papers would otherwise share one id, and saving them
    would silently merge different studies into one.
    """
    return paper_from_fields(fields, source_id=source_id, fallback_key=fallback_key)


def paper_from_fields(
    fields: dict[str, Any], *, source_id: str | None = None, fallback_key: str | None = None
) -> Paper:
    """:func:`make_paper` of a dict the caller hands over (it may be changed)."""
    if fields.get("id"):
        try:
            return _fast_paper(fields)
        except _Slow:
            pass  # something unusual or invalid: pydantic decides (and words the error)
    else:
        fields.pop("id", None)
        try:
            return _fast_paper(fields, derive_id=True, source_id=source_id, fallback=fallback_key)
        except _Slow:
            pass
        key = primary_id(
            pmid=fields.get("pmid"),
            pmcid=fields.get("pmcid"),
            source_id=source_id,
            openalex_id=fields.get("openalex_id"),
            arxiv_id=fields.get("arxiv_id"),
            doi=fields.get("doi"),
            fallback=fallback_key,
        )
        if key is None:
            raise _unkeyed(fields)
        fields["id"] = key
    try:
        return Paper(**fields)
    except ValidationError as exc:
        raise PaperError(_summarise(exc), errors=_errors(exc)) from None


_UNKEYED_MESSAGE: Final = (
    "a paper needs an identifier (DOI, PMID, PMCID, arXiv, OpenAlex or provider id) "
    "or a fallback key naming the record it came from; it has neither"
)
# any valid primary id: lets pydantic report the fields' own errors first
_PLACEHOLDER_ID: Final = "REC-" + "0" * 24


def _unkeyed(fields: dict[str, Any]) -> PaperError:
    """The error for a paper with no identity: the fields' own errors when there are any
    (a malformed DOI is the thing to fix), else ``paper_unkeyed``."""
    try:
        Paper(**dict(fields, id=_PLACEHOLDER_ID))
    except ValidationError as exc:
        return PaperError(_summarise(exc), errors=_errors(exc))
    return PaperError(
        _UNKEYED_MESSAGE,
        code="paper_unkeyed",
        errors=[{"field": "id", "message": _UNKEYED_MESSAGE}],
    )


def read_paper(data: object) -> Paper:
    """Validate untrusted stored or recovered data as a Paper (raises :class:`PaperError`)."""
    if not isinstance(data, dict):
        raise PaperError("a stored paper must be an object")
    if data.get("version", 1) != PAPER_VERSION:
        raise PaperError(f"unknown paper version {data.get('version')!r}")
    if data.get("id"):
        try:  # the checks pydantic makes, without its per-field Python validator calls
            return _fast_paper(data)
        except _Slow:
            pass  # something unusual or invalid: pydantic decides (and words the error)
    try:
        return Paper.model_validate(data)
    except ValidationError as exc:
        raise PaperError(_summarise(exc), errors=_errors(exc)) from None


def _errors(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"field": ".".join(str(p) for p in e["loc"]), "message": str(e["msg"])[:200]}
        for e in exc.errors(include_input=False)
    ]


def _summarise(exc: ValidationError) -> str:
    parts = [f"{e['field']}: {e['message']}" for e in _errors(exc)[:5]]
    return "invalid paper: " + "; ".join(parts)


def same_paper(a: Paper, b: Paper) -> bool:
    """True when any identifier agrees (id, DOI, PMID, PMCID, OpenAlex, arXiv). Titles never do."""
    if a.id == b.id:
        return True
    return any(
        getattr(a, name) and getattr(a, name) == getattr(b, name)
        for name in ("doi", "pmid", "pmcid", "openalex_id", "arxiv_id")
    )


# --------------------------------------------------------------------------------------
# The fast construction path of make_paper.
#
# It checks and cleans every field exactly as the pydantic model does (strict types,
# whitespace stripped the way pydantic-core strips it, lengths, ranges, the same field
# validators), then builds the model with ``model_construct`` (no second validation).
# Anything it does not handle itself — a type other than the plain ones, a value pydantic
# would refuse — raises ``_Slow`` and make_paper hands the fields to pydantic, so errors
# (and their messages) always come from pydantic. tests/core/records/test_paper_fast.py
# checks the two paths agree on random inputs.

# The characters pydantic-core's ``str_strip_whitespace`` removes (Rust's ``str::trim``:
# Unicode White_Space). Python's ``str.strip()`` also removes \x1c-\x1f, so it cannot be used.
_TRIM: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)


# Short strings (names, journals, keywords, volumes) repeat across the papers of an import:
# like pydantic-core's string cache, the fast path keeps one object per distinct value.
# Interned strings are freed when no paper uses them any more.
_share = sys.intern


class _Slow(PaperError):
    """Internal: the fast path leaves these fields to pydantic (never escapes make_paper)."""


def _str(v: object) -> str:
    if type(v) is not str:
        raise _Slow("not a plain str")
    return v.strip(_TRIM)


def _f_version(v: object) -> object:
    if type(v) is int and v == PAPER_VERSION:
        return v
    raise _Slow("version")


def _f_id(v: object) -> str:
    norm = normalize_source_id(_str(v))
    if norm is None or not PRIMARY_ID_PATTERN.match(norm):
        raise _Slow("id")
    return norm


def _f_title(v: object) -> str:
    if type(v) is not str:
        raise _Slow("not a plain str")
    t = v.strip(_TRIM)  # then _text, inline
    t = (t if _no_control(t) else _CONTROL.sub("", t)).strip()
    return t if len(t) <= MAX_TITLE else t[:MAX_TITLE]


def _f_abstract(v: object) -> str | None:
    if v is None:
        return None
    if type(v) is not str:
        raise _Slow("not a plain str")
    t = v.strip(_TRIM)  # then _text, inline
    t = (t if _no_control(t) else _CONTROL.sub("", t)).strip()
    return (t if len(t) <= MAX_ABSTRACT else t[:MAX_ABSTRACT]) or None


def _f_names(v: object) -> tuple[str, ...]:
    if type(v) is not list and type(v) is not tuple:
        raise _Slow("not a list")
    if len(v) > 12:
        return _long_names(v)
    out = []
    for x in v:
        if type(x) is not str:
            raise _Slow("not a plain str")
        t = x.strip(_TRIM)
        if len(t) > 2_000:
            raise _Slow("too long")
        if not t.isprintable():  # the only printable character strip() removes is " "
            t = _CONTROL.sub("", t).strip()
        if t:
            out.append(_share(t))
    return tuple(out)


def _long_names(v: list[Any] | tuple[Any, ...]) -> tuple[str, ...]:
    """``_f_names`` for a long list: C-level passes over the items (same result)."""
    if set(map(type, v)) != _JUST_STR:
        raise _Slow("not a plain str")
    items = list(map(str.strip, v, repeat(_TRIM, len(v))))
    if max(map(len, items)) > 2_000:
        raise _Slow("too long")
    if len(items) > MAX_AUTHORS:  # _names: the first MAX_AUTHORS, cleaned, empty ones dropped
        del items[MAX_AUTHORS:]
    if "".join(items).isprintable():
        out = filter(None, items)
    else:
        out = filter(None, (_CONTROL.sub("", t).strip() for t in items))
    return tuple(map(_share, out))


_JUST_STR: Final = {str}


def _short(limit: int) -> Any:
    def check(v: object) -> str | None:
        if v is None:
            return None
        if type(v) is not str:
            raise _Slow("not a plain str")
        t = v.strip(_TRIM)
        if len(t) > limit:
            raise _Slow("too long")
        return _share(t)

    return check


def _ident(norm: Any) -> Any:
    def check(v: object) -> str | None:
        if v is None:
            return None
        t = _str(v)
        if t == "":
            return None
        out = norm(t)
        if out is None:
            raise _Slow("identifier")
        return str(out)

    return check


_f_doi: Final[Callable[[object], str | None]] = _ident(normalize_doi)


def _int(low: int, high: int | None) -> Any:
    def check(v: object) -> int | None:
        if v is None:
            return None
        if type(v) is not int or v < low or (high is not None and v > high):
            raise _Slow("int")
        return v

    return check


def _f_bool_or_none(v: object) -> bool | None:
    if v is None or type(v) is bool:
        return v
    raise _Slow("bool")


def _f_bool(v: object) -> bool:
    if type(v) is bool:
        return v
    raise _Slow("bool")


def _f_url(v: object) -> str | None:
    return None if v is None else safe_https_url(_str(v))


def _f_when(v: object) -> str | None:
    if v is None:
        return None
    t = _str(v)
    try:
        datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise _Slow("time") from None
    return t


def _f_abstract_source(v: object) -> object:
    if v is None or type(v) is AbstractSource:
        return v  # pydantic does not re-validate a model instance either
    if type(v) is dict:  # a stored paper's (read_paper): the model validates it as Paper would
        try:
            return AbstractSource.model_validate(v)
        except ValidationError:
            raise _Slow("abstract_source") from None
    raise _Slow("abstract_source")


_FAST: Final[dict[str, Any]] = {
    "version": _f_version,
    "id": _f_id,
    "title": _f_title,
    "authors": _f_names,
    "journal": _short(2_000),
    "year": _int(1000, 2999),
    "volume": _short(100),
    "issue": _short(100),
    "pages": _short(100),
    "doi": _f_doi,
    "pmid": _ident(normalize_pmid),
    "pmcid": _ident(normalize_pmcid),
    "openalex_id": _ident(normalize_openalex_id),
    "arxiv_id": _ident(normalize_arxiv),
    "arxiv_version": _int(1, 999),
    "abstract": _f_abstract,
    "keywords": _f_names,
    "publication_types": _f_names,
    "open_access": _f_bool_or_none,
    "retracted": _f_bool,
    "cited_by": _int(0, None),
    "source_url": _f_url,
    "full_text_url": _f_url,
    "licence": _short(2_000),
    "retrieved_at": _f_when,
    "provider": _short(2_000),
    "abstract_source": _f_abstract_source,
}
# every field in the model's order (so repr and dumps match); ``id`` is always given
_DEFAULTS: Final[dict[str, Any]] = {
    name: None if info.is_required() else info.default for name, info in Paper.model_fields.items()
}
if set(_FAST) != set(Paper.model_fields):  # a new field must get a fast check too
    raise AssertionError("make_paper's fast path does not cover every Paper field")


def _fast_paper(
    fields: dict[str, Any],
    *,
    derive_id: bool = False,
    source_id: str | None = None,
    fallback: str | None = None,
) -> Paper:
    """The Paper pydantic would build from ``fields``; ``_Slow`` when pydantic must decide.

    With ``derive_id`` (make_paper without an id) the id is :func:`primary_id` of the
    checked identifiers — the same id, since the normalisers are idempotent and each checked
    identifier is its normaliser's output.
    """
    values = dict(_DEFAULTS)
    fast = _FAST
    for name, value in fields.items():
        check = fast.get(name)
        if check is None:
            raise _Slow("unknown field")
        values[name] = check(value)
    if derive_id:
        key = _derived_id(values, source_id, fallback)
        if key is None:
            raise _Slow("no identifier and no fallback key")  # the slow path words the error
        values["id"] = key
        shape = (*fields, "id")
    elif "id" not in fields:
        raise _Slow("id missing")
    else:
        shape = tuple(fields)
    # what Paper.model_construct does, without its per-field default lookups
    paper = _new(Paper)
    _set(paper, "__dict__", values)
    _set(paper, "__pydantic_fields_set__", _fields_set(shape))
    _set(paper, "__pydantic_extra__", None)
    _set(paper, "__pydantic_private__", None)
    return paper


def _derived_id(values: dict[str, Any], source_id: str | None, fallback: str | None) -> str | None:
    """:func:`primary_id` of checked (normalised) identifiers, without normalising again."""
    if values["pmid"]:
        return _f_id("MED-" + values["pmid"])
    if values["pmcid"]:
        return _f_id("PMC-" + values["pmcid"])
    if source_id and (s := normalize_source_id(source_id)):
        return _f_id(s)
    if values["openalex_id"]:
        return _f_id("OAX-" + values["openalex_id"])
    if values["arxiv_id"]:
        return _f_id("ARX-" + values["arxiv_id"].upper().replace("/", "_"))
    # "<source>-" and 24 upper-case hex digits: a primary id as it stands
    if values["doi"]:
        return "DOI-" + _hash_accession(values["doi"])
    return fallback_id(fallback)


# One fields set per shape (the names given): a Paper is frozen, pydantic copies the set
# before changing a copy's (model_copy), and litdesk never changes one in place — so the
# papers of an import share a handful of sets instead of one each (memory, and objects
# the garbage collector walks). Bounded: past the bound, shapes get their own set.
_SHAPES: dict[tuple[str, ...], set[str]] = {}
_MAX_SHAPES: Final = 4096


def _fields_set(shape: tuple[str, ...]) -> set[str]:
    shared = _SHAPES.get(shape)
    if shared is None:
        shared = set(shape)
        if len(_SHAPES) < _MAX_SHAPES:
            _SHAPES[shape] = shared
    return shared


_new = object.__new__
_set = object.__setattr__
