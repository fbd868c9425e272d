"""Scopus CSV (``scopus-csv``) and generic CSV/TSV (``csv``) import.

Columns are mapped by their header names (case- and spacing-insensitive aliases);
every other column is kept in each record's extras and listed once in a file-level
notice. The delimiter (comma, tab, semicolon) is sniffed from the header line, quoted
multi-line cells are read by the standard ``csv`` module and each row keeps its exact
physical line span and raw text. Lines may end in LF, CRLF or CR alone (classic Mac OS and
Excel for Mac's "CSV (Macintosh)"), as any CSV reader takes them. ASReview's column names
(``primary_title``, ``notes_abstract``, ``abstract note``, ``first_authors``: the
alternatives its data readers accept, ``asreview.data.base``) are read as its readers read
them.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from litdesk.core.imports import ImportRefused, Notice, RecordTrace, digest_bytes
from litdesk.core.records import (
    PaperError,
    make_paper,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
    safe_https_url,
)
from litdesk.core.words import plural

from ._decode import NotUtf8
from ._markup import escaped_markup_text
from ._spec import FormatSpec, ParseResult

__all__ = [
    "FORMATS",
    "parse_csv",
    "parse_csv_bytes",
    "parse_scopus",
    "parse_scopus_bytes",
    "sniff_csv",
    "sniff_scopus",
]

PARSER_VERSION: Final = "1"

#: Paper field -> header aliases, in priority order (normalised: lower case, single spaces).
_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "title": (
        "title",
        "document title",
        "item title",
        "article title",
        "ti",
        "primary title",
        "primary_title",  # ASReview's alternative title column
    ),
    "authors": (
        "author full names",
        "authors",
        "author",
        "author(s)",
        "author names",
        "first_authors",  # ASReview's
        "au",
        "creators",
    ),
    "year": ("year", "publication year", "py", "pubyear", "year published", "date", "pub year"),
    "journal": (
        "source title",
        "journal",
        "publication title",
        "journal title",
        "journal/book",
        "secondary title",
        "container-title",
        "journal name",
        "so",
        "source",
    ),
    "doi": ("doi", "item doi", "di"),
    "pmid": ("pmid", "pubmed id", "pubmed_id", "pubmed"),
    "pmcid": ("pmcid", "pmc id"),
    # ASReview's alternatives: notes_abstract (its RIS reader's N2/AB), abstract note (Zotero)
    "abstract": ("abstract", "ab", "notes_abstract", "abstract note"),
    "volume": ("volume", "journal volume", "vl"),
    "issue": ("issue", "number", "journal issue", "is"),
    "pages": ("pages", "page", "pg", "page range"),
    "page_start": ("page start", "start page", "bp"),
    "page_end": ("page end", "end page", "ep"),
    "article_number": ("art. no.", "article number", "ar"),
    "keywords": ("author keywords", "keywords", "kw", "de"),
    "source_id": ("id", "record_id", "record id", "eid", "key", "accession number", "ut"),
    "url": ("link", "url"),
    "types": ("document type", "type", "entrytype", "content type", "publication type", "pt"),
    "cited_by": ("cited by", "times cited", "citations"),
}
_SCOPUS_MARKERS: Final = ("eid", "source title", "link", "author(s) id")
_TITLE_HEADERS: Final = frozenset(_ALIASES["title"])
_ID_HEADERS: Final = frozenset(_ALIASES["doi"] + _ALIASES["pmid"])
_SPLIT_SEMI: Final = re.compile(r"(?:(?<!\s)\s+)?;\s*")
_SPLIT_AND: Final = re.compile(r"(?<!\s)\s+and\s+", re.I)
_SCOPUS_ID: Final = re.compile(r"(?<!\s)\s*\(\d+\)\s*$")
_YEAR: Final = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
#: the most cells a row may hold: a spreadsheet's most columns (Excel and LibreOffice: 16,384).
#: Every cell of a wider row would be kept in the record's extras, about 150 bytes each: a
#: 100 MB file of 1,000,000 columns took over 4 GB before it was refused for lack of memory
MAX_CELLS: Final = 16_384
#: the most cells a file may keep in its records' extras (columns not mapped to a field): a
#: kept cell takes about 130 bytes however short its text (a 10 MB file of one-letter cells took
#: 665 MB), so this bounds a file's memory at about 650 MB beyond its fields. A 20,000-record
#: export reaches it with 250 filled unmapped columns a record.
MAX_EXTRA_CELLS: Final = 5_000_000
#: empty lines before a table's header
_BLANK_LINES: Final = re.compile(r"[\r\n]*")
_BLANK_BYTE_LINES: Final = re.compile(rb"[\r\n]*")
#: one physical line with its end (LF, CRLF or CR alone: the line breaks ``csv`` counts), or
#: the last line without one; possessive, so one pass over the text
_LINE: Final = re.compile(r"[^\r\n]*+(?:\r\n|\r|\n)|[^\r\n]++")


class _Lines:
    """The physical lines of a text, read lazily by ``csv.reader`` (which counts them in
    ``line_num``); the lines read since the last :meth:`take` are held, to give each row its
    raw text. Neither a second copy of the text nor a list of all its lines is held: before,
    ``io.StringIO(text)`` twice (a buffer of 4 bytes a character each) and ``readlines()``
    made reading a CSV take about 11 times the file's size."""

    __slots__ = ("_lines", "_held")

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self._held: list[str] = []

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self._held.append(line)
        return line

    def take(self) -> str:
        """The lines read since the last call, joined (and forgotten)."""
        out = "".join(self._held)
        self._held.clear()
        return out


