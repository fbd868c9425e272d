"""Shared pieces of the provider response parsers: the typed errors, safe JSON and XML
loading, markup-to-text, defensive field access and a Paper builder that keeps a record
with a malformed identifier (the identifier is dropped with a notice)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

from litdesk._errors import ExternalError
from litdesk.core.imports import digest_bytes
from litdesk.core.records import (
    Paper,
    PaperError,
    make_paper,
    normalize_arxiv,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    normalize_source_id,
)
from litdesk.core.search import ProviderPage

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CURSOR_CHARS",
    "Builder",
    "ProviderParseError",
    "ProviderReportedError",
    "as_bool",
    "as_dict",
    "as_int",
    "as_list",
    "as_str",
    "build_paper",
    "child",
    "children",
    "descendants",
    "drop_heading",
    "guarded",
    "load_json",
    "load_xml",
    "local",
    "one_line",
    "plain_text",
    "text_of",
    "xml_text",
    "year_of",
]

#: The largest body a parser reads (the transport's own limit is lower).
MAX_BODY_BYTES: Final = 32 * 1024 * 1024
#: Longest next-cursor kept (a longer one is dropped with a warning).
MAX_CURSOR_CHARS: Final = 4_096
MAX_REASON: Final = 200


class ProviderParseError(ExternalError):
    """A provider body does not match its parser. Carries the provider, a short reason
    and the sha256 digest of the body, never the body itself."""

    default_code = "parse_error"

    def __init__(self, provider: str, reason: str, body: bytes | None = None) -> None:
        reason = _bounded(reason)
        digest = digest_bytes(body) if body is not None else None
        super().__init__(f"{provider}: {reason}", provider=provider, reason=reason, digest=digest)
        self.provider = provider
        self.reason = reason
        self.digest = digest


class ProviderReportedError(ProviderParseError):
    """A 200 body that is the provider's own error report (PubMed ``ERROR``/``ErrorList``,
    an arXiv error entry): the search did not run as asked."""

    default_code = "provider_error"


def _bounded(text: str) -> str:
    text = re.sub(r"[\x00-\x1f\x7f]+", " ", text).strip()
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def guarded(provider: str, parse: Callable[[bytes], ProviderPage], body: bytes) -> ProviderPage:
    """Run ``parse`` so that only :class:`ProviderParseError` escapes it."""
    if not isinstance(body, (bytes, bytearray)):
        raise ProviderParseError(provider, "body is not bytes")
    body = bytes(body)
    if len(body) > MAX_BODY_BYTES:
        raise ProviderParseError(provider, f"body over {MAX_BODY_BYTES} bytes", body)
    try:
        return parse(body)
    except ProviderParseError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise ProviderParseError(
            provider, f"unexpected structure ({type(exc).__name__})", body
        ) from None


# --------------------------------------------------------------------------- loading


def _decode(provider: str, body: bytes) -> str:
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProviderParseError(provider, "body is not UTF-8", body) from None


def load_json(provider: str, body: bytes) -> Any:
    """Parse a JSON body (UTF-8, no NaN/Infinity, bounded nesting) or raise."""
    text = _decode(provider, body)
    if not text.strip():
        raise ProviderParseError(provider, "empty body", body)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ProviderParseError(provider, f"not JSON ({type(exc).__name__})", body) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"JSON constant {name} refused")


_DOCTYPE = re.compile(rb"<!DOCTYPE\b", re.IGNORECASE)
_ENTITY = re.compile(rb"<!ENTITY\b", re.IGNORECASE)


def _internal_subset(body: bytes) -> bool:
    """True when the first DOCTYPE opens an internal subset (``[`` before its ``>``).
    Only the first one is looked at, so hostile input stays linear; a second DOCTYPE is
    not well-formed and the parser refuses it."""
    m = _DOCTYPE.search(body)
    if m is None:
        return False
    end = body.find(b">", m.end())
    head = body[m.end() :] if end < 0 else body[m.end() : end]
    return b"[" in head


def load_xml(provider: str, body: bytes) -> etree._Element:
    """Parse XML without entities, DTD loading or network; DOCTYPE internal subsets and
    ENTITY declarations are refused."""
    if not body.strip():
        raise ProviderParseError(provider, "empty body", body)
    if _internal_subset(body) or _ENTITY.search(body):
        raise ProviderParseError(
            provider, "XML with a DOCTYPE internal subset or ENTITY refused", body
        )
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=False,
    )
    try:
        root = etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise ProviderParseError(
            provider, f"not well-formed XML ({type(exc).__name__})", body
        ) from None
    if root is None:
        raise ProviderParseError(provider, "no XML root", body)
    return root


# --------------------------------------------------------------------------- values


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def as_str(value: object) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        s = value.strip().replace(",", "")
        if s.isascii() and s.isdigit() and len(s) < 19:
            return int(s)
    return None


def as_bool(value: object) -> bool | None:
    """JSON booleans and the provider string flags ``Y``/``N``, ``true``/``false``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low in {"y", "yes", "true", "1"}:
            return True
        if low in {"n", "no", "false", "0"}:
            return False
    return None


_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|2[0-9]{3})(?!\d)")


