"""JATS full text → licence-gated paragraph blocks (pure; lxml on bytes, no I/O).

The parser is defensive first: it refuses entity declarations and DOCTYPEs with an
internal subset before lxml sees the document, and lxml itself runs with no network,
no DTD loading, no entity resolution and no huge-tree mode. Size (characters) and
depth are bounded. A document that passes is checked for identity (its own PMCIDs
must include the expected one), then for its reuse licence: only CC BY, CC BY-SA,
CC0 and the Public Domain Mark, identified by URL, are readable.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Final

from lxml import etree

from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk.core.records import normalize_doi, normalize_pmcid

__all__ = [
    "MAX_BLOCKS",
    "MAX_BLOCK_CHARS_TOTAL",
    "MAX_DEPTH",
    "MAX_XML_CHARS",
    "SECTION_SEPARATOR",
    "Block",
    "FullText",
    "FullTextMalformed",
    "FullTextNoBody",
    "FullTextRefused",
    "FullTextWrongPaper",
    "licence_from_url",
    "parse_fulltext",
    "readable_licence_url",
]

MAX_XML_CHARS: Final = 4_000_000
MAX_DEPTH: Final = 80
MAX_BLOCKS: Final = 600
MAX_BLOCK_CHARS_TOTAL: Final = 240_000
MAX_TITLE_CHARS: Final = 2_000
MAX_LICENCE_TEXT: Final = 500
SECTION_SEPARATOR: Final = " › "

#: Elements whose whole subtree is never shown (tables, figures, formulas, references…).
_SKIP: Final = frozenset(
    {
        "ref-list",
        "table-wrap",
        "table-wrap-group",
        "fig",
        "fig-group",
        "supplementary-material",
        "disp-formula",
        "disp-formula-group",
        "inline-formula",
        "tex-math",
        "math",
        "script",
        "style",
        "inline-graphic",
        "graphic",
        "media",
        "floats-group",
    }
)
_READABLE: Final = re.compile(
    r"^https?://(?:www\.)?creativecommons\.org/"
    r"(?:licenses/(?:by|by-sa)(?:/|$)|publicdomain/(?:zero|mark)(?:/|$))",
    re.IGNORECASE,
)
_CC_URL: Final = re.compile(
    r"https?://(?:www\.)?creativecommons\.org/(?:licenses|publicdomain)/[A-Za-z0-9./_-]*",
    re.IGNORECASE,
)
_CC_PARTS: Final = re.compile(
    r"^https?://(?:www\.)?creativecommons\.org/(licenses|publicdomain)/([a-z-]+)(?:/([0-9.]+))?",
    re.IGNORECASE,
)
_ANY_URL: Final = re.compile(r"^https?://[^\s<>\"']+$", re.IGNORECASE)
_XML_DECL: Final = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]{1,40})[\"']")
_XML_DECL_TEXT: Final = re.compile(r"^\s*<\?xml[^>]*\?>")
_XLINK_HREF: Final = "{http://www.w3.org/1999/xlink}href"


class FullTextMalformed(InputError):
    """The document is not well-formed JATS (or not JATS at all)."""

    default_code = "malformed"


class FullTextRefused(RefusedError):
    """The document is refused on a safety rule: entities, internal DTD subsets, size, depth."""

    default_code = "unsafe_xml"


class FullTextWrongPaper(RefusedError):
    """The document's own PMCIDs do not include the one it was fetched or named for."""

    default_code = "pmcid_mismatch"


class FullTextNoBody(NotFoundError):
    """The article has no body text (only front matter and perhaps an abstract)."""

    default_code = "no_body"


@dataclass(frozen=True, slots=True)
class Block:
    """One paragraph: ``id`` (p1, p2, …), its section path and its text (whitespace collapsed)."""

    id: str
    section: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "section": self.section, "text": self.text}


