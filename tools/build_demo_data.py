"""Build litdesk's offline demo files from the two CC0 SYNERGY sets (run by hand, not by
tests): ``python tools/build_demo_data.py [FIXTURES_DIR]``.

Reads ONLY ``screening/synergy_Oud_2018`` and ``screening/synergy_Jeyaraman_2020`` of the
shared fixtures (OpenAlex records under CC0 1.0, SYNERGY dataset v1) and writes into
``src/litdesk/_demo/data/``:

* ``sample.jsonl.xz`` — every record with a title from both sets (the demo source's
  sample: ``id`` is the OpenAlex work id);
* ``study.json`` — the demo Study's plan: its question and criteria (the Jeyaraman review's
  own eligibility text), the demo-source search that brings records in, the decisions
  (from the sets' labels), the evidence (verbatim sentences of abstracts);
* ``study-import.ris.gz`` — a database export (RIS) the Study imports: Jeyaraman records,
  some also found by the search, and a few duplicate variants this script makes (title
  case or punctuation changed, DOI removed), so deduplication has work;
* ``demo-export.ris`` — a small export for a newcomer to import (some records already in
  the demo Study);
* ``PROVENANCE.md`` — where all this comes from and what was changed.

Deterministic: the same fixtures give the same files (no randomness, no clock but the
date written into PROVENANCE.md).
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import lzma
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: LaTeX escapes left in the sets' abstracts by an earlier conversion, as a reader means them
_LATEX_LEFTOVERS = (
    ("\\textbackslashtextless", "<"),
    ("\\textbackslashtextgreater", ">"),
)


def _plain_text(text: str) -> str:
    """An abstract as a person reads it: whitespace collapsed, the sets' LaTeX leftovers
    (``p \\textbackslashtextless 0.05``) as the signs they stand for, and a stray ``\\text``
    or ``\\`` at the end dropped."""
    for escaped, sign in _LATEX_LEFTOVERS:
        text = text.replace(escaped, sign)
    text = " ".join(text.split())
    return re.sub(r"(?:\s*\\(?:text)?)+$", "", text)


sys.path.insert(0, str(ROOT / "src"))

from litdesk.core.demo import SampleIndex, SampleRecord, search_sample  # noqa: E402
from litdesk.core.query import parse_query  # noqa: E402

OUT = ROOT / "src" / "litdesk" / "_demo" / "data"
SETS = ("synergy_Jeyaraman_2020", "synergy_Oud_2018")
STUDY_SET = "Jeyaraman_2020"
STUDY_NAME = "Stem cells for knee osteoarthritis (demo)"
STUDY_QUERY = 'knee AND (mesenchymal OR "stem cell" OR "stem cells" OR stromal)'
IMPORT_NAME = "knee-oa-database-export.ris"
#: how many Jeyaraman records the import holds besides the variants, and how many of
#: them the search also finds
IMPORT_SIZE = 150
IMPORT_OVERLAP = 60
VARIANTS = 8
TA_DECISIONS = 100
FT_EXCLUDE_REASON = "Not a randomised controlled trial"
REASONS = (
    "Not a randomised controlled trial",
    "Animal study",
    "Review article",
    "Not knee osteoarthritis",
    "No mesenchymal stem cell therapy",
)
EXPORT_SIZE = 36
EXPORT_IN_STUDY = 12
_ANIMAL = re.compile(
    r"\b(rats?|rabbits?|mice|murine|canine|dogs?|sheep|ovine|goats?|equine)\b", re.I
)
_REVIEW = re.compile(r"\b(review|meta-analysis)\b", re.I)
_OUTCOME = re.compile(r"\b(WOMAC|VAS|KOOS|Lysholm|pain|cartilage)\b")


def read_set(folder: Path) -> tuple[list[SampleRecord], dict[str, int]]:
    dataset = folder.name.removeprefix("synergy_")
    records: list[SampleRecord] = []
    labels: dict[str, int] = {}
    with (folder / f"{folder.name}.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if not row["title"].strip() or not row["openalex_id"].strip():
                continue
            rec = SampleRecord(
                id=row["openalex_id"].strip(),
                title=" ".join(row["title"].split()),
                abstract=_plain_text(row["abstract"]),
                authors=tuple(a.strip() for a in row["authors"].split(";") if a.strip()),
                year=int(row["year"]) if row["year"].strip().isdigit() else None,
                journal=row["journal"].strip(),
                doi=row["doi"].strip() or None,
                pmid=row["pmid"].strip() or None,
                dataset=dataset,
            )
            records.append(rec)
            labels[rec.id] = int(row["label_included"] or 0)
    return records, labels


def ris(rec: SampleRecord, *, title: str | None = None, doi: str | None = "keep") -> str:
    lines = ["TY  - JOUR", f"TI  - {title if title is not None else rec.title}"]
    lines += [f"AU  - {a}" for a in rec.authors]
    if rec.year:
        lines.append(f"PY  - {rec.year}")
    if rec.journal:
        lines.append(f"JO  - {rec.journal}")
    the_doi = rec.doi if doi == "keep" else doi
    if the_doi:
        lines.append(f"DO  - {the_doi}")
    if rec.pmid:
        lines.append(f"AN  - {rec.pmid}")
    if rec.abstract:
        lines.append(f"AB  - {rec.abstract}")
    lines.append(f"UR  - https://openalex.org/{rec.id}")
    lines.append("ER  - ")
    return "\n".join(lines) + "\n"


def variant(rec: SampleRecord, n: int) -> tuple[str, str | None, str]:
    """A duplicate of ``rec`` as another database would export it (what changed, said)."""
    kind = n % 4
    if kind == 0:
        return rec.title.lower(), rec.doi, "title in lower case"
    if kind == 1:
        return rec.title.rstrip(".") + ".", None, "DOI missing, full stop added to the title"
    if kind == 2:
        return rec.title.replace(":", " -").replace(",", ""), rec.doi, "punctuation changed"
    return rec.title.lower(), None, "title in lower case, DOI missing"


def sentence_with_outcome(abstract: str) -> str | None:
    for sentence in re.split(r"(?<=[.!?])\s+", abstract):
        if 40 <= len(sentence) <= 400 and _OUTCOME.search(sentence):
            return sentence
    return None


def ta_reason(rec: SampleRecord) -> str:
    if _ANIMAL.search(rec.title):
        return "Animal study"
    if _REVIEW.search(rec.title):
        return "Review article"
    return ""


def main(fixtures: Path) -> None:
    records: list[SampleRecord] = []
    labels: dict[str, int] = {}
    for name in SETS:
        got, lab = read_set(fixtures / "screening" / name)
        records += got
        labels |= lab
    by_id = {r.id: r for r in records}
    OUT.mkdir(parents=True, exist_ok=True)

    # 1. the sample
    lines = "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in records)
    (OUT / "sample.jsonl.xz").write_bytes(lzma.compress(lines.encode("utf-8"), preset=9))

    # 2. the Study: the search's hits and an import overlapping them
    index = SampleIndex(records)
    hits = search_sample(index, parse_query(STUDY_QUERY), limit=10_000).records
    found = {r.id for r in hits}
    study_pool = [r for r in records if r.dataset == STUDY_SET and r.abstract and r.doi]
    overlap = [r for r in hits if r.abstract and r.doi][::3][:IMPORT_OVERLAP]
    # the import's own records: every included record the search misses first, then others
    missed_in = [r for r in study_pool if r.id not in found and labels[r.id]]
    missed_out = [r for r in study_pool if r.id not in found and not labels[r.id]]
    own = (missed_in + missed_out[::7])[: IMPORT_SIZE - len(overlap)]
    imported = overlap + own
    variants = []
    for n, rec in enumerate(imported[:: max(1, len(imported) // VARIANTS)][:VARIANTS]):
        title, doi, what = variant(rec, n)
        variants.append({"id": rec.id, "title": title, "doi": doi, "changed": what})
    body = "".join(ris(r) for r in imported)
    body += "".join(ris(by_id[v["id"]], title=v["title"], doi=v["doi"]) for v in variants)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        gz.write(body.encode("utf-8"))
    (OUT / "study-import.ris.gz").write_bytes(buf.getvalue())

    # decisions: the included records first (so the demo has includes), then the others
    in_study = {r.id: r for r in [*hits, *imported]}
    pool = [r for r in in_study.values() if r.doi and r.abstract]
    included = [r for r in pool if labels[r.id]]
    excluded = [r for r in pool if not labels[r.id]]
    ta_in = included[:24]
    # a few the reviewers would pass at title/abstract and exclude at full text
    liberal = [r for r in excluded if r.id in found and not ta_reason(r)][:6]
    ta_out = [r for r in excluded if r not in liberal][: TA_DECISIONS - len(ta_in) - len(liberal)]
    title_abstract = [{"id": r.id, "verdict": "include", "reason": ""} for r in ta_in + liberal]
    title_abstract += [{"id": r.id, "verdict": "exclude", "reason": ta_reason(r)} for r in ta_out]
    full_text = [{"id": r.id, "verdict": "include", "reason": ""} for r in ta_in[:10]]
    full_text += [
        {"id": r.id, "verdict": "exclude", "reason": FT_EXCLUDE_REASON} for r in liberal[:4]
    ]
    evidence = []
    for rec in ta_in[:10]:
        passage = sentence_with_outcome(rec.abstract)
        if passage is None:
            continue
        evidence.append(
            {
                "id": rec.id,
                "passage": passage,
                "finding": "Outcome reported in the abstract (demo: the passage is the "
                "abstract's own sentence)",
                "population": "Patients with knee osteoarthritis",
                "intervention": "Mesenchymal stem cell therapy",
            }
        )
        if len(evidence) == 6:
            break
    criteria = fixtures / "screening" / "synergy_Jeyaraman_2020" / "eligibility_criteria.txt"
    text = "\n".join(
        line
        for line in criteria.read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ).strip()
    inclusion, _, exclusion = text.partition("Exclusion Criteria")
    plan = {
        "name": STUDY_NAME,
        "question": "Does mesenchymal stem cell therapy, compared with usual care, improve pain "
        "and function in adults with knee osteoarthritis? (Jeyaraman et al. 2020, "
        "doi:10.1177/1947603520951623)",
        "inclusion": inclusion.strip(),
        "exclusion": ("Exclusion Criteria" + exclusion).strip(),
        "reasons": list(REASONS),
        "search": {"query": STUDY_QUERY, "providers": ["demo"]},
        "import": {"file": "study-import.ris.gz", "name": IMPORT_NAME},
        "variants": variants,
        "title_abstract": title_abstract,
        "full_text": full_text,
        "evidence": evidence,
        "counts": {
            "search_hits": len(hits),
            "imported": len(imported) + len(variants),
            "overlap": len(overlap),
            "variants": len(variants),
            "unique": len(in_study),
        },
    }
    (OUT / "study.json").write_text(json.dumps(plan, indent=1, ensure_ascii=False) + "\n")

    # 3. the newcomer's export: some records of the Study, most from outside it
    outside = [r for r in records if r.dataset == STUDY_SET and r.id not in in_study and r.abstract]
    inside = [r for r in hits if r.abstract][1::9][:EXPORT_IN_STUDY]
    export = inside + outside[::11][: EXPORT_SIZE - len(inside)]
    (OUT / "demo-export.ris").write_text("".join(ris(r) for r in export), encoding="utf-8")

    (OUT / "PROVENANCE.md").write_text(provenance(plan, len(records), len(export), len(inside)))
    print(json.dumps(plan["counts"]), f"sample {len(records)}", f"export {len(export)}")


def provenance(plan: dict[str, object], sample: int, export: int, inside: int) -> str:
    counts = plan["counts"]
    assert isinstance(counts, dict)
    today = os.environ.get("DEMO_BUILD_DATE") or dt.date.today().isoformat()
    return f"""# The demo workspace's data: provenance

