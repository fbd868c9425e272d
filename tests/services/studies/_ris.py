"""Generated RIS export files for the tests of update rounds begun by hand (issue 28):
records ``r{n}`` with DOIs ``10.5555/r{n}``, each title its own, from a named database."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ris"]

_WORDS = [
    "malaria",
    "vaccine",
    "children",
    "dosing",
    "trial",
    "cohort",
    "mosquito",
    "nets",
    "fever",
    "anaemia",
    "africa",
    "immunity",
    "booster",
    "efficacy",
    "placebo",
    "infant",
    "village",
    "rainfall",
    "season",
    "clinic",
    "parasite",
    "resistance",
    "artemisinin",
    "household",
    "survey",
    "mortality",
    "adjuvant",
    "antigen",
    "serology",
]


def _title(n: int) -> str:
    """A title of its own per record (no two alike, so only a shared DOI groups them)."""
    return " ".join(_WORDS[(n * k + k * k) % len(_WORDS)] for k in (1, 3, 5, 7, 11)) + f" {n}"


def ris(path: Path, numbers: range, database: str) -> Path:
    """An export file of records ``numbers`` (DOI ``10.5555/r{n}``) from ``database``."""
    lines: list[str] = []
    for n in numbers:
        lines += [
            "TY  - JOUR",
            f"TI  - {_title(n)}",
            f"AU  - Author{n}, A.",
            f"PY  - {2000 + n % 20}",
            f"DO  - 10.5555/r{n}",
            f"AB  - Abstract of record {n}: {_title(n * 7)}.",
            f"DB  - {database}",
            "ER  - ",
            "",
        ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