@dataclass(frozen=True, slots=True)
class FullText:
    """A parsed, licence-gated article. ``blocks`` is empty unless ``readable``."""

    pmcid: str | None
    title: str
    licence: str | None
    licence_url: str | None
    readable: bool
    reason: str | None
    source_url: str | None
    blocks: tuple[Block, ...]
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pmcid": self.pmcid,
            "title": self.title,
            "licence": self.licence,
            "licence_url": self.licence_url,
            "readable": self.readable,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        out["blocks"] = [b.to_dict() for b in self.blocks] if self.readable else []
        out["truncated"] = self.truncated
        return out


# --- safety -----------------------------------------------------------------------------


#: XML 1.0 appendix F: the first bytes of a document without a byte-order mark.
_SNIFF: Final = (
    (b"\x00\x00\x00\x3c", "utf-32-be"),
    (b"\x3c\x00\x00\x00", "utf-32-le"),
    (b"\x00\x3c\x00", "utf-16-be"),
    (b"\x3c\x00", "utf-16-le"),
)
_BOMS: Final = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)
#: Encodings whose first 128 code points are ASCII (a declaration naming another is refused).
_ASCII_FAMILY: Final = re.compile(
    r"^(?:utf-?8|us-ascii|ascii|iso-?8859-\d{1,2}|latin-?1|windows-125\d|cp125\d)$"
)


