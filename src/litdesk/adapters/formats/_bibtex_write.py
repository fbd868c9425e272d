"""BibTeX / biblatex export: stable unique cite keys, every special character escaped.

Part of the ``bibtex`` format (``_bibtex`` reads; this module writes).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final

from litdesk.core.records import Paper

from ._latex import id_to_latex, text_to_latex

__all__ = ["dumps"]

_STOP: Final = frozenset("a an the on of in for and to with from at by is are".split())  # noqa: SIM905
_TYPES: Final = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "journal article": "article",
    "paper-conference": "inproceedings",
    "chapter": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
    "webpage": "online",
    "dataset": "misc",
}


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _author_field(name: str) -> str:
    name = " ".join(name.split())
    fam, sep, giv = name.partition(", ")
    simple = (
        sep
        and fam
        and giv
        and "," not in fam
        and "," not in giv
        and fam == fam.strip()
        and giv == giv.strip()
        and not re.search(r"(?i)(?:^|\s)and(?:\s|$)", name)
        and not fam.lstrip("{\\")[:1].islower()
    )
    if simple:
        return f"{text_to_latex(fam)}, {text_to_latex(giv)}"
    return "{" + text_to_latex(name) + "}"


def _entry_type(p: Paper) -> str:
    for t in p.publication_types:
        low = t.lower()
        if low in _TYPES:
            return _TYPES[low]
        if re.fullmatch(r"[a-z]{2,30}", low):
            return low
    return "article"


def _cite_key(p: Paper) -> str:
    fam = ""
    if p.authors:
        fam = _ascii_word(p.authors[0].split(",")[0])[:30]
    year = str(p.year) if p.year else ""
    word = ""
    for w in re.split(r"\W+", p.title):
        aw = _ascii_word(w)
        if aw and aw not in _STOP:
            word = aw[:20]
            break
    key = f"{fam}{year}{word}"
    return key or "paper"


def _suffix(i: int) -> str:
    out = ""
    while i > 0:
        i -= 1
        out = chr(ord("a") + i % 26) + out
        i //= 26
    return out


def dumps(papers: Sequence[Paper]) -> str:
    """BibTeX for ``papers``: stable unique keys, every special character escaped."""
    seen: set[str] = set()
    chunks: list[str] = []
    for p in papers:
        base = _cite_key(p)
        key = base
        i = 0
        while key in seen:
            i += 1
            key = base + _suffix(i)
        seen.add(key)
        etype = _entry_type(p)
        lines = [f"@{etype}{{{key},"]

        def add(name: str, value: str, lines: list[str] = lines) -> None:
            lines.append(f"  {name} = {{{value}}},")

        add("title", text_to_latex(p.title))
        if p.authors:
            add("author", " and ".join(_author_field(a) for a in p.authors))
        if p.journal:
            container = (
                "booktitle" if etype in ("inproceedings", "incollection", "inbook") else "journal"
            )
            add(container, text_to_latex(p.journal))
        if p.year is not None:
            add("year", str(p.year))
        if p.volume:
            add("volume", text_to_latex(p.volume))
        if p.issue:
            add("number", text_to_latex(p.issue))
        if p.pages:
            add("pages", text_to_latex(p.pages))
        if p.doi:
            add("doi", id_to_latex(p.doi))
        if p.pmid:
            add("pmid", id_to_latex(p.pmid))
        if p.pmcid:
            add("pmcid", id_to_latex(p.pmcid))
        if p.arxiv_id:
            add("eprint", id_to_latex(p.arxiv_id))
            add("archiveprefix", "arXiv")
        if p.source_url:
            add("url", id_to_latex(p.source_url))
        if p.keywords:
            add("keywords", "; ".join(text_to_latex(k.replace(";", ",")) for k in p.keywords))
        if p.abstract:
            add("abstract", text_to_latex(p.abstract))
        lines.append("}")
        chunks.append("\n".join(lines))
    return "\n\n".join(chunks) + ("\n" if chunks else "")