def _text_lines(text: str) -> Iterator[str]:
    return (m.group() for m in _LINE.finditer(text))


#: ``_LINE`` over UTF-8 bytes (a CR or LF byte is never part of a multi-byte character)
_BYTE_LINE: Final = re.compile(rb"[^\r\n]*+(?:\r\n|\r|\n)|[^\r\n]++")


def _byte_lines(data: bytes) -> Iterator[str]:
    """The lines of UTF-8 ``data``, each decoded on its own: every byte is decoded once, so
    bytes that are not UTF-8 anywhere raise (:class:`NotUtf8`), as decoding the whole would."""
    for m in _BYTE_LINE.finditer(data):
        try:
            yield m.group().decode("utf-8")
        except UnicodeDecodeError:
            raise NotUtf8 from None


def _norm_header(h: str) -> str:
    return " ".join(h.replace("\ufeff", "").strip().strip('"').lower().split())


def _first_line(text: str) -> str:
    """The header's physical line, ended by LF, CRLF or a CR alone (quotes may hide
    newlines; good enough for sniffing), after any empty lines (pandas, and so ASReview,
    skips them before the header too)."""
    start = _BLANK_LINES.match(text).end()  # type: ignore[union-attr]  # matches always
    ends = [i for i in (text.find("\n", start), text.find("\r", start)) if i >= 0]
    return text[start : min(ends)] if ends else text[start:]


def _delimiter(header: str) -> str:
    """The delimiter the header line uses most outside double quotes (a comma on a tie)."""
    # every double quote opens or closes quoting: the pieces between them alternate
    # outside, inside, outside... (counted by str.count, not a loop over the characters)
    outside = header.split('"')[::2] if '"' in header else (header,)
    counts = {d: sum(piece.count(d) for piece in outside) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: (counts[d], d == ","))
    return best if counts[best] else ","


@dataclass(frozen=True, slots=True)
class _Plan:
    columns: dict[str, int]  # paper field -> column index
    unmapped: list[tuple[int, str]]  # (index, header) kept in extras
    headers: list[str]
    citation: int | None = None  # PubMed's "Citation" column (kept in extras too)


def _plan(headers: list[str]) -> _Plan:
    normed = [_norm_header(h) for h in headers]
    columns: dict[str, int] = {}
    taken: set[int] = set()
    for fieldname, aliases in _ALIASES.items():
        for alias in aliases:
            if alias in normed:
                idx = normed.index(alias)
                if idx not in taken:
                    columns[fieldname] = idx
                    taken.add(idx)
                    break
    unmapped = [
        (i, h.strip() or f"column {i + 1}") for i, h in enumerate(headers) if i not in taken
    ]
    citation = normed.index("citation") if "citation" in normed else None
    return _Plan(columns=columns, unmapped=unmapped, headers=headers, citation=citation)


