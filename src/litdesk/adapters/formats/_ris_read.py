"""RIS reading: whole records read in place from UTF-8 bytes, other lines by a line machine.

The text is read as the UTF-8 bytes of its LF-normalised form (the bytes of a UTF-8 file
as they are, other texts encoded once). A well-formed record — ``TY  -`` first, standard
``XX  - value`` lines, ``ER  -`` last — is found with ``bytes.find``, decoded once and split
into its lines; everything else (junk lines, continuations, missing ``ER``, Ovid's tag after
``ER``, non-standard separators) goes through the line-by-line machine, which reads every
dialect. Both give the same records (tests/adapters/formats/test_ris_fastpath.py).

Each record keeps its raw text as a span of the one shared :class:`RawSource` (the raw-record
digest is computed from the span's bytes), so an import holds the text's bytes once.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any, Final

from litdesk.core.imports import Notice, RawSource, RecordTrace
from litdesk.core.records import (
    normalize_arxiv,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
)

from ._decode import NotUtf8
from ._ris_base import (
    _KNOWN_TAGS,
    _LIST_CONTINUATION_TAGS,
    _PARAGRAPH_TAGS,
    _PUBMED_DB,
    _UPPER,
    _UPPER_DIGIT,
    _USED,
    _YEAR_TAGS,
    RIS_TYPES,
    _tag_of,
    build_paper,
    first_year,
    tag_extras,
    take_identifier,
)
from ._spec import ParseResult

__all__ = ["NO_TY", "parse", "parse_bytes"]

#: the notice of a record whose first tag is not ``TY`` (a file where no record has one is
#: not RIS: :func:`~litdesk.adapters.formats.loads` refuses it when ``--format ris`` forced it)
NO_TY: Final = "record starts without a TY line"


class _Record:
    __slots__ = ("cont", "fields", "first", "last_tag", "lines", "notices", "start")

    def __init__(self, first: int, start: int) -> None:
        self.first = first
        self.start = start
        self.fields: dict[str, list[str]] = {}
        self.lines: dict[str, int] = {}
        self.notices: list[Notice] = []
        self.last_tag: str | None = None
        # continuation lines, joined once at the end (linear however many lines there are)
        self.cont: dict[tuple[str, int], list[str]] | None = None

    def add(self, tag: str, value: str, index: int) -> None:
        self.last_tag = tag
        if tag not in self.lines:
            self.lines[tag] = index + 1
        if value:
            values = self.fields.get(tag)
            if values is None:
                self.fields[tag] = [value]
            else:
                values.append(value)

    def extend(self, text: str) -> None:
        tag = self.last_tag
        assert tag is not None
        values = self.fields.get(tag)
        if values is None:
            self.fields[tag] = [text]
        elif tag in _LIST_CONTINUATION_TAGS:
            values.append(text)
        else:
            if self.cont is None:
                self.cont = {}
            self.cont.setdefault((tag, len(values) - 1), []).append(text)

    def join_continuations(self) -> None:
        if self.cont is None:
            return
        for (tag, index), parts in self.cont.items():
            values = self.fields[tag]
            sep = "\n" if tag in _PARAGRAPH_TAGS else " "
            values[index] = sep.join([values[index], *parts])
        self.cont = None


class _Junk:
    """Lines outside any record, counted (not stored) between two records."""

    __slots__ = ("count", "first", "last")

    def __init__(self) -> None:
        self.count = self.first = self.last = 0

    def add(self, index: int) -> None:
        if not self.count:
            self.first = index
        self.last = index
        self.count += 1

    def notice(self) -> Notice:
        first, last, n = self.first + 1, self.last + 1, self.count
        where = f"line {first}" if first == last else f"lines {first}–{last}"
        return Notice(
            "skipped", f"{n} line{'s' if n > 1 else ''} outside any record skipped ({where})", first
        )


# A well-formed record (see _clean_record): its tags, the separators after them, and the
# Ovid tag line after ER that would make the record longer.
_TAG: Final = itemgetter(slice(0, 2))
_SEP: Final = itemgetter(slice(2, 6))
_VALUE: Final = itemgetter(slice(6, None))
_SEPS: Final = frozenset({"  - ", "  -\t", "  -"})
_TAGS: Final = frozenset(a + b for a in _UPPER for b in _UPPER_DIGIT)
_TAG_AFTER_ER = re.compile(rb"(?!TY)[A-Z][A-Z0-9][ \t]{1,3}-")


def parse(text: str) -> ParseResult:
    """Read every RIS record of ``text`` (see the module docstring of ``_ris`` for the dialects)."""
    return _parse(text)


def _parse(text: str, *, fast: bool = True) -> ParseResult:
    """``parse``; ``fast=False`` reads every line with the general machine (tests compare)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # lone surrogates (only possible in text handed over directly) survive the round trip
    return _read(RawSource(text.encode("utf-8", "surrogatepass"), "surrogatepass"), fast=fast)


