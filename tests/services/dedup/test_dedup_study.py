"""``litdesk dedup --study NAME`` without files (issue 27): the Study's own records — what its
imports identified — deduplicated into its working set; ``litdesk study records`` and
``litdesk study working-set`` show them, with the Study's numbers PRISMA reports."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from litdesk.faces.cli import app

DATA = Path(__file__).parent / "data"
FILES = [str(DATA / "dedup_scopus.ris"), str(DATA / "dedup_pubmed.ris")]


def _json(runner: CliRunner, *args: str) -> dict[str, object]:
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert isinstance(doc, dict)
    return doc


def test_dedup_a_study_without_files(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["import", *FILES, "--study", "aHUS"]).exit_code == 0
    out = tmp_path / "working-set.ris"
    run = _json(runner, "dedup", "--study", "aHUS", "-o", str(out))
    counts = run["counts"]
    assert isinstance(counts, dict)
    merged = out.read_text(encoding="utf-8").count("ER  -")
    assert merged == counts["groups"] < counts["records"]

    records = _json(runner, "study", "records", "aHUS")
    ws = _json(runner, "study", "working-set", "aHUS")
    prisma = _json(runner, "report", "prisma", "--study", "aHUS")
    numbers = records["counts"]
    assert numbers == ws["counts"]
    assert isinstance(numbers, dict)
    assert numbers["records_identified"] == counts["records"]
    assert numbers["studies"] == counts["groups"] == merged
    idn = prisma["identification"]
    assert isinstance(idn, dict)
    assert idn["records_after_deduplication"] == numbers["studies"]
    assert idn["records_per_source"] == numbers["records_per_source"]
    rows = records["records"]
    assert isinstance(rows, list)
    assert {r["source"] for r in rows} == {"dedup_scopus.ris (ris)", "dedup_pubmed.ris (ris)"}
    groups = ws["working_set"]
    assert isinstance(groups, list)
    joined = [g for g in groups if len(g["members"]) > 1]
    assert joined and all(g["title"] for g in joined)
    assert all(m["rule"] for g in joined for m in g["members"])

    shown = runner.invoke(app, ["study", "working-set", "aHUS"])
    assert shown.exit_code == 0 and f"{numbers['studies']} studies in the working" in shown.stdout
    # a run's review queue and history as for the web's run
    hist = _json(runner, "dedup-history", "aHUS")["entries"]
    assert isinstance(hist, list) and hist[-1]["kind"] == "run"


def test_dedup_without_files_or_study_is_refused() -> None:
    out = CliRunner().invoke(app, ["dedup"])
    assert out.exit_code == 2 and "--study" in out.output
    alone = CliRunner().invoke(app, ["dedup", "--study", "x", "--decisions", "d.json"])
    assert alone.exit_code == 2