def _authors(value: str, scopus: bool) -> tuple[str, ...]:
    if ";" in value:
        parts = _SPLIT_SEMI.split(value)
    elif _SPLIT_AND.search(value):
        parts = _SPLIT_AND.split(value)
    else:
        parts = value.split(",")
        # "Smith, John" is one name; "Liu R., Adler D.G." and "Smith A, Walter B" are two
        if not scopus and len(parts) == 2 and " " not in parts[0].strip():
            parts = [value]
    out = []
    for p in parts:
        name = _SCOPUS_ID.sub("", p).strip()
        if name and name.lower() not in ("[no author name available]", "anonymous"):
            out.append(name[:2000])
    return tuple(out)


def _cell(row: list[str], idx: int | None) -> str:
    if idx is None or idx >= len(row):
        return ""
    return row[idx].strip()


#: the volume, issue and pages of a PubMed citation ("J Transl Med. 2016 Aug 26;14(1):246.
#: doi: …", "Transplantation. 2015 Aug;99(8):1681-90.", "BMJ. 2016;352:i6."): PubMed's CSV
#: export ("csv-<query>-set.csv") gives them in its Citation column only
_PUBMED_CITATION: Final = re.compile(
    r"\b[12]\d{3}(?: [^;.]{1,20})?;(?P<v>\d[^;:()]{0,59}?)?(?:\((?P<i>[^()]{1,60})\))?"
    r"(?::(?P<p>[^\s;]{1,60}?))?\.(?:\s|$)"
)


def _from_citation(citation: str, paper: dict[str, Any]) -> str:
    """Set ``paper``'s volume and issue from a PubMed citation; its pages ("" when none)."""
    m = _PUBMED_CITATION.search(citation)
    if m is None or not (m.group("v") or m.group("p")):
        return ""
    for name, group in (("volume", "v"), ("issue", "i")):
        if value := (m.group(group) or "").strip():
            paper[name] = value
    return (m.group("p") or "").strip()


_EID: Final = re.compile(r"^2-s2\.0-\d+$")
_FUNDING_TEXT: Final = re.compile(r"^funding text \d+$")


def _realign_scopus(
    row: list[str], plan: _Plan, notices: list[Notice], line: int
) -> tuple[list[str], list[str]]:
    """Scopus writes as many ``Funding Text N`` cells as a record needs, which can be more
    than the header names. Move the surplus out when that makes the EID column hold an EID."""
    surplus = len(row) - len(plan.headers)
    eid = plan.columns.get("source_id")
    if surplus <= 0 or eid is None or _EID.match(row[eid].strip()):
        return row, []
    normed = [_norm_header(h) for h in plan.headers]
    funding = [i for i, h in enumerate(normed) if _FUNDING_TEXT.match(h)]
    if not funding:
        return row, []
    cut = funding[-1] + 1
    fixed = row[:cut] + row[cut + surplus :]
    if not _EID.match(fixed[eid].strip()):
        return row, []
    notices.append(
        Notice(
            "other",
            f"row has {plural(surplus, 'more cell')} than the header after "
            f"{plan.headers[funding[-1]].strip()!r}; kept as further funding text",
            line=line,
        )
    )
    return fixed, [v for v in row[cut : cut + surplus] if v.strip()]


