"""Which reference manager wrote an export file, as the file's own markers say.

A file a reference manager exported holds records the reviewers gathered elsewhere: it is not
itself where they searched, and its per-record "database" fields name the catalog a record was
captured from (Zotero's RIS ``DP`` is its "Library Catalog": "PubMed", "BioMed Central"…).
The readers name the tool here (``SourceInfo.tool``) and the import's PRISMA source follows
from it (:func:`litdesk.core.imports.default_source`). Only markers the tools' own code or
output shows are read — no guess from a file's name:

* Zotero RIS: Zotero writes each record's tags in one fixed order (``exportOrder`` of its RIS
  translator, zotero/translators ``RIS.js``: TI AU T2 … DA PY DO DP … UR AN DB Y2 L1 L2 L4 N1
  KW, ``EP`` right after ``SP``) and its ``DA`` as ``YYYY/MM/DD/`` (empty parts kept). A file
  every record of which keeps that order, with such a ``DA``, is Zotero's. The databases'
  own RIS have other orders (EBSCOhost ``AU`` ``AD`` ``T1`` ``JO`` ``Y1``…, Scopus ``AU``
  before ``TI``, Ovid ``DB`` near the top) — checked on ``$LITDESK_FIXTURES/bib/ris``.
* JabRef BibTeX: its ``@Comment{jabref-meta: …}`` blocks (JabRef's ``BibtexDatabaseWriter``
  writes ``@Comment{jabref-meta: databaseType:bibtex;}``).
* EndNote XML: each record's ``<source-app name="EndNote">`` (the name it gives).

Mendeley's exports carry no marker litdesk has seen in a real file: they are read as
what they are (RIS, BibTeX) and name their source as such a file does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from litdesk.core.imports import RecordTrace

__all__ = ["MAX_TOOL_RECORDS", "endnote_tool", "jabref_tool", "zotero_ris_tool"]

#: the records a marker is looked for in (the first ones): a file's layout is one tool's
MAX_TOOL_RECORDS: Final = 500
#: Zotero's RIS export order (zotero/translators RIS.js, ``exportOrder.__default``)
_ZOTERO_ORDER: Final = (
    "TI",
    "AU",
    "T2",
    "A2",
    "T3",
    "A3",
    "A4",
    "AB",
    "C1",
    "C2",
    "C3",
    "C4",
    "C5",
    "C6",
    "CN",
    "CY",
    "DA",
    "PY",
    "DO",
    "DP",
    "ET",
    "VL",
    "IS",
    "SP",
    "J2",
    "LA",
    "M1",
    "M3",
    "NV",
    "OP",
    "PB",
    "SE",
    "SN",
    "ST",
    "SV",
    "UR",
    "AN",
    "DB",
    "Y2",
    "L1",
    "L2",
    "L4",
    "N1",
    "KW",
)
_ZOTERO_RANK: Final = {tag: i for i, tag in enumerate(_ZOTERO_ORDER)} | {
    "EP": _ZOTERO_ORDER.index("SP")  # written right after SP (pages split in two)
}
_RIS_LINE: Final = re.compile(r"([A-Z][A-Z0-9])  -(?: (.*))?")
_ZOTERO_DA: Final = re.compile(r"\d{4}/\d{0,2}/\d{0,2}/")
_JABREF_META: Final = re.compile(rb"@comment[ \t]*\{[ \t]*jabref-meta:", re.IGNORECASE)
_JABREF_META_TEXT: Final = re.compile(r"@comment[ \t]*\{[ \t]*jabref-meta:", re.IGNORECASE)
_TOOL_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9 .+-]{0,39}")


def _zotero_record(raw: str) -> tuple[bool, bool]:
    """(the record keeps Zotero's tag order, it has a ``DA`` as Zotero writes it)."""
    rank = -1
    dated = False
    tags = 0
    for line in raw.splitlines():
        m = _RIS_LINE.fullmatch(line.lstrip("\ufeff").rstrip())
        if m is None:
            continue  # a continuation line of the value before
        tag = m.group(1)
        if tags == 0:
            if tag != "TY":
                return False, False
            tags = 1
            continue
        if tag == "ER":
            break
        now = _ZOTERO_RANK.get(tag)
        if now is None or now < rank:
            return False, False
        rank = now
        tags += 1
        if tag == "DA" and _ZOTERO_DA.match(m.group(2) or ""):
            dated = True
    return tags > 1, dated


def zotero_ris_tool(data: bytes | str, records: Sequence[RecordTrace]) -> str | None:
    """``"Zotero"`` when every record (of the first :data:`MAX_TOOL_RECORDS`) keeps Zotero's
    RIS tag order and one at least has Zotero's ``DA``; else ``None``."""
    del data
    dated = False
    for rec in records[:MAX_TOOL_RECORDS]:
        ordered, has_da = _zotero_record(rec.raw)
        if not ordered:
            return None
        dated = dated or has_da
    return "Zotero" if dated and records else None


def jabref_tool(data: bytes | str, records: Sequence[RecordTrace]) -> str | None:
    """``"JabRef"`` when the file holds a ``@Comment{jabref-meta: …}`` block."""
    del records
    found = _JABREF_META.search(data) if isinstance(data, bytes) else _JABREF_META_TEXT.search(data)
    return "JabRef" if found else None


def endnote_tool(data: bytes | str, records: Sequence[RecordTrace]) -> str | None:
    """The program EndNote XML records name in ``<source-app>`` ("EndNote"), when every
    record that names one names the same; ``None`` when none does."""
    del data
    names = {
        v.strip()
        for rec in records[:MAX_TOOL_RECORDS]
        for v in rec.extras.get("source-app", ())[:1]
        if v.strip()
    }
    if len(names) != 1:
        return None
    name = names.pop()
    return name if _TOOL_NAME.fullmatch(name) else None
