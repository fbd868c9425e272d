"""Metadata read offline from the PDFs' first pages against the known records (issue 32).

For every PDF of ``$LITDESK_FIXTURES/pdf/`` runs :func:`litdesk.services.pdfmeta.read_pdf_meta`
and compares:

* **title**, exact after normalisation (:func:`litdesk.core.pdfmeta.normalise_title`: case,
  accents, punctuation and spacing folded) with the ``printed title`` of ``MANIFEST.md``;
* **DOI / arXiv id** with the manifest's ``DOI found`` / ``arXiv id found`` columns (and
  ``KNOWN_DOI``: a DOI the manifest's notes place on a later page);
* **first author** (surname) and **year** with ``KNOWN`` below. The manifest has neither,
  so they were transcribed for this bench from each PDF's first page as printed (the
  journal's citation line or copyright year; for arXiv preprints the year of the arXiv
  identifier), before the reader was run on them.

Prints one row per PDF, the rates over every paper of the folder (the files with a printed
title: a scan without a text layer counts, as a miss) and over the papers with a text layer,
and the misses. The encrypted and the broken test files are not papers: they must be refused
with a reason.

    LITDESK_FIXTURES=/work/shared/fixtures PYTHONPATH=src .venv/bin/python bench/pdfmeta_quality.py
"""

from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path

from litdesk._errors import LitdeskError
from litdesk.core.pdfmeta import normalise_title
from litdesk.services.pdfmeta import read_pdf_meta

#: file -> (first author's surname, year), as printed on the first page (see above).
KNOWN: dict[str, tuple[str, int]] = {
    "acl_2020_main_207_specter.pdf": ("Cohan", 2020),
    "arxiv_0908.0054v1.pdf": ("Rodriguez Montoya", 2009),
    "arxiv_1504.06236v2.pdf": ("Sheikhahmadi", 2015),
    "arxiv_2206.10883v3_multilexsum.pdf": ("Shen", 2022),
    "arxiv_2302.07302v1_citesee.pdf": ("Chang", 2023),
    "arxiv_2501.10120v1_pasa.pdf": ("He", 2025),
    "arxiv_hep-ph_9412269.pdf": ("Zeng", 1994),
    "bmc_jtmo_2010_datta_partial.pdf": ("Datta", 2010),
    "clinsci_2014_cs20130403.pdf": ("Douglas", 2014),
    "hindawi_rrp_2010_157939.pdf": ("Tully", 2010),
    "naacl_2018_N18-3011.pdf": ("Ammar", 2018),
    "peerj_cs_2017_118.pdf": ("Webb", 2017),
    "plosone_2018_0197919.pdf": ("Thomason", 2018),
    "scanned_ocr_zfn_1999.pdf": ("Hong", 1999),
    "scielo_transinf_2021_es.pdf": ("Pache-Durán", 2021),
    "scielo_transinf_2023_pt.pdf": ("Santos", 2023),
}

#: DOIs printed outside pages 1-2 (the manifest's notes: "DOI only on last page").
KNOWN_DOI: dict[str, str] = {"bmc_jtmo_2010_datta_partial.pdf": "10.1186/1752-2897-4-1"}


def manifest(fixtures: Path) -> dict[str, dict[str, str]]:
    """The manifest's table, one dict per file (column name -> cell)."""
    rows: dict[str, dict[str, str]] = {}
    head: list[str] | None = None
    for line in (fixtures / "pdf" / "MANIFEST.md").read_text().splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if head is None:
            head = cells
            continue
        row = dict(zip(head, cells, strict=False))
        rows[row["file"]] = row
    return rows


def printed_id(cell: str) -> str | None:
    """The first identifier of a manifest cell ("10.1155/… (p1); …", "none", "-")."""
    first = cell.split(";", maxsplit=1)[0].strip()
    if first in {"", "none", "-"}:
        return None
    return re.sub(r"\s*\(p\d\)$", "", first)