def _record(
    row: list[str], plan: _Plan, raw: str, span: tuple[int, int], scopus: bool
) -> RecordTrace:
    first, last = span
    c = plan.columns
    notices: list[Notice] = []
    funding_more: list[str] = []
    if scopus:
        row, funding_more = _realign_scopus(row, plan, notices, first)
    paper: dict[str, Any] = {
        "title": escaped_markup_text(" ".join(_cell(row, c.get("title")).split()))
    }
    authors = _cell(row, c.get("authors"))
    if authors:
        paper["authors"] = _authors(authors, scopus)
    journal = _cell(row, c.get("journal"))
    if journal:
        paper["journal"] = journal[:2000]
    year = _cell(row, c.get("year"))
    if year:
        m = _YEAR.search(year)
        if m:
            paper["year"] = int(m.group(1))
        else:
            notices.append(
                Notice("dropped_field", f"year {year[:30]!r} has no 4-digit year", line=first)
            )
    for fieldname in ("volume", "issue"):
        v = _cell(row, c.get(fieldname))
        if v and len(v) <= 100:
            paper[fieldname] = v
        elif v:
            notices.append(Notice("dropped_field", f"{fieldname} over 100 characters", line=first))
    pages = _cell(row, c.get("pages"))
    if not pages:
        start, end = _cell(row, c.get("page_start")), _cell(row, c.get("page_end"))
        pages = f"{start}-{end}" if start and end else start
    if not pages:
        pages = _cell(row, c.get("article_number"))
    if plan.citation is not None and not (pages or "volume" in paper or "issue" in paper):
        pages = _from_citation(_cell(row, plan.citation), paper)
    if pages and len(pages) <= 100:
        paper["pages"] = pages
    extras: dict[str, list[str]] = {}
    if funding_more:
        extras["Funding Text (more)"] = funding_more
    for fieldname, norm, label in (
        ("doi", normalize_doi, "DOI"),
        ("pmid", normalize_pmid, "PMID"),
        ("pmcid", normalize_pmcid, "PMCID"),
    ):
        v = _cell(row, c.get(fieldname))
        if not v:
            continue
        got = norm(v)
        if got is None:
            header = plan.headers[c[fieldname]]
            notices.append(
                Notice(
                    "malformed_identifier",
                    f"{label} {v[:80]!r} does not normalise; kept in extras",
                    line=first,
                    field=header,
                )
            )
            extras[header] = [v]
        else:
            paper[fieldname] = got
    abstract = _cell(row, c.get("abstract"))
    if abstract and abstract != "[No abstract available]":
        paper["abstract"] = escaped_markup_text(abstract)
    keywords = _cell(row, c.get("keywords"))
    if keywords:
        paper["keywords"] = tuple(k[:2000] for k in _SPLIT_SEMI.split(keywords) if k)
    types = _cell(row, c.get("types"))
    if types:
        paper["publication_types"] = (types[:2000],)
    url = _cell(row, c.get("url"))
    if url:
        safe = safe_https_url(url)
        if safe:
            paper["source_url"] = safe
        else:
            extras[plan.headers[c["url"]]] = [url]
    cited = _cell(row, c.get("cited_by"))
    if cited.isdigit():
        paper["cited_by"] = int(cited)
    for idx, header in plan.unmapped:
        v = _cell(row, idx)
        if v:
            extras.setdefault(header, []).append(v)
    if len(row) > len(plan.headers):
        surplus = [v for v in row[len(plan.headers) :] if v.strip()]
        if surplus:
            extras["(cells beyond the header)"] = surplus
            notices.append(
                Notice(
                    "other", f"{plural(len(surplus), 'cell')} beyond the header kept", line=first
                )
            )
    source_id = _cell(row, c.get("source_id")) or None
    digest = digest_bytes(raw.encode("utf-8", "surrogatepass"))
    try:
        p = make_paper(fallback_key=digest, **paper)
    except PaperError as exc:
        notices.append(Notice("dropped_field", f"fields dropped: {exc.message[:200]}", line=first))
        p = make_paper(fallback_key=digest, title=str(paper.get("title", "")))
    return RecordTrace(
        digest=digest,
        first_line=first,
        last_line=last,
        paper=p,
        raw=raw,
        source_id=source_id,
        notices=tuple(notices),
        extras=extras,
    )


def _parse(text: str, *, scopus: bool) -> ParseResult:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():  # as ``not text.strip()``, without a copy
        raise ImportRefused("empty CSV text", code="empty")
    return _read(_first_line(text), _text_lines(text), scopus=scopus)


