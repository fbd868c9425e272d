"""BibTeX / biblatex import and export (``bibtex``).

A single-pass scanner built from compiled regexes: entries are found with one
search, fields are read by a fast regex for the common ``name = {flat value}``
shape and by a brace-matching path for everything else (nested braces, quoted
values, ``#`` concatenation, ``@string`` macros). Each entry is bounded by the
next line that starts a new ``@type{``, so an unbalanced brace damages one entry,
never the rest of the file. Problems become notices with their line numbers.
"""

from __future__ import annotations

import codecs
import re
import sys
from typing import Any, Final

from litdesk.core.imports import ImportRefused, Notice, RawSource, RecordTrace, digest_bytes
from litdesk.core.records import (
    PaperError,
    make_paper,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
    safe_https_url,
    split_arxiv,
)

from ._bibtex_entry import (
    MAX_EXPANDED_CHARS,
    MAX_EXPANDED_VALUE,
    MAX_MACRO_DEPTH,
    Entry,
    resolve_crossrefs,
    too_much,
)
from ._bibtex_write import dumps
from ._decode import NotUtf8
from ._latex import (
    bibtex_name,
    latex_id_text,
    latex_to_text,
    match_braces,
    split_names,
)
from ._spec import FormatSpec, ParseResult
from ._tools import jabref_tool

__all__ = ["FORMATS", "dumps", "parse", "parse_bytes", "sniff"]

PARSER_ID: Final = "litdesk.bibtex"
PARSER_VERSION: Final = "1"

_MONTHS: Final = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}

_AT: Final = re.compile(r"@[ \t\r\n]*([A-Za-z_][\w\-:.]*)[ \t\r\n]*([{(]?)")
_NEXT_START: Final = re.compile(r"^[ \t]*@[ \t]*[A-Za-z_][\w\-]*[ \t]*[{(]", re.M)
_KEY: Final = re.compile(r"[ \t\r\n]*([^\s,{}()=\"#%]*)[ \t\r\n]*")
_SEP: Final = re.compile(r"[\s,]*")
_WS: Final = re.compile(r"\s*")
_NAME: Final = re.compile(r"([^\s=,{}()\"#%'@]++)\s*+=\s*+")
_FAST: Final = re.compile(
    r"[\s,]*+([^\s=,{}()\"#%'@]++)\s*+=\s*+"
    r"(?:\{((?:[^{}\\]++|\\.)*+)\}|\"((?:[^\"{}\\]++|\\.)*+)\"|([0-9]++))\s*+(?=[,})])"
)
_BARE: Final = re.compile(r"[^\s,#{}()\"=]+")
_QUOTE_END: Final = re.compile(r"\\.|[{}\"]", re.S)
_JUNK_STOP: Final = re.compile(r"\\.|[{},()]", re.S)
#: a word holding an ASCII letter or "_", then "=": tried at word starts only, each word
#: read once (a search from every letter of one long word was quadratic)
_FIELDISH: Final = re.compile(r"(?<!\w)[^\W_A-Za-z]*+[A-Za-z_]\w*+\s*+=\s*+[{\"\d]")
_FIELDISH_LINE: Final = re.compile(r"(?m)^[ \t,]*+[A-Za-z_]\w*+\s*+=\s*+[{\"\d]")
_YEAR: Final = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
_KW_SPLIT: Final = re.compile(r"(?:(?<!\s)\s+)?[;,]\s*")
_KW_SPLIT_SEMI: Final = re.compile(r"(?:(?<!\s)\s+)?;\s*")

#: Fields litdesk maps into the Paper.
_MAPPED: Final = frozenset(
    "title author journal journaltitle booktitle year date volume number issue pages doi "  # noqa: SIM905 - a word list
    "pmid pmcid eprint archiveprefix eprinttype arxivid arxiv url abstract keywords "
    "keyword crossref".split()
)
#: Standard BibTeX/biblatex fields kept in extras without a notice.
_KNOWN: Final = frozenset(
    "month day publisher address editor edition series isbn issn note annote annotation "  # noqa: SIM905 - a word list
    "institution school organization howpublished chapter type language langid langidopts "
    "key file urldate shorttitle location eid subtitle titleaddon eprintclass "
    "primaryclass timestamp owner mendeley-tags abstractnote copyright venue pagetotal "
    "version urlseen translator origlanguage maintitle booksubtitle bookauthor related "
    "xref ids execute options sortkey sortname shortjournal journalsubtitle issuetitle "
    "addendum pubstate keywords-plus affiliation research-areas web-of-science-categories "
    "unique-id da times-cited usage-count-last-180-days usage-count-since-2013 "
    "number-of-cited-references cited-references journal-iso doc-delivery-number "
    "orcid-numbers researcherid-numbers funding-acknowledgement funding-text author-email "
    "art_number source document_type correspondence_address1 references tradenames "
    "manufacturers chemicals_cas molecular_seqnumbers coden abbrev_source_title "
    "publication_stage sponsors language page_count".split()
)


