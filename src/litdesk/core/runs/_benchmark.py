"""The search-evaluation case set (pure data and checks, no I/O).

Sixty cases in seven buckets, as the reference workspace's benchmark describes: 10
identifier formats, 10 synonym pairs, 10 multi-concept queries, 10 questions, 8 Boolean
and field strategies, 6 typos and symbols, 6 edge cases (five of which expect a specific
error code). Every third case of a bucket (index % 3 == 2) is held out: 18 held out, 42
for development. Tune only on the development split.

The ten identifier cases name real records: the Europe PMC answer in
``$LITDESK_FIXTURES/providers/europepmc/search-cancer-core.json`` (query ``cancer``,
resultType core); each case gives one of them in another identifier format and expects
that record as its known item. No relevance judgments ship with the set: every other case
is unjudged until someone grades it (a window with ungraded hits is reported unjudged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "BENCHMARK_BUCKETS",
    "BENCHMARK_CASES",
    "BENCHMARK_SOURCE",
    "BENCHMARK_VERSION",
    "BenchmarkCase",
    "benchmark_cases",
    "benchmark_judgments",
]

BENCHMARK_VERSION: Final = "litdesk-search-2026-12-05-v1"
#: where the identifier cases' records come from (relative to $LITDESK_FIXTURES)
BENCHMARK_SOURCE: Final = "providers/europepmc/search-cancer-core.json"

Bucket = Literal[
    "identifier", "synonym", "multi-concept", "question", "boolean", "typo-symbol", "edge"
]
Split = Literal["all", "development", "holdout"]

BENCHMARK_BUCKETS: Final[tuple[Bucket, ...]] = (
    "identifier",
    "synonym",
    "multi-concept",
    "question",
    "boolean",
    "typo-symbol",
    "edge",
)


@dataclass(frozen=True, slots=True)
class BenchmarkCase:
    """One case: the query as a researcher types it, the search mode, and what it expects
    (a known record's identity key, or a typed error code)."""

    id: str
    bucket: Bucket
    query: str
    mode: str = "keyword"
    known_items: tuple[str, ...] = ()
    expect_error: str | None = None
    holdout: bool = False

    @property
    def split(self) -> Literal["development", "holdout"]:
        return "holdout" if self.holdout else "development"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "bucket": self.bucket,
            "query": self.query,
            "mode": self.mode,
            "known_items": list(self.known_items),
            "expect_error": self.expect_error,
            "split": self.split,
            "relevance_status": "unjudged",
        }