def _sniff(raw: bytes) -> tuple[str, int, bool]:
    """(encoding, bytes of BOM, from the bytes) by the XML encoding rules (appendix F)."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return codec, len(bom), True
    for head, codec in _SNIFF:
        if raw.startswith(head):
            return codec, 0, True
    # leading white space before "<" in UTF-16/32: the NUL pattern of the first bytes
    head = raw[:4]
    if len(head) == 4 and head.count(0) == 3:
        return ("utf-32-be" if head[3] else "utf-32-le"), 0, True
    if len(head) == 4 and head[0] == 0 and head[2] == 0 and head[1] and head[3]:
        return "utf-16-be", 0, True
    if len(head) == 4 and head[1] == 0 and head[3] == 0 and head[0] and head[2]:
        return "utf-16-le", 0, True
    return "utf-8", 0, False


def _decode(xml: bytes) -> str:
    """The document's text, decoded by the XML encoding rules: a byte-order mark, the
    UTF-16/32 pattern of the first bytes, else the declaration's ``encoding`` (an
    ASCII-compatible one) or UTF-8. A NUL in the text is refused (never XML)."""
    if not isinstance(xml, (bytes, bytearray)):
        raise FullTextMalformed("full text must be bytes")
    if len(xml) > MAX_XML_CHARS * 4:
        raise FullTextRefused(
            f"the document is larger than {MAX_XML_CHARS:,} characters", code="too_large"
        )
    raw = bytes(xml)
    encoding, skip, sniffed = _sniff(raw)
    if not sniffed and (m := _XML_DECL.match(raw)):
        declared = m.group(1).decode("ascii").lower()
        if not _ASCII_FAMILY.match(declared):
            raise FullTextMalformed(
                f"the declared encoding {declared!r} does not match the document's bytes",
                code="undecodable",
            )
        encoding = declared
    try:
        text = raw[skip:].decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        raise FullTextMalformed(
            f"the document cannot be decoded as {encoding}", code="undecodable"
        ) from exc
    text = text.lstrip("\ufeff")
    if "\x00" in text:
        raise FullTextMalformed(
            f"the document holds NUL characters after decoding as {encoding}", code="undecodable"
        )
    return text


def _prolog_doctype(text: str) -> int:
    """Where the DOCTYPE of the prolog starts (after white space, comments and PIs), or -1."""
    pos, n = 0, len(text)
    while pos < n:
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if text.startswith("<!--", pos):
            end = text.find("-->", pos + 4)
            pos = n if end < 0 else end + 3
        elif text.startswith("<?", pos):
            end = text.find("?>", pos + 2)
            pos = n if end < 0 else end + 2
        elif _DOCTYPE.match(text, pos):
            return pos
        else:
            return -1
    return -1


_DOCTYPE: Final = re.compile(r"<!\s*DOCTYPE", re.IGNORECASE)


def _check_declarations(text: str) -> None:
    if re.search(r"<!\s*ENTITY", text, re.IGNORECASE):
        raise FullTextRefused("the document declares entities (<!ENTITY); refused", code="entity")
    # The DOCTYPE of the prolog (after any comments and PIs) is the only one that can be a
    # declaration (another is a syntax error the parser refuses); the first one in the
    # text may be a decoy inside a comment. Both are scanned (each up to its ``>``).
    starts = {_prolog_doctype(text)}
    if (first := _DOCTYPE.search(text)) is not None:
        starts.add(first.start())
    for start in sorted(starts - {-1}):
        quote = ""
        for ch in itertools.islice(text, start + 2, None):
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "[":
                raise FullTextRefused(
                    "the document has a DOCTYPE with an internal subset; refused",
                    code="internal_subset",
                )
            elif ch == ">":
                break


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        encoding="utf-8",  # the text checked, re-encoded: lxml must not sniff it again
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_pis=True,
        remove_comments=True,
        recover=False,
    )


def _check_tree(root: Any) -> None:
    """The parsed tree holds no internal DTD subset and no entity declaration (a reference
    to an undeclared entity stays an unexpanded node, dropped from the text)."""
    docinfo = root.getroottree().docinfo
    dtd = docinfo.internalDTD
    if dtd is not None:
        if any(True for _ in dtd.entities()):
            raise FullTextRefused(
                "the document declares entities (<!ENTITY); refused", code="entity"
            )
        if any(True for _ in dtd.iterelements()):
            raise FullTextRefused(
                "the document has a DOCTYPE with an internal subset; refused",
                code="internal_subset",
            )


def _parse_tree(xml: bytes) -> Any:
    text = _decode(xml)
    if len(text) > MAX_XML_CHARS:
        raise FullTextRefused(
            f"the document is larger than {MAX_XML_CHARS:,} characters", code="too_large"
        )
    _check_declarations(text)
    body = _XML_DECL_TEXT.sub("", text, count=1)
    try:
        root = etree.fromstring(body.encode("utf-8"), _parser())
    except etree.XMLSyntaxError as exc:
        raise FullTextMalformed(f"the document is not well-formed XML: {exc.msg}") from None
    if root is None:
        raise FullTextMalformed("the document is empty")
    _check_tree(root)
    _check_depth(root)
    return root


def _check_depth(root: Any) -> None:
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise FullTextRefused(
                f"the document nests deeper than {MAX_DEPTH} elements", code="too_deep"
            )
        stack.extend((child, depth + 1) for child in el)


# --- helpers ------------------------------------------------------------------------------


def _local(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1] if tag.startswith("{") else tag.split(":")[-1]


def _children(el: Any, name: str) -> list[Any]:
    return [c for c in el if _local(c) == name]


def _descendants(el: Any, name: str) -> list[Any]:
    return [d for d in el.iter() if _local(d) == name]


def _collapse(text: str) -> str:
    return " ".join(text.split())


#: MathML elements written as their own characters; invisible operators are dropped
_MATH_LEAVES: Final = frozenset({"mi", "mn", "mo", "mtext", "ms"})
_INVISIBLE: Final = dict.fromkeys(map(ord, "\u2061\u2062\u2063\u2064"))


def _math_text(el: Any) -> str:
    """A MathML expression as plain text (``M = 4.64``, ``t(204) = 12.39``, ``[4.56, ∞]``):
    its characters in order, with the fences, scripts and fractions MathML draws."""
    name = _local(el)
    if name in _MATH_LEAVES:
        return (el.text or "").translate(_INVISIBLE).strip()
    if name in ("annotation", "annotation-xml", "none", "mprescripts"):
        return ""
    kids = [_math_text(c) for c in el]
    if name == "semantics":
        return kids[0] if kids else ""
    if name == "mfenced":
        seps = (el.get("separators", ",") or "").strip()
        inner = f"{seps[0]} ".join(kids) if seps else "".join(kids)
        return f"{el.get('open', '(')}{inner}{el.get('close', ')')}"
    if name in ("msup", "mover") and len(kids) == 2:
        return f"{kids[0]}^{kids[1]}"
    if name in ("msub", "munder") and len(kids) == 2:
        return f"{kids[0]}_{kids[1]}"
    if name in ("msubsup", "munderover") and len(kids) == 3:
        return f"{kids[0]}_{kids[1]}^{kids[2]}"
    if name == "mfrac" and len(kids) == 2:
        return f"{kids[0]}/{kids[1]}"
    if name == "msqrt":
        return f"√({''.join(kids)})"
    if name == "mroot" and len(kids) == 2:
        return f"{kids[1]}√({kids[0]})"
    # pieces joined once at the end (an expression of many operators is built in linear
    # time); no piece is blank, so the last one is the text's end
    out: list[str] = []
    for k in kids:  # a relation stands apart ("M = 4.64"), a sign before a number does not
        if not k.strip():
            continue
        if k in _SPACED and out and not out[-1].rstrip().endswith(_OPENS):
            out[-1] = out[-1].rstrip()
            out.append(f" {k} ")
        elif k == ",":
            if out:
                out[-1] = out[-1].rstrip()
            out.append(", ")
        else:
            out.append(k)
    return "".join(out)


#: operators written with a space on each side (unless they start the expression or
#: follow an opening fence or another operator: a sign)
_SPACED: Final = frozenset({"=", "<", ">", "≤", "≥", "≠", "≈", "±", "×", "−", "+", "→"})
_OPENS: Final = ("(", "[", "{", ",", *_SPACED)


def _formula_text(el: Any) -> str:
    """An inline formula's text: its MathML, else its TeX source, else its own text (an
    inline formula used to be dropped, leaving "M = 4.64, t(204) = 12.39" as ", ,")."""
    maths = [d for d in el.iter() if _local(d) == "math"]
    if maths:
        return _collapse(_math_text(maths[0]))
    for tex in _descendants(el, "tex-math"):
        source = _collapse("".join(tex.itertext()))
        return source.strip("$").strip()
    return _collapse("".join(el.itertext()))


def _text(el: Any, *, stop: frozenset[str] = frozenset()) -> str:
    """The element's text, skipping the subtrees of ``_SKIP`` and ``stop`` elements; an
    inline formula (or bare inline MathML) is written as its text."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            name = _local(child)
            if name == "inline-formula" or (name == "math" and child.get("display") != "block"):
                parts.append(_formula_text(child))
            elif name and name not in _SKIP and name not in stop:
                walk(child)
            elif name in stop:
                parts.append(" ")
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return _collapse("".join(parts))