def _parse_bytes(data: bytes, *, scopus: bool) -> ParseResult:
    """``_parse`` of UTF-8 ``data`` without decoding it whole (the text of a file with one
    character beyond Latin-1 would take 2 or 4 bytes a character); :class:`NotUtf8` for a
    BOM or bytes that are not UTF-8 (the registry then decodes: BOM notice, Windows-1252)."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise NotUtf8
    if not data or data.isspace():
        raise ImportRefused("empty CSV text", code="empty")
    start = _BLANK_BYTE_LINES.match(data).end()  # type: ignore[union-attr]  # matches always
    ends = [i for i in (data.find(b"\n", start), data.find(b"\r", start)) if i >= 0]
    try:
        header = data[start : min(ends) if ends else len(data)].decode("utf-8")
    except UnicodeDecodeError:
        raise NotUtf8 from None
    return _read(header, _byte_lines(data), scopus=scopus)


#: a quoted cell (``""`` an escaped quote), unrolled so its time is linear
_QUOTED_CELL: Final = re.compile(r'"([^"]*(?:""[^"]*)*)"')


def _split_row(raw: str, delimiter: str) -> list[str] | None:
    """The cells of one row's raw text (RFC 4180: quoted cells may hold the delimiter,
    line breaks and ``""``), for a row ``csv`` refuses to read (a cell over its
    process-wide ``field_size_limit``, 128 KiB); ``None`` when the text is not one row."""
    text = raw.rstrip("\r\n")
    cells: list[str] = []
    pos = 0
    while True:
        quoted = _QUOTED_CELL.match(text, pos)
        if quoted is not None:
            cells.append(quoted.group(1).replace('""', '"'))
            pos = quoted.end()
        else:
            end = text.find(delimiter, pos)
            end = len(text) if end < 0 else end
            cell = text[pos:end]
            if '"' in cell or "\n" in cell or "\r" in cell:
                return None
            cells.append(cell)
            pos = end
        if pos == len(text):
            return cells
        if text[pos] != delimiter:
            return None
        pos += 1


def _read(header_line: str, source: Iterator[str], *, scopus: bool) -> ParseResult:
    delimiter = _delimiter(header_line)
    lines = _Lines(source)
    reader = csv.reader(lines, delimiter=delimiter, strict=False)
    notices: list[Notice] = []
    records: list[RecordTrace] = []
    plan: _Plan | None = None
    done_line = 0
    extra_lines = 0  # lines of a huge cell's row read past the csv reader
    kept = 0  # cells kept in extras so far (MAX_EXTRA_CELLS)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            # a cell over csv.field_size_limit() (128 KiB; process-wide, so not raised
            # here): the row is read from its raw text, the reader goes on after it
            parts = [lines.take()]
            odd = parts[0].count('"') % 2 == 1  # inside a quoted cell at the line's end
            while odd and (line := next(lines, None)) is not None:
                parts.append(lines.take())  # the rest of a quoted cell that spans lines
                extra_lines += 1
                odd ^= line.count('"') % 2 == 1  # each line counted once: linear
            raw = "".join(parts)
            first = done_line + 1
            last = done_line = reader.line_num + extra_lines
            cells = _split_row(raw, delimiter) if "field larger" in str(exc) else None
            if cells is None or plan is None:
                notices.append(
                    Notice(
                        "skipped",
                        f"the row on lines {first}-{last} could not be read "
                        f"({str(exc)[:120]}); the other rows are read",
                        line=first,
                    )
                )
                continue
            row = cells
        else:
            first, last = done_line + 1, reader.line_num + extra_lines
            done_line = last
            raw = lines.take()
        if len(row) > MAX_CELLS:
            raise ImportRefused(
                f"the row on line {first} has {len(row):,} cells, over the {MAX_CELLS:,} a "
                "spreadsheet holds",
                code="too_large",
            )
        if not any(cell.strip() for cell in row):
            if plan is not None and len(row) > 1:
                # a row of delimiters only is a row to pandas (and so to ASReview): say so
                notices.append(
                    Notice("skipped", "a row whose cells are all empty skipped", line=first)
                )
            continue
        if plan is None:
            plan = _plan(row)
            if not {"title", "doi", "pmid"} & set(plan.columns):
                raise ImportRefused(
                    "CSV header has no title, DOI or PMID column (title looked for as: "
                    + ", ".join(_ALIASES["title"])
                    + ")",
                    code="unsupported",
                )
            continue
        record = _record(row, plan, raw.rstrip("\r\n"), (first, last), scopus)
        if record.extras:
            kept += sum(len(values) for values in record.extras.values())
            if kept > MAX_EXTRA_CELLS:
                raise ImportRefused(
                    f"the rows up to line {last} hold over {MAX_EXTRA_CELLS:,} cells outside "
                    "the columns litdesk maps to fields; remove the columns you do not need",
                    code="too_large",
                )
        records.append(record)
    if plan is None:
        raise ImportRefused("CSV text holds no header row", code="empty")
    if records and records[-1].last_line > records[-1].first_line:
        records[-1] = _unclosed(records[-1], delimiter)
    mapping = ", ".join(f"{plan.headers[i].strip()} -> {f}" for f, i in plan.columns.items())
    if plan.citation is not None:
        mapping += f", {plan.headers[plan.citation].strip()} -> volume, issue, pages (when none)"
    notices.insert(0, Notice("mapped_column", f"columns mapped: {mapping}"[:1000], line=1))
    if plan.unmapped:
        notices.insert(
            1,
            Notice(
                "unknown_tag",
                "columns kept in extras: " + ", ".join(h for _, h in plan.unmapped)[:1000],
                line=1,
            ),
        )
    if not records:
        raise ImportRefused("CSV text has a header but no data rows", code="empty")
    return ParseResult(records=records, notices=notices)


def _unclosed(record: RecordTrace, delimiter: str) -> RecordTrace:
    """The last row with an ``unterminated`` notice when a quote opened in it is never
    closed: the reader then takes the rest of the file as one cell (a stray ``"`` at the start
    of a cell, in a hand-edited file) — rows silently lost, which the notice names."""
    try:
        for _ in csv.reader(io.StringIO(record.raw), delimiter=delimiter, strict=True):
            pass
    except csv.Error as exc:
        if "unexpected end of data" not in str(exc):
            return record
        notice = Notice(
            "unterminated",
            f"a quoted cell of the row on line {record.first_line} is never closed: lines "
            f"{record.first_line}-{record.last_line} (the end of the file) were read as that "
            "one row",
            line=record.first_line,
        )
        return record.replace(notices=(*record.notices, notice))
    return record


def parse_scopus(text: str) -> ParseResult:
    """Read a Scopus CSV export."""
    return _parse(text, scopus=True)


def parse_csv(text: str) -> ParseResult:
    """Read a generic CSV/TSV table with a header row (needs a title column)."""
    return _parse(text, scopus=False)


def parse_scopus_bytes(data: bytes) -> ParseResult:
    """``parse_scopus`` of UTF-8 bytes, line by line (see :func:`_parse_bytes`)."""
    return _parse_bytes(data, scopus=True)


def parse_csv_bytes(data: bytes) -> ParseResult:
    """``parse_csv`` of UTF-8 bytes, line by line (see :func:`_parse_bytes`)."""
    return _parse_bytes(data, scopus=False)


@functools.lru_cache(maxsize=1)
def _headers(head: str) -> tuple[int, frozenset[str]]:
    """How many cells the first line of ``head`` has, and the set of their normalised
    headers (each distinct cell normalised once). Kept for the last head: the Scopus and
    the CSV sniffer read the same one in each detection, and a first line may be the whole
    64 KiB head, tens of thousands of cells."""
    head = head.lstrip("\ufeff")
    line = _first_line(head)
    try:
        row = next(csv.reader([line], delimiter=_delimiter(line)))
    except (csv.Error, StopIteration):
        return 0, frozenset()
    return len(row), frozenset(map(_norm_header, set(row)))


def sniff_scopus(head: str) -> int:
    """High when the header carries Scopus's own columns (EID, Source title, Link …)."""
    _, headers = _headers(head)
    hits = sum(1 for m in _SCOPUS_MARKERS if m in headers)
    if hits >= 2:
        return 95 if "eid" in headers else 80
    return 0


def sniff_csv(head: str) -> int:
    """Moderate when the first line is a delimited header with a title column.

    JSON and XML documents are never CSV, whatever commas their first line holds.
    """
    if head.lstrip("\ufeff \t\r\n")[:1] in ("{", "[", "<"):
        return 0
    cells, headers = _headers(head)
    if cells < 2:
        return 0
    if _TITLE_HEADERS.intersection(headers):
        return 40
    if _ID_HEADERS.intersection(headers):
        return 30
    return 0


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="scopus-csv",
        parser_id="litdesk.scopus-csv",
        parser_version=PARSER_VERSION,
        description="Scopus CSV export (recognised by its EID / Source title / Link columns)",
        sniff=sniff_scopus,
        parse=parse_scopus,
        extensions=(".csv",),
    ),
    FormatSpec(
        name="csv",
        parser_id="litdesk.csv",
        parser_version=PARSER_VERSION,
        description="Generic CSV/TSV with a header row (comma, tab or semicolon)",
        sniff=sniff_csv,
        parse=parse_csv,
        extensions=(".csv", ".tsv", ".tab"),
    ),
]