def year_of(value: object) -> int | None:
    """A year 1000-2999 from an int or the first four-digit year in a string."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1000 <= value <= 2999 else None
    if isinstance(value, str):
        m = _YEAR.search(value[:200])
        return int(m.group(1)) if m else None
    return None


# --------------------------------------------------------------------------- text

_BLOCK_END = re.compile(
    r"</(?:[a-z]+:)?(?:p|h[1-6]|title|sec|div|li)\s*>|<br\s*/?>|<h[1-6](?:\s[^<>]{0,200})?>",
    re.IGNORECASE,
)
_TAG = re.compile(r"<[^<>]{0,2000}>")
_INLINE = re.compile(
    r"</?(?:i|b|em|strong|sup|sub|u|span|p|a|sc|italic|bold|h[1-6]|jats:[a-z-]+|mml:[a-z]+)"
    r"(?:\s[^<>]{0,500})?/?>",
    re.IGNORECASE,
)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANKS = re.compile(r"(?<!\s)\s*\n\s*\n\s*")


def plain_text(markup: object, *, limit: int = 200_000) -> str | None:
    """Provider markup (HTML or JATS in a string) to plain text: closing block tags become
    blank lines, other tags are stripped, entities decoded. Nothing stays as markup."""
    if not isinstance(markup, str):
        return None
    s = markup[: limit * 2]
    s = _BLOCK_END.sub("\n\n", s)
    s = _strip(_TAG, s)
    s = html.unescape(s)
    if "<" in s:  # double-encoded inline markup (``&lt;i&gt;``) is stripped too
        s = _BLOCK_END.sub("\n\n", s)
        s = _strip(_INLINE, s)
    return _tidy(s, limit)


def _strip(pattern: re.Pattern[str], s: str) -> str:
    """Remove matches until none is left (``<<p>p>`` leaves no ``<p>``), bounded."""
    for _ in range(8):
        s, n = pattern.subn("", s)
        if not n:
            break
    return s


def _tidy(s: str, limit: int) -> str | None:
    s = _SPACES.sub(" ", s.replace("\u00a0", " "))
    paragraphs = [" ".join(p.split()) for p in _BLANKS.split(s)]
    out = "\n\n".join(p for p in paragraphs if p)
    return out[:limit] or None


def drop_heading(text: str | None) -> str | None:
    """An abstract without its own leading "Abstract"/"Summary" heading paragraph."""
    if not text:
        return text
    first, _, rest = text.partition("\n\n")
    if rest and first.strip().rstrip(":").lower() in {"abstract", "summary"}:
        return rest
    return text


def one_line(value: object, *, limit: int = 4_000) -> str | None:
    text = plain_text(value, limit=limit * 2)
    return " ".join(text.split())[:limit] or None if text else None


def local(el: etree._Element) -> str:
    """An element's local name (no namespace); '' for comments and PIs."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


_MATH = "math"
_BLOCK_ELEMENTS = frozenset({"p", "title", "sec", "AbstractText", "list-item", "label"})


def xml_text(
    el: etree._Element | None, *, limit: int = 200_000, blocks: bool = False
) -> str | None:
    """Readable text of an element with inline markup (``<i>``, ``<sub>``, MathML):
    MathML is joined without spaces (``V̇O2max`` reads as ``V.O2max``), other inline
    tags are dropped, and with ``blocks`` paragraphs and titles become blank lines."""
    if el is None:
        return None
    parts: list[str] = []
    _walk(el, parts, blocks)
    return _tidy("".join(parts), limit)


def _walk(el: etree._Element, parts: list[str], blocks: bool) -> None:
    name = local(el)
    if name == _MATH:
        parts.append("".join(str(t).strip() for t in el.itertext()))
    elif name in {"xref", "fn", "table-wrap", "fig"} and blocks:
        # Reference markers stay as their text; figures and tables are not prose.
        if name == "xref" and el.text:
            parts.append(el.text)
    else:
        if el.text and name:
            parts.append(el.text)
        for child in el:
            _walk(child, parts, blocks)
            if child.tail:
                parts.append(child.tail)
        if blocks and name in _BLOCK_ELEMENTS:
            parts.append("\n\n")
    if name == "title" and blocks:
        parts.append("\n\n")


def child(el: etree._Element | None, *names: str) -> etree._Element | None:
    """The first descendant path ``names`` (local names, any namespace)."""
    cur = el
    for name in names:
        if cur is None:
            return None
        cur = next((c for c in cur if local(c) == name), None)
    return cur