def _find_article(root: Any) -> Any:
    if _local(root) == "article":
        return root
    for el in root.iter():
        if _local(el) == "article":
            return el
    raise FullTextMalformed("the document has no <article> element (not JATS)")


def _article_meta(article: Any) -> Any | None:
    for front in _children(article, "front"):
        for meta in _children(front, "article-meta"):
            return meta
    return None


# --- identity -----------------------------------------------------------------------------


def _own_pmcids(meta: Any | None) -> list[str]:
    if meta is None:
        return []
    out: list[str] = []
    for el in _children(meta, "article-id"):
        if (el.get("pub-id-type") or "").strip().lower() in {"pmc", "pmcid"}:
            pmcid = normalize_pmcid("".join(el.itertext()))
            if pmcid and pmcid not in out:
                out.append(pmcid)
    return out


def _own_doi(meta: Any | None) -> str | None:
    if meta is None:
        return None
    for el in _children(meta, "article-id"):
        if (el.get("pub-id-type") or "").strip().lower() == "doi":
            doi = normalize_doi("".join(el.itertext()))
            if doi:
                return doi
    return None


# --- licence ------------------------------------------------------------------------------


def readable_licence_url(url: str | None) -> bool:
    """Whether ``url`` names CC BY, CC BY-SA, CC0 or the Public Domain Mark."""
    return bool(url) and bool(_READABLE.match(url or ""))