def surname_matches(expected: str, first_author: str | None) -> bool:
    if not first_author:
        return False
    return normalise_title(expected) in normalise_title(first_author)


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()
    fixtures = Path(os.environ["LITDESK_FIXTURES"])
    records = manifest(fixtures)
    checks: dict[str, list[bool]] = {"title": [], "first author": [], "year": [], "ids": []}
    readable: dict[str, list[bool]] = {k: [] for k in checks}
    misses: list[str] = []
    times: list[float] = []
    print("| file | title | first author | year | DOI/arXiv | ms |")
    print("|---|---|---|---|---|---|")
    for name in sorted(records):
        row = records[name]
        known_title = normalise_title(row["printed title"].strip("()"))
        author, year = KNOWN.get(name, ("", 0))
        want_doi = KNOWN_DOI.get(name) or printed_id(row["DOI found (p1-2)"])
        paper = not row["printed title"].startswith("(")
        want_arxiv = printed_id(row["arXiv id found (p1-2)"])
        t0 = time.perf_counter()
        try:
            meta = read_pdf_meta(fixtures / "pdf" / name)
        except LitdeskError as exc:
            times.append((time.perf_counter() - t0) * 1000)
            print(f"| {name} | refused: {exc.message} | | | | {times[-1]:.0f} |")
            if paper:
                for results in checks.values():
                    results.append(False)
                misses.append(f"{name}: not readable ({exc.code})")
            continue
        times.append((time.perf_counter() - t0) * 1000)
        got_title = meta.title.value if meta.title else None
        ok = {
            "title": got_title is not None and normalise_title(got_title) == known_title,
            "first author": surname_matches(author, meta.first_author) if author else None,
            "year": (meta.year is not None and meta.year.value == year) if year else None,
            "ids": (meta.doi.value if meta.doi else None)
            == (want_doi.lower() if want_doi else None)
            and (meta.arxiv.value if meta.arxiv else None)
            == (re.sub(r"v\d+$", "", want_arxiv) if want_arxiv else None),
        }
        text_layer = row.get("text layer", "") == "yes"
        for key, value in ok.items():
            if value is None:
                continue
            checks[key].append(value)
            if text_layer:
                readable[key].append(value)

        def mark(value: bool | None) -> str:
            return "n/a" if value is None else "ok" if value else "MISS"

        cells = [
            f"{'ok' if ok['title'] else 'MISS'} ({meta.title.confidence:.2f})"
            if meta.title
            else "MISS (none)",
            f"{mark(ok['first author'])}: {meta.first_author or '-'}",
            f"{mark(ok['year'])}: {meta.year.value if meta.year else '-'}"
            + (f" ({meta.year.how})" if meta.year else ""),
            "ok" if ok["ids"] else "MISS",
        ]
        print(f"| {name} | " + " | ".join(cells) + f" | {times[-1]:.0f} |")
        if not ok["title"]:
            misses.append(f"{name}: title {got_title!r}, printed {row['printed title']!r}")
        if ok["first author"] is False:
            misses.append(f"{name}: first author {meta.first_author!r}, known {author!r}")
        if ok["year"] is False:
            got_year = meta.year.value if meta.year else None
            misses.append(f"{name}: year {got_year}, known {year}")
        if not ok["ids"]:
            got = (meta.doi.value if meta.doi else None, meta.arxiv.value if meta.arxiv else None)
            misses.append(f"{name}: ids {got}, manifest {(want_doi, want_arxiv)}")
    print()
    for label, table in (("every paper", checks), ("papers with a text layer", readable)):
        print(f"{label}: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in table.items()))
    print(f"time per PDF: max {max(times):.0f} ms, total {sum(times) / 1000:.1f} s")
    print("misses:" if misses else "misses: none")
    for m in misses:
        print(f"  - {m}")


if __name__ == "__main__":
    main()