class _Lines:
    """1-based line numbers for monotonically increasing positions (cheap)."""

    __slots__ = ("line", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _match_quote(text: str, pos: int, limit: int) -> int:
    """Position after the ``"`` closing the quote at ``pos`` (braces nest)."""
    depth = 0
    for m in _QUOTE_END.finditer(text, pos + 1, limit):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == '"' and depth == 0:
            return m.end()
    return -1


class _Scanner:
    """Reads one text into raw entries, macros and notices."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = _Lines(text)
        self.macros: dict[str, str] = dict(_MONTHS)
        self.macro_depth: dict[str, int] = {}  # macro -> how deep its chain of macros is
        self.expanded = 0  # characters added by expansion so far (macros and crossref)
        self.where = ""  # the @string or entry being read (for a refusal's message)
        self.depth = 0  # the macro depth of the value just read
        self.names: dict[str, str] = {}  # field name as written -> its shared lower case
        self.entries: list[Entry] = []
        self.notices: list[Notice] = []
        self.starts = 0  # every @type{ seen (records or not)
        self.unreadable = 0  # entries skipped because nothing could be read

    # -- values -----------------------------------------------------------------
    def _value(
        self, pos: int, limit: int, notices: list[Notice], name: str
    ) -> tuple[str, int, bool]:
        """Read ``part # part …`` at ``pos``: (value, next position, ok)."""
        text = self.text
        parts: list[str] = []
        self.depth = 0
        while True:
            if pos >= limit:
                return "".join(parts), pos, False
            c = text[pos]
            if c == "{":
                end = match_braces(text, pos, limit)
                if end < 0:
                    parts.append(text[pos + 1 : limit])
                    return "".join(parts), limit, False
                parts.append(text[pos + 1 : end - 1])
                pos = end
            elif c == '"':
                end = _match_quote(text, pos, limit)
                if end < 0:
                    parts.append(text[pos + 1 : limit])
                    return "".join(parts), limit, False
                parts.append(text[pos + 1 : end - 1])
                pos = end
            else:
                m = _BARE.match(text, pos, limit)
                if m is None:
                    if not parts:
                        notices.append(
                            Notice(
                                "dropped_field",
                                f"field {name!r} has no value",
                                line=self.lines.at(pos),
                                field=name,
                            )
                        )
                    return "".join(parts), pos, True
                word = m.group()
                if word.isdigit():
                    parts.append(word)
                else:
                    macro = self.macros.get(word.lower())
                    if macro is None:
                        notices.append(
                            Notice(
                                "other",
                                f"undefined @string macro {word[:60]!r} kept as text",
                                line=self.lines.at(pos),
                                field=name,
                            )
                        )
                        parts.append(word)
                    else:
                        self._expand(word.lower(), macro, parts)
                        parts.append(macro)
                pos = m.end()
            pos = _WS.match(text, pos, limit).end()  # type: ignore[union-attr]
            if pos < limit and text[pos] == "#":
                pos = _WS.match(text, pos + 1, limit).end()  # type: ignore[union-attr]
                continue
            return "".join(parts), pos, True

    def _expand(self, word: str, macro: str, parts: list[str]) -> None:
        """Account for one macro use: depth, value size and the file's budget (or refuse)."""
        self.depth = max(self.depth, self.macro_depth.get(word, 0) + 1)
        if self.depth > MAX_MACRO_DEPTH:
            raise too_much(
                f"@string macros nest {self.depth} deep",
                self.where,
                f"{MAX_MACRO_DEPTH} deep",
                "too_deep",
            )
        self.expanded += len(macro)
        if self.expanded > MAX_EXPANDED_CHARS:
            raise too_much(
                f"macros expand to over {MAX_EXPANDED_CHARS:,} characters",
                self.where,
                f"{MAX_EXPANDED_CHARS:,} characters per file",
            )
        if sum(map(len, parts)) + len(macro) > MAX_EXPANDED_VALUE:
            raise too_much(
                f"macro {word[:60]!r} makes a value of over {MAX_EXPANDED_VALUE:,} characters",
                self.where,
                f"{MAX_EXPANDED_VALUE:,} characters per value",
            )

    def _skip_junk(self, pos: int, limit: int, close: str) -> int:
        """Skip unreadable text up to the next top-level ``,`` or the closing delimiter."""
        depth = 0
        for m in _JUNK_STOP.finditer(self.text, pos, limit):
            c = m.group()
            if c in "{(":
                if c == "{" or close == ")":
                    depth += 1
            elif c in "})":
                if depth == 0 and c == close:
                    return m.start()
                if c == "}" or close == ")":
                    depth = max(0, depth - 1)
            elif c == "," and depth == 0:
                return m.start()
        return limit

    # -- fields -----------------------------------------------------------------
    def _fields(
        self, pos: int, limit: int, close: str, entry: Entry | None, macros: bool
    ) -> tuple[int, bool, list[tuple[str, str, int]]]:
        """Read fields up to the closing delimiter: (position after it, closed, fields)."""
        text = self.text
        out: list[tuple[str, str, int]] = []
        notices = entry.notices if entry is not None else self.notices
        while True:
            m = _FAST.match(text, pos, limit)
            if m is not None:
                value = m.group(2)
                if value is None:
                    value = m.group(3) if m.group(3) is not None else m.group(4)
                out.append((m.group(1), value, m.start(1)))
                pos = m.end()
                continue
            pos = _SEP.match(text, pos, limit).end()  # type: ignore[union-attr]
            if pos >= limit:
                return limit, False, out
            if text[pos] == close:
                return pos + 1, True, out
            nm = _NAME.match(text, pos, limit)
            if nm is None:
                end = self._skip_junk(pos, limit, close)
                notices.append(
                    Notice(
                        "skipped",
                        f"unreadable text skipped: {text[pos : min(end, pos + 40)]!r}",
                        line=self.lines.at(pos),
                    )
                )
                if end <= pos:
                    end = pos + 1
                pos = end
                continue
            name = nm.group(1)
            value, pos, ok = self._value(nm.end(), limit, notices, name)
            if macros and self.depth:
                self.macro_depth[name.lower()] = self.depth
            out.append((name, value, nm.start()))
            if not ok:
                return limit, False, out
            if pos < limit and text[pos] not in ",})" and _NAME.match(text, pos, limit):
                notices.append(
                    Notice(
                        "other",
                        f"missing comma after field {name!r}; read on",
                        line=self.lines.at(nm.start()),
                        field=name,
                    )
                )

    # -- entries ----------------------------------------------------------------
    def scan(self) -> None:
        text = self.text
        n = len(text)
        pos = 0
        searched_from, next_start = -1, -1
        while pos < n:
            m = _AT.search(text, pos)
            if m is None:
                break
            gap = text[pos : m.start()]
            if gap and not gap.isspace() and _FIELDISH_LINE.search(gap):
                self.notices.append(
                    Notice(
                        "skipped",
                        "text outside any entry looks like fields (unbalanced braces?)",
                        line=self.lines.at(pos),
                    )
                )
            etype = m.group(1).lower()
            opener = m.group(2)
            if not opener:
                if etype != "comment":
                    self.notices.append(
                        Notice(
                            "skipped",
                            f"'@{m.group(1)[:40]}' not followed by '{{' or '(' skipped",
                            line=self.lines.at(m.start()),
                        )
                    )
                eol = text.find("\n", m.end())
                pos = n if eol < 0 else eol + 1
                continue
            self.starts += 1
            if not (searched_from <= m.end() <= next_start):
                # the next line-start entry; cached, so a one-line file stays linear
                nxt = _NEXT_START.search(text, m.end())
                searched_from, next_start = m.end(), (nxt.start() if nxt is not None else n)
            limit = next_start
            close = "}" if opener == "{" else ")"
            body = m.end()
            line = self.lines.at(m.start())
            if etype in ("comment", "preamble"):
                if opener == "{":
                    end = match_braces(text, body - 1, limit)
                else:
                    end = text.find(")", body, limit)
                    end = end + 1 if end >= 0 else -1
                if end < 0:
                    end = limit
                if etype == "preamble":
                    self.notices.append(Notice("skipped", "@preamble skipped", line=line))
                pos = end
                continue
            if etype == "string":
                self.where = f"@string on line {line}"
                pos, closed, fields = self._fields(body, limit, close, None, True)
                for name, value, _at in fields:
                    self.macros[name.lower()] = value
                if not closed:
                    self.notices.append(
                        Notice("unterminated", "@string not closed; read anyway", line=line)
                    )
                continue
            pos = self._entry(m, etype, body, limit, (close, line))

    def _entry(
        self, m: re.Match[str], etype: str, body: int, limit: int, where: tuple[str, int]
    ) -> int:
        close, line = where
        text = self.text
        km = _KEY.match(text, body, limit)
        assert km is not None
        key: str | None = km.group(1) or None
        self.where = f"entry {(key or '')[:60]!r} on line {line}"
        pos = km.end()
        entry = Entry(
            etype=etype, key=key, start=m.start(), end=limit, first_line=line, last_line=line
        )
        if pos < limit and text[pos] == "=":
            # no key at all: what we read was the first field's name
            entry.key = None
            entry.notices.append(Notice("other", "entry has no citation key", line=line))
            pos = body
        elif pos < limit and text[pos] not in ",})" and key is not None:
            entry.notices.append(
                Notice("other", "missing comma after the citation key; read on", line=line)
            )
        end, closed, fields = self._fields(pos, limit, close, entry, False)
        names = self.names
        for name, value, at in fields:
            lname = names.get(name)
            if lname is None:  # one lower-cased name string per spelling, not per field
                lname = names[name] = name.lower()
            if lname in entry.fields:
                entry.notices.append(
                    Notice(
                        "duplicate_field",
                        f"field {name!r} given twice; the first is used, the other kept in extras",
                        line=self.lines.at(at),
                        field=lname,
                    )
                )
                entry.extras.setdefault(lname, []).append(value)
            else:
                entry.fields[lname] = value
        if not closed:
            end = limit
            while end > entry.start and text[end - 1].isspace():
                end -= 1
            if not fields and key is None:
                self.unreadable += 1
                self.notices.append(
                    Notice(
                        "skipped",
                        f"@{etype} entry skipped: nothing could be read from it",
                        line=line,
                    )
                )
                return limit
            entry.notices.append(
                Notice("unterminated", "entry not closed; read what was there", line=line)
            )
        entry.end = end
        entry.last_line = self.lines.at(max(entry.start, end - 1))
        self.entries.append(entry)
        return end


# -- records ----------------------------------------------------------------------
class _TextSpans(RawSource):
    """Raw records as spans of the decoded text itself (no slice per record).

    Used when the text stores one byte per character (ASCII and Latin-1): the text is held
    once, by the parse and then by the records, instead of beside a copy of every record.
    A span's text is the slice, its digest the SHA-256 of the slice's UTF-8 — what the
    records held before, byte for byte.
    """

    __slots__ = ("chars",)

    def __init__(self, chars: str) -> None:
        super().__init__(b"", "surrogatepass")
        self.chars = chars

    def text(self, start: int, end: int) -> str:
        return self.chars[start:end]

    def digest(self, start: int, end: int) -> str:
        return digest_bytes(self.chars[start:end].encode("utf-8", "surrogatepass"))


def _one_byte_chars(text: str) -> bool:
    """Whether CPython stores ``text`` with one byte per character (its max code point < 256).

    From the object's size: a one-byte string exceeds its length by its header (under 80
    bytes); a wider one (2 or 4 bytes per character) by more than 100 once it holds a few
    dozen characters. Only a choice of storage: both answers give the same records.
    """
    return sys.getsizeof(text) - len(text) <= 100


def _short(value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value[:limit] if value else None


def _record(entry: Entry, text: str, spans: RawSource | None) -> RecordTrace:
    f = entry.fields
    notices = list(entry.notices)
    extras = entry.extras
    line = entry.first_line
    paper: dict[str, Any] = {}
    used: set[str] = set()

    def take(name: str) -> str | None:
        v = f.get(name)
        if v is not None:
            used.add(name)
        return v

    title = take("title")
    paper["title"] = latex_to_text(title) if title else ""
    authors = take("author")
    if authors:
        names = [bibtex_name(a) for a in split_names(authors)]
        paper["authors"] = tuple(
            n[:2000] for n in names if n and n.lower() not in ("others", "et al.", "et al")
        )
    journal = take("journal") or take("journaltitle") or take("booktitle")
    if journal:
        paper["journal"] = _short(latex_to_text(journal), 2000)
    year_text = take("year")
    date_text = f.get("date")
    ym = _YEAR.search(year_text) if year_text else None
    if ym is None and date_text:
        ym = _YEAR.search(date_text)
    if ym is not None:
        paper["year"] = int(ym.group(1))
    elif year_text:
        notices.append(
            Notice(
                "dropped_field",
                f"year {year_text[:40]!r} has no 4-digit year",
                line=line,
                field="year",
            )
        )
        extras.setdefault("year", []).append(year_text)
    for src, dst in (
        ("volume", "volume"),
        ("number", "issue"),
        ("issue", "issue"),
        ("pages", "pages"),
    ):
        v = take(src)
        if v is None or dst in paper:
            if v is not None:
                used.discard(src)
            continue
        clean = latex_to_text(v)
        if dst == "pages":
            clean = clean.replace("–", "-").replace("—", "-")
        if len(clean) > 100:
            notices.append(
                Notice("dropped_field", f"{src} longer than 100 characters", line=line, field=src)
            )
            used.discard(src)
            continue
        if clean:
            paper[dst] = clean
    for name, norm, label in (
        ("doi", normalize_doi, "DOI"),
        ("pmid", normalize_pmid, "PMID"),
        ("pmcid", normalize_pmcid, "PMCID"),
    ):
        v = take(name)
        if v is None or not v.strip():
            continue
        got = norm(latex_id_text(v))
        if got is None:
            notices.append(
                Notice(
                    "malformed_identifier",
                    f"{label} {v[:80]!r} does not normalise; kept in extras",
                    line=line,
                    field=name,
                )
            )
            used.discard(name)
        else:
            paper[name] = got
    eprint = f.get("eprint")
    prefix = (f.get("archiveprefix") or f.get("eprinttype") or "").strip().lower()
    arxiv_raw = f.get("arxivid") or f.get("arxiv")
    if eprint and prefix in ("arxiv", ""):
        arxiv_raw = arxiv_raw or eprint
    if arxiv_raw:
        a = split_arxiv(latex_id_text(arxiv_raw))
        if a is not None:
            paper["arxiv_id"] = a.base
            if a.version is not None:
                paper["arxiv_version"] = a.version
            used.update(("eprint", "archiveprefix", "eprinttype", "arxivid", "arxiv"))
        elif prefix == "arxiv" or "arxivid" in f or "arxiv" in f:
            notices.append(
                Notice(
                    "malformed_identifier",
                    f"arXiv id {arxiv_raw[:80]!r} does not normalise; kept in extras",
                    line=line,
                    field="eprint",
                )
            )
    url = take("url")
    if url:
        safe = safe_https_url(latex_id_text(url))
        if safe is None:
            used.discard("url")
        else:
            paper["source_url"] = safe
    abstract = take("abstract")
    if abstract:
        paper["abstract"] = latex_to_text(abstract)
    kw = take("keywords")
    kw2 = take("keyword")
    kws = ";".join(x for x in (kw, kw2) if x)
    if kws:
        splitter = _KW_SPLIT_SEMI if ";" in kws else _KW_SPLIT
        paper["keywords"] = tuple(
            k[:2000] for k in (latex_to_text(x) for x in splitter.split(kws)) if k
        )
    paper["publication_types"] = (entry.etype,)
    used.add("crossref")
    unknown: list[str] = []
    for name, value in f.items():
        if name in used:
            continue
        extras.setdefault(name, []).insert(0, value)
        if name not in _KNOWN and name not in _MAPPED:
            unknown.append(name)
    if unknown:
        notices.append(
            Notice("unknown_tag", "fields kept in extras: " + ", ".join(unknown)[:300], line=line)
        )
    if spans is not None:
        raw = ""
        digest = spans.digest(entry.start, entry.end)
    else:  # a wide text: each record's own (narrower) slice costs less than the whole text
        raw = text[entry.start : entry.end]
        digest = digest_bytes(raw.encode("utf-8", "surrogatepass"))
    try:
        p = make_paper(fallback_key=digest, **paper)
    except PaperError as exc:
        notices.append(Notice("dropped_field", f"fields dropped: {exc.message[:200]}", line=line))
        p = make_paper(fallback_key=digest, title=str(paper.get("title", "")))
    return RecordTrace(
        digest=digest,
        first_line=entry.first_line,
        last_line=entry.last_line,
        paper=p,
        raw=raw,
        source_id=entry.key,
        notices=tuple(notices),
        extras=extras,
        raw_span=None if spans is None else (spans, entry.start, entry.end),
    )


def parse(text: str) -> ParseResult:
    """Read BibTeX text (see the module docstring)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return _parse(_Scanner(text), None)


def parse_bytes(data: bytes) -> ParseResult:
    """``parse`` of UTF-8 ``data`` (no BOM): the same records, raw records as byte spans.

    The decoded text is dropped once the entries are read (their field values are their
    own strings), so it is not held beside the records; each record's raw text is a span
    of one shared :class:`RawSource` over ``data`` (its digest is taken from the span: the
    UTF-8 of the text it held before). Raises :class:`NotUtf8` for a BOM or bytes that are
    not UTF-8 (the registry then decodes: BOM notice, Windows-1252 fallback).
    """
    if data.startswith(codecs.BOM_UTF8):
        raise NotUtf8
    try:
        scanner = _Scanner(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotUtf8 from None
    return _parse(scanner, data)


def _byte_offsets(text: str, entries: list[Entry]) -> None:
    """Turn the entries' character spans into spans of ``text``'s UTF-8 (in place)."""
    if text.isascii():
        return
    chars = nbytes = 0  # a position in characters and the same position in bytes
    for e in entries:  # in file order: spans increase and never overlap
        start = nbytes + len(text[chars : e.start].encode("utf-8"))
        end = start + len(text[e.start : e.end].encode("utf-8"))
        chars, nbytes = e.end, end
        e.start, e.end = start, end


def _parse(scanner: _Scanner, data: bytes | None) -> ParseResult:
    scanner.scan()
    if not scanner.entries:
        if scanner.unreadable:
            first = next(n for n in scanner.notices if n.line is not None)
            raise ImportRefused(
                f"no BibTeX entry could be read (line {first.line}: {first.message})",
                code="malformed",
            )
        if scanner.starts:
            raise ImportRefused(
                "no BibTeX entries: only @string/@comment/@preamble blocks", code="empty"
            )
        raise ImportRefused("no BibTeX entries: the text holds no @entry at all", code="empty")
    entries = scanner.entries
    resolve_crossrefs(entries, [MAX_EXPANDED_CHARS - scanner.expanded])
    text = scanner.text
    spans: RawSource | None
    if data is not None:
        _byte_offsets(text, entries)
        spans = RawSource(data)
        text = scanner.text = scanner.lines.text = ""  # the entries hold what they need
    else:
        spans = _TextSpans(text) if _one_byte_chars(text) else None
    # each entry (its field dict and the field values the Paper does not keep) is freed as
    # soon as its record is built: popped from the end of the reversed list
    entries.reverse()
    records: list[RecordTrace] = []
    while entries:
        records.append(_record(entries.pop(), text, spans))
    return ParseResult(records=records, notices=scanner.notices)


_SNIFF: Final = re.compile(
    r"^[ \t]*@[ \t]*(article|book|inproceedings|incollection|misc|techreport|phdthesis|"
    r"mastersthesis|proceedings|inbook|unpublished|manual|online|report|thesis|string|"
    r"preamble|comment|conference|booklet|[a-z]+)[ \t]*[{(]",
    re.I | re.M,
)


def sniff(head: str) -> int:
    """Confidence that ``head`` is BibTeX."""
    m = _SNIFF.search(head.lstrip("\ufeff"))
    if m is None:
        return 0
    if _FIELDISH.search(head, m.end()) is not None or m.group(1).lower() in (
        "string",
        "comment",
        "preamble",
    ):
        return 90
    return 50


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="bibtex",
        parser_id=PARSER_ID,
        parser_version=PARSER_VERSION,
        description="BibTeX / biblatex (.bib): @string macros, crossref, LaTeX to Unicode",
        sniff=sniff,
        parse=parse,
        extensions=(".bib", ".bibtex"),
        dumps=dumps,
        tool=jabref_tool,
    )
]