def licence_from_url(url: str) -> str | None:
    """A short name for a Creative Commons URL (``CC BY-NC 4.0``, ``CC0 1.0``) or ``None``."""
    m = _CC_PARTS.match(url.strip())
    if not m:
        return None
    kind, code, version = m.group(1).lower(), m.group(2).lower().strip("-"), m.group(3)
    if kind == "publicdomain":
        name = {"zero": "CC0", "mark": "Public Domain Mark"}.get(code)
    else:
        name = "CC " + code.upper() if code else None
    if name is None:
        return None
    return f"{name} {version.strip('.')}" if version and version.strip(".") else name


def _with_scheme(url: str) -> str:
    """``creativecommons.org/…`` and ``www.creativecommons.org/…`` written without a scheme."""
    if url.lower().startswith(("creativecommons.org/", "www.creativecommons.org/")):
        return "https://" + url
    return url


def _licence(meta: Any | None) -> tuple[str | None, str | None, bool]:
    """``(licence URL, licence text, has a licence element)``.

    The URL is the first Creative Commons URL taken, in order, from ``license/@xlink:href``,
    ``ali:license_ref``, an ``ext-link`` inside the licence, then a creativecommons.org URL
    in the licence text; failing that, the first other URL in those places (not readable).
    """
    if meta is None:
        return None, None, False
    licences: list[Any] = []
    for perm in _children(meta, "permissions"):
        licences.extend(_descendants(perm, "license"))
    if not licences:
        return None, None, False
    text = _collapse(" ".join(_text(lic) for lic in licences)) or None
    candidates: list[str] = []
    for lic in licences:
        for attr in (_XLINK_HREF, "href"):
            if v := lic.get(attr):
                candidates.append(v)
    for lic in licences:
        candidates.extend("".join(el.itertext()) for el in _descendants(lic, "license_ref"))
    for lic in licences:
        for link in _descendants(lic, "ext-link") + _descendants(lic, "uri"):
            candidates.append(link.get(_XLINK_HREF) or link.get("href") or "")
            candidates.append("".join(link.itertext()))
    candidates.extend(_CC_URL.findall(text or ""))
    candidates = [_with_scheme(c.strip()) for c in candidates]
    for cand in candidates:
        if _CC_URL.match(cand):
            return cand.rstrip(".,;)"), text, True
    for cand in candidates:  # not Creative Commons: still say which licence it names
        if _ANY_URL.match(cand) and len(cand) <= MAX_LICENCE_TEXT:
            return cand, text, True
    return None, text, True


# --- blocks -------------------------------------------------------------------------------


class _Collector:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.chars = 0
        self.truncated = False

    def add(self, section: str, text: str) -> None:
        if self.truncated or not text:
            return
        if len(self.blocks) >= MAX_BLOCKS or self.chars + len(text) > MAX_BLOCK_CHARS_TOTAL:
            self.truncated = True
            return
        self.blocks.append(Block(id=f"p{len(self.blocks) + 1}", section=section, text=text))
        self.chars += len(text)


def _title_of(el: Any) -> str:
    for t in _children(el, "title"):
        return _text(t)
    for label in _children(el, "label"):
        return _text(label)
    return ""