def parse_bytes(data: bytes) -> ParseResult:
    """``parse`` of UTF-8 ``data`` without decoding it whole; :class:`NotUtf8` when it is not.

    Every byte is decoded once, as part of a record or of a line, so bytes that are not
    UTF-8 anywhere in ``data`` raise :class:`NotUtf8`, as decoding the whole would.
    """
    crlf = False
    if b"\r" in data:
        crs = data.count(b"\r")
        if crs == data.count(b"\n") == data.count(b"\r\n"):
            crlf = True  # Windows line ends only: read in place
        else:  # mixed or CR-only line ends: one normalised copy
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        return _read(RawSource(data, "strict", crlf=crlf), fast=True)
    except UnicodeDecodeError:
        raise NotUtf8 from None


def _read(src: RawSource, *, fast: bool) -> ParseResult:
    data = src.data
    errors = src.errors
    reader = _Reader(src)
    records = reader.records
    n = len(data)
    find = data.find
    pos = 0  # start of line ``i``
    i = 0
    eol = b"\r\n" if src.crlf else b"\n"
    step = len(eol)
    while pos < n:
        if fast and reader.cur is None:
            q = pos
            while data.startswith(eol, q):  # empty lines before a record
                q += step
            found = _clean_record(src, q) if data.startswith(b"TY  -", q) else None
            if found is not None:
                if reader.pending is not None:
                    reader.finish_pending()
                if reader.junk.count:
                    reader.flush_junk()
                end, nl, lines, tags = found
                first = i + (q - pos) // step
                last = first + len(lines) - 1
                records.append(_finish_clean(src, q, end, first, last, lines, tags))
                pos = nl + 1
                i = last + 1
                continue
        nl = find(b"\n", pos)
        if nl == -1:
            nl = n
        end = nl - 1 if step == 2 and nl < n else nl  # CR LF: the CR is no part of the line
        reader.line(data[pos:end].decode("utf-8", errors), i, pos, end)
        pos = nl + 1
        i += 1
    return reader.result()


def _clean_record(src: RawSource, start: int) -> tuple[int, int, list[str], list[str]] | None:
    """``(end, newline, lines, tags)`` of the well-formed record at ``start``, or ``None``.

    Well-formed is what the regex ``TY  -(?:[ \t].*)?\n(?:(?!TY|ER)[A-Z][A-Z0-9]  -(?:[ \t].*)?\n)*
    ER  -(?:[ \t].*)?(?:\n|$)`` reads, not followed by a tag line (Ovid writes one after ER, and
    the line machine reads it into the record). ``start`` begins with ``TY  -``.
    """
    data = src.data
    er = data.find(b"\nER  -", start)
    if er == -1:
        return None
    nl = end = data.find(b"\n", er + 1)  # the ER line's end, and the newline after it
    if nl == -1:
        nl = end = len(data)
    else:
        if src.crlf:
            end -= 1
        if data[nl + 1 : nl + 2] not in (b"\n", b"\r", b"") and _TAG_AFTER_ER.match(data, nl + 1):
            return None  # (an empty line or the end of the text is no tag line)
    lines = data[start:end].decode("utf-8", src.errors).split("\r\n" if src.crlf else "\n")
    tags = list(map(_TAG, lines))
    # the first line is TY (start), the last ER (the first "ER  -" line after start)
    if not _TAGS.issuperset(tags) or not _SEPS.issuperset(map(_SEP, lines)):
        return None
    if tags.count("TY") != 1:
        return None
    return end, nl, lines, tags


def _finish_clean(
    src: RawSource, start: int, end: int, first: int, last: int, lines: list[str], tags: list[str]
) -> RecordTrace:
    """The trace of a well-formed record (line indexes ``first``..``last``, 0-based)."""
    del lines[-1], tags[-1]  # the ER line ends the record; its value is not kept
    fields: dict[str, list[str]] = {}
    for tag, value in zip(tags, map(str.strip, map(_VALUE, lines)), strict=True):
        if value:
            values = fields.get(tag)
            if values is None:
                fields[tag] = [value]
            else:
                values.append(value)
    first_line = first + 1

    def line_of(tag: str) -> int:
        return first_line + tags.index(tag) if tag in tags else first_line

    return _trace(src, start, end, first_line, last + 1, fields, line_of, [])


