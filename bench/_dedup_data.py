"""Shared helpers of the deduplication benchmarks: synthetic records with known
duplicates, and the peer (bib-dedupe) run on the same records."""

from __future__ import annotations

import random
from collections.abc import Sequence

from litdesk.core.records import Paper

WORDS = [
    "complement",
    "syndrome",
    "renal",
    "kidney",
    "transplantation",
    "eculizumab",
    "atypical",
    "hemolytic",
    "uremic",
    "factor",
    "protein",
    "deficiency",
    "children",
    "adult",
    "therapy",
    "trial",
    "outcome",
    "cohort",
    "randomized",
    "association",
    "genetic",
    "variant",
    "mutation",
    "expression",
    "pathway",
    "inflammation",
    "immune",
    "response",
    "cell",
    "tumour",
    "cancer",
    "breast",
    "lung",
    "liver",
    "cardiac",
    "vascular",
    "thrombosis",
    "platelet",
    "infection",
    "vaccine",
    "antibody",
    "receptor",
    "signalling",
    "model",
    "mouse",
    "human",
    "clinical",
    "review",
    "meta",
    "analysis",
    "systematic",
    "long",
    "term",
    "effect",
    "efficacy",
    "safety",
    "dose",
    "plasma",
    "exchange",
    "recurrence",
    "risk",
]
JOURNALS = [
    ("Pediatric Nephrology", "Pediatr Nephrol"),
    ("New England Journal of Medicine", "N Engl J Med"),
    ("American Journal of Transplantation", "Am J Transplant"),
    ("Kidney International", "Kidney Int"),
    ("Blood", "Blood"),
    ("Nature Reviews Nephrology", "Nat Rev Nephrol"),
    ("Journal of Thrombosis and Haemostasis", "J Thromb Haemost"),
    ("Clinical and Experimental Immunology", "Clin Exp Immunol"),
]
SURNAMES = [
    "Smith",
    "Zuber",
    "Noris",
    "Remuzzi",
    "Loirat",
    "Fremeaux",
    "Kavanagh",
    "Goodship",
    "Richards",
    "Licht",
    "Legendre",
    "Zipfel",
    "Skerka",
    "Nurnberger",
    "Philipp",
    "Koehl",
    "Boyer",
    "Hillmen",
    "Kelly",
    "Arnold",
    "Caprioli",
    "Cochat",
]


_VOCAB_RND = random.Random(5)
_SYLLABLES = [
    "ka",
    "ro",
    "mi",
    "te",
    "lu",
    "sa",
    "ne",
    "po",
    "ri",
    "da",
    "ven",
    "tor",
    "lis",
    "gen",
    "ph",
    "ox",
]
#: a realistic vocabulary: the domain words plus 3,000 generated ones (Zipf-like use)
VOCAB = list(WORDS) + [
    "".join(_VOCAB_RND.choice(_SYLLABLES) for _ in range(_VOCAB_RND.randint(2, 4)))
    for _ in range(3000)
]
#: 2,000 surnames: the real ones above and generated ones
NAMES = list(SURNAMES) + [
    "".join(_VOCAB_RND.choice(_SYLLABLES) for _ in range(_VOCAB_RND.randint(2, 3))).capitalize()
    for _ in range(2000)
]


# DOI prefixes of preprint servers (bioRxiv/medRxiv 10.1101, SSRN 10.2139): a journal article
# generated under one would be read as a preprint and linked, not merged, with its copies.
_PREPRINT_PREFIXES = frozenset({1101, 2139})


def _journal_prefix(paper: int) -> int:
    prefix = 1000 + paper % 8999
    return prefix + 1 if prefix in _PREPRINT_PREFIXES else prefix


def _title(rnd: random.Random) -> str:
    n = rnd.randint(5, 16)
    words = [
        VOCAB[min(int(rnd.paretovariate(0.6)) - 1, len(VOCAB) - 1)]
        if rnd.random() < 0.5
        else rnd.choice(VOCAB)
        for _ in range(n)
    ]
    return " ".join(words).capitalize()