# (query, mode, known items, expected error) per bucket, in order; the split follows
# from the position.
_RAW: Final[dict[Bucket, tuple[tuple[str, str, tuple[str, ...], str | None], ...]]] = {
    "identifier": (
        ("10.1111/bjhp.12807", "keyword", ("pmid:40468710",), None),
        ("doi:10.3238/arztebl.m2025.0086", "keyword", ("pmid:40464630",), None),
        ("https://doi.org/10.1002/hpja.70059", "keyword", ("pmid:40437959",), None),
        ("40530674", "keyword", ("doi:10.1002/cncr.35944",), None),
        ("PMID:40536418", "keyword", ("doi:10.3238/arztebl.m2025.0099",), None),
        ("https://pubmed.ncbi.nlm.nih.gov/40516981/", "keyword", ("pmid:40516981",), None),
        ("PMC12069736", "keyword", ("pmid:40356016",), None),
        ("pmcid:PMC12106854", "keyword", ("pmid:40420324",), None),
        ("DOI:10.1093/NUTRIT/NUAE105", "keyword", ("pmid:39212676",), None),
        ("https://dx.doi.org/10.1007/s12672-025-02412-7", "keyword", ("pmid:40524053",), None),
    ),
    "synonym": (
        ("heart attack", "keyword", (), None),
        ("myocardial infarction", "keyword", (), None),
        ("high blood pressure", "keyword", (), None),
        ("hypertension", "keyword", (), None),
        ("cot death", "keyword", (), None),
        ("sudden infant death syndrome", "keyword", (), None),
        ("paracetamol liver injury", "keyword", (), None),
        ("acetaminophen hepatotoxicity", "keyword", (), None),
        ("kidney failure", "discovery", (), None),
        ("renal insufficiency", "discovery", (), None),
    ),
    "multi-concept": (
        ("exercise depression older adults", "keyword", (), None),
        ("metformin cancer risk type 2 diabetes", "keyword", (), None),
        ("time-restricted eating cancer", "keyword", (), None),
        ("second-hand smoke bladder cancer nonsmokers", "keyword", (), None),
        ("cancer screening culturally tailored promotion", "keyword", (), None),
        ("psychological flexibility cancer health", "discovery", (), None),
        ("air pollution asthma children", "discovery", (), None),
        ("telehealth diabetes rural", "keyword", (), None),
        ("sleep deprivation memory adolescents", "discovery", (), None),
        ("antibiotic resistance wastewater", "keyword", (), None),
    ),
    "question": (
        ("Does time-restricted eating improve outcomes in cancer?", "discovery", (), None),
        ("Is second-hand smoke a risk factor for bladder cancer?", "discovery", (), None),
        ("What drives pancreatic cancer survival rates?", "discovery", (), None),
        (
            "Does vitamin D supplementation prevent fractures in older adults?",
            "discovery",
            (),
            None,
        ),
        ("How common is mental comorbidity in patients with cancer?", "discovery", (), None),
        ("Which imaging methods detect cancer-associated cachexia?", "semantic", (), None),
        ("Do mindfulness programmes reduce burnout in nurses?", "semantic", (), None),
        ("What is the incidence of breast cancer worldwide?", "discovery", (), None),
        ("Can radiopharmaceuticals treat prostate cancer?", "semantic", (), None),
        ("Does hydrogen sulfide enhance paclitaxel against cancer cells?", "discovery", (), None),
    ),
    "boolean": (
        ('"heart attack" OR "myocardial infarction"', "keyword", (), None),
        ("(cancer OR neoplasm) AND screening NOT breast", "keyword", (), None),
        ('TITLE:"cancer cachexia"', "keyword", (), None),
        ("ABSTRACT:paclitaxel AND TITLE:cancer", "keyword", (), None),
        ('MESH:"Breast Neoplasms" AND incidence', "keyword", (), None),
        ("AUTHOR:Smith AND (diabetes OR obesity)", "keyword", (), None),
        (
            '(prostate AND cancer) AND (radiopharmaceutical* OR "radioligand therapy")',
            "keyword",
            (),
            None,
        ),
        ("surveillance AND (prostate OR kidney) NOT review", "keyword", (), None),
    ),
    "typo-symbol": (
        ("diabtes mellitus", "keyword", (), None),
        ("alzheimers disease", "keyword", (), None),
        ("COVID-19 vaccine myocarditis", "keyword", (), None),
        ("β-blockers heart failure", "keyword", (), None),
        ("IL-6 sepsis", "keyword", (), None),
        ("5-fluorouracil colorectal", "keyword", (), None),
    ),
    "edge": (
        ("", "keyword", (), "empty"),
        ("((cancer", "keyword", (), "group"),
        ("asdkfjhasdkfjhasdfasdasdasdfgsagsd", "keyword", (), None),
        ("cancer AND", "keyword", (), "operator"),
        ('"unclosed phrase', "keyword", (), "quote"),
        ("AND", "keyword", (), "operator"),
    ),
}


def _build() -> tuple[BenchmarkCase, ...]:
    out: list[BenchmarkCase] = []
    for bucket in BENCHMARK_BUCKETS:
        for i, (query, mode, known, error) in enumerate(_RAW[bucket]):
            out.append(
                BenchmarkCase(
                    id=f"{bucket}-{i + 1:02d}",
                    bucket=bucket,
                    query=query,
                    mode=mode,
                    known_items=known,
                    expect_error=error,
                    holdout=i % 3 == 2,
                )
            )
    return tuple(out)


BENCHMARK_CASES: Final = _build()


def benchmark_cases(split: Split = "all") -> tuple[BenchmarkCase, ...]:
    """The cases of ``split`` (``development``, ``holdout`` or ``all``), in set order."""
    if split == "all":
        return BENCHMARK_CASES
    return tuple(c for c in BENCHMARK_CASES if c.split == split)


def benchmark_judgments(cases: Sequence[BenchmarkCase] = BENCHMARK_CASES) -> dict[str, Any]:
    """The judgments file ``litdesk eval --judgments`` reads: the known items of the
    identifier cases (no graded relevance: nothing here is judged)."""
    return {
        "version": BENCHMARK_VERSION,
        "judgments": {c.id: {"known_items": list(c.known_items)} for c in cases if c.known_items},
    }