These files are litdesk's own demo data, made by `tools/build_demo_data.py` on {today}
from two datasets of the SYNERGY collection and nothing else.

## Source
- **SYNERGY dataset v1** (asreview/synergy-dataset, branch releases/v1): the sets
  `Jeyaraman_2020` (mesenchymal stem cells for knee osteoarthritis; review
  doi:10.1177/1947603520951623) and `Oud_2018` (psychotherapies for borderline personality
  disorder; review doi:10.1177/0004867418791257).
- The records are **OpenAlex** works (titles, abstracts rebuilt from OpenAlex's inverted
  index, authors, year, journal, DOI, PMID, OpenAlex id) with the reviews' labels.
- **Licence: CC0 1.0** (public domain dedication) — the SYNERGY data and OpenAlex's data
  alike. The Jeyaraman review's eligibility criteria text comes from the SYNERGY
  collection's `datasets.toml` (CC0 too).

## What was made from it
- `sample.jsonl.xz`: every record with a title and an OpenAlex id ({sample:,} records);
  whitespace collapsed, authors split on `;`, and in abstracts the sets' LaTeX leftovers
  `\\textbackslashtextless` / `\\textbackslashtextgreater` written as `<` / `>` (a stray
  `\\text` at an abstract's end dropped); nothing else changed. The labels are not kept.
- `study-import.ris.gz`: {counts["imported"]} RIS records of the Jeyaraman set, of which
  {counts["overlap"]} are also found by the demo Study's search and {counts["variants"]} are
  **duplicate variants made by the script** (title in lower case, punctuation changed, a full
  stop added, DOI removed — listed in `study.json` under `variants`), so that deduplication
  has work to do.
- `study.json`: the demo Study's plan. Its question and criteria are the Jeyaraman
  review's; its search is `{STUDY_QUERY}` on the demo sample. The screening decisions
  come from the set's labels (label 1: included at title/abstract and at full text;
  label 0: excluded), except a few label-0 records the script includes at title/abstract
  and excludes at full text ("{FT_EXCLUDE_REASON}"), to show both stages; title/abstract
  exclusion reasons ("Animal study", "Review article") are given by the script from words
  in the title. The evidence passages are verbatim sentences of the records' abstracts;
  their "finding" says it is demo text.
- `demo-export.ris`: {export} RIS records of the Jeyaraman set for a newcomer to import,
  {inside} of them already in the demo Study.

These files are used only by the demo workspace (`litdesk demo reset`, `litdesk serve
--demo`); they are examples, not search results from a live database.
"""


if __name__ == "__main__":
    default = os.environ.get("LITDESK_FIXTURES") or str(ROOT.parent / "shared" / "fixtures")
    main(Path(sys.argv[1] if len(sys.argv) > 1 else default))