class _Reader:
    """The line-by-line machine: every dialect, junk lines, continuations, missing ER."""

    __slots__ = (
        "cur",
        "junk",
        "last_content",
        "last_end",
        "notices",
        "pending",
        "pending_end",
        "pending_last",
        "records",
        "src",
    )

    def __init__(self, src: RawSource) -> None:
        self.src = src
        self.records: list[RecordTrace] = []
        self.notices: list[Notice] = []
        self.cur: _Record | None = None
        self.pending: _Record | None = None  # ended by ER; Ovid puts a tag (NL) right after ER
        self.pending_last = self.pending_end = 0
        self.junk = _Junk()
        self.last_content = self.last_end = 0

    def finish_pending(self) -> None:
        assert self.pending is not None
        self.records.append(_finish(self.pending, self.src, self.pending_last, self.pending_end))
        self.pending = None

    def flush_junk(self) -> None:
        self.notices.append(self.junk.notice())
        self.junk = _Junk()

    def line(self, line: str, i: int, start: int, end: int) -> None:
        """Line ``i`` (0-based), the bytes ``start``..``end`` of the source."""
        # fast path for the standard "XX  - value" form, regex fallback for the rest
        tagged: tuple[str, str] | None
        if line[2:5] == "  -" and line[0] in _UPPER and line[1] in _UPPER_DIGIT:
            rest = line[5:]
            if not rest:
                tagged = (line[:2], "")
            elif rest[0] == " " or rest[0] == "\t":
                tagged = (line[:2], rest[1:].strip())
            else:
                tagged = _tag_of(line)
        else:
            tagged = _tag_of(line) if line else None
        pending = self.pending
        if pending is not None:
            if tagged is not None and tagged[0] not in ("TY", "ER") and i == self.pending_last + 1:
                pending.add(tagged[0], tagged[1], i)
                pending.notices.append(
                    Notice("other", f"tag {tagged[0]} after ER read into the record", i + 1)
                )
                self.pending_last, self.pending_end = i, end
                return
            self.finish_pending()
        cur = self.cur
        if cur is None:
            if tagged is None or tagged[0] == "ER":
                if line.strip():
                    self.junk.add(i)
                return
            if self.junk.count:
                self.flush_junk()
            cur = self.cur = _Record(i, start)
            cur.add(tagged[0], tagged[1], i)
            self.last_content, self.last_end = i, end
            if tagged[0] != "TY":
                cur.notices.append(Notice("other", NO_TY, i + 1, tagged[0]))
            return
        if tagged is None:
            stripped = line.strip()
            if stripped:
                if cur.last_tag is None:
                    self.junk.add(i)
                else:
                    cur.extend(stripped)
                    self.last_content, self.last_end = i, end
            return
        tag, value = tagged
        if tag == "ER":
            self.pending, self.pending_last, self.pending_end = cur, i, end
            self.cur = None
            return
        if tag == "TY" and "TY" in cur.lines:
            cur.notices.append(
                Notice(
                    "unterminated",
                    "record has no ER line; read up to the next TY",
                    self.last_content + 1,
                )
            )
            self.records.append(_finish(cur, self.src, self.last_content, self.last_end))
            cur = self.cur = _Record(i, start)
        cur.add(tag, value, i)
        self.last_content, self.last_end = i, end

    def result(self) -> ParseResult:
        if self.pending is not None:
            self.finish_pending()
        cur = self.cur
        if cur is not None:
            cur.notices.append(
                Notice(
                    "unterminated", "last record has no ER line; read anyway", self.last_content + 1
                )
            )
            self.records.append(_finish(cur, self.src, self.last_content, self.last_end))
            self.cur = None
        if self.junk.count:
            self.flush_junk()
        return ParseResult(records=self.records, notices=self.notices)


def _finish(rec: _Record, src: RawSource, last: int, end: int) -> RecordTrace:
    """The trace of a record read by the line machine (``last``: its last line index)."""
    rec.join_continuations()
    at = rec.lines
    first_line = rec.first + 1

    def line_of(tag: str) -> int:
        return at.get(tag, first_line)

    return _trace(src, rec.start, end, first_line, last + 1, rec.fields, line_of, rec.notices)


#: an accession number naming PubMed: "PUBMED 27565858" (the Cochrane Library lists each
#: database's number, "AN  - PUBMED …", "AN  - EMBASE …"), "PMID: 27565858", "pmid27565858"
_AN_PUBMED: Final = re.compile(
    r"(?:pubmed|medline|pmid)\b[\s:]*(\d{1,12})\s*$|pmid(\d{1,12})$", re.I
)
#: ProQuest writes its own document id as AN (the id in its "/docview/<id>" links), also
#: for its MEDLINE® database: never a PMID
_PROQUEST: Final = re.compile(r"proquest", re.I)
_KW_SPLIT: Final = re.compile(r"(?:(?<!\s)\s+)?;\s+")