def children(el: etree._Element | None, name: str) -> list[etree._Element]:
    if el is None:
        return []
    return [c for c in el if local(c) == name]


def text_of(el: etree._Element | None, *names: str) -> str | None:
    target = child(el, *names) if names else el
    if target is None:
        return None
    return xml_text(target, limit=4_000)


def descendants(el: etree._Element, name: str) -> Iterable[etree._Element]:
    for d in el.iter():
        if local(d) == name:
            yield d


# --------------------------------------------------------------------------- papers

_IDENTIFIERS: Final[dict[str, tuple[Callable[[object], str | None], str]]] = {
    "doi": (normalize_doi, "DOI"),
    "pmid": (normalize_pmid, "PMID"),
    "pmcid": (normalize_pmcid, "PMCID"),
    "openalex_id": (normalize_openalex_id, "OpenAlex id"),
    "arxiv_id": (normalize_arxiv, "arXiv id"),
}
_SHORT = {"journal": 2_000, "licence": 2_000, "provider": 100}
_TINY = ("volume", "issue", "pages")


def _show(value: object) -> str:
    text = str(value)
    text = re.sub(r"[\x00-\x1f\x7f]", "", text)
    return repr(text[:60] + ("…" if len(text) > 60 else ""))


@dataclass(slots=True)
class Builder:
    """Collects papers in provider order with their per-record notices."""

    provider: str
    papers: list[Paper] = field(default_factory=list)
    notices: dict[int, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    kinds: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    seen: int = 0

    def add(
        self, fields: dict[str, Any], *, source_id: str | None = None, fallback: str
    ) -> Paper | None:
        self.seen += 1
        paper, notes = build_paper(fields, source_id=source_id, fallback=fallback)
        if paper is None:
            self.skip("; ".join(m for _, m in notes))
            return None
        if notes:
            self.notices[len(self.papers)] = [m for _, m in notes]
            self.kinds[len(self.papers)] = notes
        self.papers.append(paper)
        return paper

    def skip(self, reason: str) -> None:
        """Record that the current record could not be kept (page warning)."""
        self.warnings.append(f"record {self.seen} skipped: {reason}")

    def page(self, total: int | None = None, next_cursor: str | None = None) -> ProviderPage:
        if next_cursor is not None and len(next_cursor) > MAX_CURSOR_CHARS:
            self.warnings.append(f"next cursor over {MAX_CURSOR_CHARS} characters dropped")
            next_cursor = None
        if total is not None and total < 0:
            total = None
        return ProviderPage(
            papers=self.papers,
            total=total,
            next_cursor=next_cursor,
            warnings=self.warnings,
            notices=self.notices,
        )


def build_paper(
    fields: dict[str, Any], *, source_id: str | None, fallback: str
) -> tuple[Paper | None, list[tuple[str, str]]]:
    """A Paper from parsed fields; malformed identifiers and invalid fields are dropped
    with a notice ``(kind, message)`` instead of losing the record."""
    notes: list[tuple[str, str]] = []
    clean: dict[str, Any] = {}
    for key, value in fields.items():
        if value is None or value in ("", ()):
            continue
        if key in _IDENTIFIERS:
            norm, label = _IDENTIFIERS[key]
            if not isinstance(value, str) or norm(value) is None:
                notes.append(("malformed_identifier", f"malformed {label} dropped: {_show(value)}"))
                continue
        elif key == "year":
            if not isinstance(value, int) or not 1000 <= value <= 2999:
                notes.append(("dropped_field", f"year dropped: {_show(value)}"))
                continue
        elif key == "cited_by":
            if not isinstance(value, int) or value < 0:
                notes.append(("dropped_field", f"citation count dropped: {_show(value)}"))
                continue
        elif key in _SHORT and isinstance(value, str):
            value = value[: _SHORT[key]]
        elif key in _TINY:
            if not isinstance(value, str) or len(value) > 100:
                notes.append(("dropped_field", f"{key} dropped: {_show(value)}"))
                continue
        elif key in {"authors", "keywords", "publication_types"}:
            value = tuple(str(v)[:2_000] for v in value if isinstance(v, str) and v.strip())
        clean[key] = value
    if source_id is not None and normalize_source_id(source_id) is None:
        notes.append(("malformed_identifier", f"malformed source id dropped: {_show(source_id)}"))
        source_id = None
    for _ in range(4):
        try:
            return make_paper(source_id=source_id, fallback_key=fallback, **clean), notes
        except PaperError as exc:
            bad = {str(e.get("field", "")).split(".")[0] for e in exc.details.get("errors", [])}
            bad.discard("")
            bad.discard("id")
            if not bad or not bad.issubset(clean):
                notes.append(("other", f"record not usable: {exc.message[:160]}"))
                return None, notes
            for name in sorted(bad):
                notes.append(("dropped_field", f"{name} dropped: {_show(clean.pop(name))}"))
    return None, notes