def synthetic(
    n: int, *, dup_rate: float = 0.3, seed: int = 11
) -> tuple[list[dict[str, object]], list[list[int]]]:
    """``n`` records (field dicts) and the true duplicate groups (indices)."""
    rnd = random.Random(seed)
    records: list[dict[str, object]] = []
    truth: list[list[int]] = []
    paper = 0
    while len(records) < n:
        paper += 1
        surname = [rnd.choice(NAMES) for _ in range(rnd.randint(1, 6))]
        initials = [
            "".join(rnd.choice("ABCDEFGHJKLMPRST") for _ in range(rnd.randint(1, 2)))
            for _ in surname
        ]
        journal = rnd.choice(JOURNALS)
        year = rnd.randint(1990, 2024)
        volume = str(rnd.randint(1, 400))
        first = rnd.randint(1, 3000)
        last = first + rnd.randint(1, 20)
        base = {
            "title": _title(rnd),
            "authors": [f"{s}, {'. '.join(i)}." for s, i in zip(surname, initials, strict=True)],
            "journal": journal[0],
            "year": year,
            "volume": volume,
            "pages": f"{first}-{last}",
            "doi": f"10.{_journal_prefix(paper)}/j.{paper}" if rnd.random() < 0.7 else None,
            "pmid": str(100000 + paper) if rnd.random() < 0.4 else None,
        }
        copies = 1
        if rnd.random() < dup_rate:
            copies += rnd.choice((1, 1, 1, 2, 3))
        group = []
        for c in range(copies):
            rec = dict(base)
            if c:
                rec["authors"] = [a.replace(",", "").replace(".", "") for a in base["authors"]]  # type: ignore[union-attr]
                if rnd.random() < 0.5:
                    rec["journal"] = journal[1]
                if rnd.random() < 0.5:
                    rec["doi"] = None
                if rnd.random() < 0.5:
                    rec["pmid"] = None
                if rnd.random() < 0.3:
                    rec["title"] = str(rec["title"]).upper() + "."
                if rnd.random() < 0.1:  # a typo
                    t = str(rec["title"])
                    i = rnd.randrange(len(t))
                    rec["title"] = t[:i] + t[i + 1 :]
                if rnd.random() < 0.3:
                    rec["pages"] = f"{first}-{str(last)[-2:]}"
                if rnd.random() < 0.03:
                    rec["year"] = year + 1
            group.append(len(records))
            records.append(rec)
            if len(records) >= n:
                break
        if len(group) > 1:
            truth.append(group)
    return records, truth


def to_papers(records: Sequence[dict[str, object]]) -> list[Paper]:
    from litdesk.core.records import make_paper

    return [
        make_paper(
            title=str(r["title"]),
            authors=tuple(r["authors"]),  # type: ignore[arg-type]
            journal=r["journal"],
            year=r["year"],
            volume=r["volume"],
            pages=r["pages"],
            doi=r["doi"],
            pmid=r["pmid"],
            fallback_key=f"rec-{i}",
        )
        for i, r in enumerate(records)
    ]


def bib_dedupe_groups(papers: Sequence[Paper], *, cpu: int = 2) -> list[list[int]]:
    """Run bib-dedupe (prep, block, match, cluster) on the same records; groups of indices."""
    import os
    import sys

    import pandas as pd
    from bib_dedupe.bib_dedupe import block, cluster, match, prep

    rows = []
    for i, p in enumerate(papers):
        rows.append(
            {
                "ID": f"r{i}",
                "ENTRYTYPE": "article",
                "title": p.title,
                "author": " and ".join(p.authors),
                "year": str(p.year or ""),
                "journal": p.journal or "",
                "volume": p.volume or "",
                "number": p.issue or "",
                "pages": p.pages or "",
                "doi": p.doi or "",
                "abstract": "",
            }
        )
    df = pd.DataFrame(rows)
    devnull = open(os.devnull, "w")  # noqa: SIM115 - bib-dedupe prints progress
    saved = sys.stdout
    sys.stdout = devnull
    try:
        prepped = prep(df, verbosity_level=0, cpu=cpu)
        pairs = block(prepped, verbosity_level=0, cpu=cpu)
        matched = match(pairs, verbosity_level=0, cpu=cpu)
        sets = cluster(matched, verbosity_level=0)
    finally:
        sys.stdout = saved
        devnull.close()
    return [sorted(int(x[1:]) for x in s) for s in sets]