def _accession_pmid(f: dict[str, list[str]]) -> str | None:
    """The PMID an ``AN`` line gives: one naming PubMed, or a bare number when the record's
    database (``DB``/``DP``) is PubMed or MEDLINE or is not named, unless the record is
    ProQuest's (its AN is ProQuest's document id: DB, DP or a link names ProQuest)."""
    for an in f["AN"]:
        m = _AN_PUBMED.match(an.strip())
        if m:
            return normalize_pmid(m.group(1) or m.group(2))
    an = f["AN"][0].strip()
    if not (an.isdigit() and an.isascii()):
        return None
    db = " ".join(f.get("DB", []) + f.get("DP", []))
    if db and not _PUBMED_DB.search(db):
        return None
    links = f.get("UR", []) + f.get("L2", [])
    if _PROQUEST.search(db) or any(_PROQUEST.search(u) or f"/docview/{an}" in u for u in links):
        return None
    return normalize_pmid(an)


def _trace(
    src: RawSource,
    start: int,
    end: int,
    first_line: int,
    last_line: int,
    f: dict[str, list[str]],
    line_of: Any,
    notices: list[Notice],
) -> RecordTrace:
    """The Paper, notices and extras of one record's fields, and its trace.

    ``f`` maps each tag to its non-empty values in file order.
    """
    digest = src.digest(start, end)
    get = f.get
    paper_fields: dict[str, Any] = {}
    # each value list is non-empty, so ``or`` takes the first tag present
    values = get("TI") or get("T1") or get("CT") or get("BT")
    if values:
        paper_fields["title"] = values[0]  # Paper removes control characters
    au, a1 = get("AU"), get("A1")
    authors = au + a1 if au and a1 else au or a1
    if authors:
        paper_fields["authors"] = authors
    values = get("JF") or get("JO") or get("T2") or get("JA") or get("J2") or get("J1") or get("BT")
    if values:
        paper_fields["journal"] = values[0]
    year_values = get("PY")
    if year_values is None or "Y1" in f or "DA" in f:
        year_values = [v for tag in _YEAR_TAGS if tag in f for v in f[tag]]
    if year_values:
        first = year_values[0]
        if len(first) == 4 and first.isdigit() and first.isascii() and first[0] in "12":
            year: int | None = int(first)  # what first_year finds in a bare year
        else:
            year = first_year(year_values)
        if year is None:
            notices.append(
                Notice("dropped_field", f"no year in {first[:40]!r}", line_of("PY"), "PY")
            )
        else:
            paper_fields["year"] = year
    values = get("VL") or get("VO")
    if values:
        paper_fields["volume"] = values[0]
    if "IS" in f:
        paper_fields["issue"] = f["IS"][0]
    sp = get("SP")
    if sp:
        ep = get("EP")
        # EBSCOhost writes a one-page article as SP 246 / EP 246: one page, not "246-246"
        paper_fields["pages"] = (
            f"{sp[0]}-{ep[0]}" if ep and "-" not in sp[0] and ep[0] != sp[0] else sp[0]
        )
    if "DO" in f:
        doi = take_identifier(
            f["DO"], normalize_doi, "DOI", notices, line=line_of("DO"), field="DO"
        )
        if doi:
            paper_fields["doi"] = doi
    if "AN" in f:
        pmid = _accession_pmid(f)
        if pmid:
            paper_fields["pmid"] = pmid
    if "C2" in f:
        for value in f["C2"]:
            if value.strip().upper().startswith("PMC") and (pmcid := normalize_pmcid(value)):
                paper_fields["pmcid"] = pmcid
                break
    if "UR" in f:
        source_url: str | None = None
        for value in f["UR"]:
            for url in value.replace(";", " ").split():
                if "openalex.org/" in url and (w := normalize_openalex_id(url)):
                    paper_fields.setdefault("openalex_id", w)
                elif "arxiv.org/" in url and (a := normalize_arxiv(url)):
                    paper_fields.setdefault("arxiv_id", a)
                elif source_url is None and url.startswith("https://"):
                    source_url = url
        if source_url:
            paper_fields["source_url"] = source_url
    values = get("AB") or get("N2")
    if values:
        paper_fields["abstract"] = values[0] if len(values) == 1 else "\n".join(values)
    if "KW" in f:
        kw = f["KW"]
        # the Cochrane Library writes a record's keywords on one KW line, "A; B; C"
        paper_fields["keywords"] = (
            [k for v in kw for k in _KW_SPLIT.split(v) if k] if any(";" in v for v in kw) else kw
        )
    if "TY" in f:
        code = f["TY"][0].upper()
        paper_fields["publication_types"] = [RIS_TYPES.get(code, code)]
    extras = tag_extras(f, _USED, _KNOWN_TAGS, notices, line_of)
    source_id = f["ID"][0] if "ID" in f else None
    paper = build_paper(
        paper_fields, digest=digest, line=first_line, notices=notices, source_id=source_id
    )
    return RecordTrace(
        digest,
        first_line,
        last_line,
        paper,
        source_id=source_id,
        notices=tuple(notices),
        extras=extras,
        raw_span=(src, start, end),
    )