def _walk(node: Any, path: tuple[str, ...], out: _Collector, *, nested: bool = False) -> None:
    """Walk ``node`` in document order; each non-empty ``p`` becomes a block.

    Paragraphs nested inside a paragraph (lists, quotes) become their own blocks after
    the outer paragraph's own text. Body text outside any section is filed under ``Body``.
    """
    for child in node:
        name = _local(child)
        if not name or name in _SKIP or (not nested and name in {"title", "label"}):
            continue
        if name == "sec" and not nested:
            title = _title_of(child)
            _walk(child, (*path, title) if title else path, out)
        elif name == "p":
            out.add(SECTION_SEPARATOR.join(path) or "Body", _text(child, stop=_P))
            _walk(child, path, out, nested=True)
        else:
            _walk(child, path, out, nested=nested)


_P: Final = frozenset({"p"})


def _collect(meta: Any | None, body: Any) -> _Collector:
    out = _Collector()
    if meta is not None:
        for abstract in _children(meta, "abstract"):
            title = _title_of(abstract) or "Abstract"
            _walk(abstract, (title,), out)
    _walk(body, (), out)
    return out


# --- entry point --------------------------------------------------------------------------


def _source_url(pmcid: str | None) -> str | None:
    return f"https://europepmc.org/articles/{pmcid}" if pmcid else None


def parse_fulltext(xml: bytes, *, expected_pmcid: str | None) -> FullText:
    """Parse a JATS article and apply the licence gate.

    Raises :class:`FullTextRefused` (entities, internal DTD subset, size, depth),
    :class:`FullTextMalformed` (not XML / no article / bad expected PMCID),
    :class:`FullTextWrongPaper` (its PMCIDs exclude ``expected_pmcid``) and
    :class:`FullTextNoBody` (a readable article with no ``<body>``).
    """
    expected: str | None = None
    if expected_pmcid is not None:
        expected = normalize_pmcid(expected_pmcid)
        if expected is None:
            raise FullTextMalformed(f"not a PMCID: {str(expected_pmcid)[:40]!r}", code="bad_pmcid")
    root = _parse_tree(xml)
    article = _find_article(root)
    meta = _article_meta(article)
    own = _own_pmcids(meta)
    if expected is not None and own and expected not in own:
        raise FullTextWrongPaper(
            f"this article belongs to a different paper ({', '.join(own)}), not {expected}",
            expected=expected,
            found=own,
        )
    pmcid = expected or (own[0] if own else None)
    title = ""
    if meta is not None:
        for group in _children(meta, "title-group"):
            for t in _children(group, "article-title"):
                title = _text(t)[:MAX_TITLE_CHARS]
                break
    url, text, has_licence = _licence(meta)
    name = licence_from_url(url) if url else None
    licence = name or (text[:MAX_LICENCE_TEXT] if text else None) or url
    source_url = _source_url(pmcid)
    if not readable_licence_url(url):
        where = source_url or (f"https://doi.org/{_own_doi(meta)}" if _own_doi(meta) else None)
        if url:
            why = f"its reuse licence ({name or url}) is not CC BY, CC BY-SA, CC0 or public domain"
        elif has_licence:
            why = "its licence names no machine-readable Creative Commons URL"
        else:
            why = "it states no reuse licence"
        reason = f"This article cannot be shown here: {why}. " + (
            f"Read it at {where}." if where else "Read it at the publisher's site."
        )
        return FullText(
            pmcid=pmcid,
            title=title,
            licence=licence,
            licence_url=url,
            readable=False,
            reason=reason,
            source_url=source_url,
            blocks=(),
            truncated=False,
        )
    bodies = _children(article, "body")
    if not bodies:
        raise FullTextNoBody(
            "this article has no body text; its abstract and the original "
            + (f"article at {source_url} remain available" if source_url else "article remain")
        )
    collected = _collect(meta, bodies[0])
    return FullText(
        pmcid=pmcid,
        title=title,
        licence=licence,
        licence_url=url,
        readable=True,
        reason=None,
        source_url=source_url,
        blocks=tuple(collected.blocks),
        truncated=collected.truncated,
    )
