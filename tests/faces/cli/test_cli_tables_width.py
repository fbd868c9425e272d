"""Every table a command prints fits 80 columns and keeps its words.

Real data: a Study with two fixture imports (one file with a 47-character name), a search
replayed from real Europe PMC and Crossref answers (titles of 100+ characters, long DOIs)
saved into it, its deduplication, evidence and a screening decision, two fixture PDFs, a
small labelled screening file and an evaluation. The plain lists (a Study's papers, saved
papers, evidence, screened records, full text, the working set) are checked the same way: titles are no longer cut. Each command runs at 80 columns; no output line is wider than 80, and every
word the table shows (titles, authors, file names, run ids, queries, …, taken from the
command's ``--json`` twin) appears whole on one line: not cut with "…", not folded into
pieces, no column squeezed to a letter per line. At 200 columns the same commands keep
their tables (the cards are for narrow terminals only).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.faces.cli import _output, app
from litdesk.services.search import make_definition, plan_search

pytestmark = pytest.mark.fixtures

STUDY = "Gambling harms and blue light"
LONG_NAME = "citesource__20221207_gambling-harms_lens_49.ris"


def _width(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    """The CLI's consoles are built once, at import: set the width they print at."""
    monkeypatch.setattr(_output.console, "_width", columns)
    monkeypatch.setattr(_output.err_console, "_width", columns)


@pytest.fixture
def cli(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    _width(monkeypatch, 80)
    runner = CliRunner()

    def invoke(*args: object) -> str:
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == 0, (args, result.output, result.exception)
        return result.stdout

    yield invoke
    get_settings.cache_clear()


def _cassette(folder: Path, fixtures: Path) -> None:
    answers = {
        "europepmc": fixtures / "providers" / "europepmc" / "search-cancer-core.json",
        "crossref": fixtures / "providers" / "crossref" / "works-query-ecology-rows2.json",
    }
    for provider, body in answers.items():
        request = plan_search(make_definition("cancer", providers=[provider])).lanes[0].request
        CassetteRecorder(folder).record(
            Exchange(
                provider=provider,
                method=request.method,
                url=sanitised_url(request),
                request_body=None,
                status=200,
                headers={},
                body=body.read_bytes(),
                received_at=datetime(2026, 11, 30, tzinfo=UTC),
            ),
            Redactor(),
        )


def _labelled(source: Path, target: Path) -> Path:
    """A small labelled file from a SYNERGY set: its included records and 40 others."""
    with source.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    keep = [r for r in rows if r["label_included"] == "1"][:10]
    keep += [r for r in rows if r["label_included"] == "0"][:40]
    with target.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(keep)
    return target


_SPLIT = re.compile(r"[\s│┃|]+")


def _problems(name: str, output: str, shown: Iterable[str]) -> list[str]:
    """Lines wider than 80; words of ``shown`` that do not appear whole in ``output``."""
    out: list[str] = []
    lines = output.splitlines()
    assert lines, f"{name}: printed nothing"
    for line in lines:
        if len(line) > 80:
            out.append(f"{name}: {len(line)} columns: {line!r}")
    tokens = set(_SPLIT.split(output))
    for text in shown:
        for word in str(text).split():
            if len(word) < 76 and word not in tokens:  # longer than a line: folded, allowed
                out.append(f"{name}: the word {word!r} is not whole")
    return out


def test_tables_fit_80_columns_and_keep_their_words(cli, fixtures_dir, tmp_path, monkeypatch):
    bib = fixtures_dir / "bib"
    files = [bib / "ris" / LONG_NAME, bib / "medline" / "reflib__blue-light.nbib"]
    pdfs = [
        fixtures_dir / "pdf" / "arxiv_2302.07302v1_citesee.pdf",
        fixtures_dir / "pdf" / "bmc_jtmo_2010_datta_partial.pdf",
    ]
    _cassette(tmp_path / "cas", fixtures_dir)
    cli("import", *files, "--study", STUDY)
    search = ("search", "cancer", "-p", "europepmc,crossref", "--replay", tmp_path / "cas")
    run_id = json.loads(cli(*search, "--save", "--study", STUDY, "--json"))["id"]
    run = json.loads(cli("runs", "show", run_id, "--json"))
    hits = [h["paper"] for h in run["hits"]]
    assert len(hits) > 20 and max(len(h["title"] or "") for h in hits) > 100
    titles = [h["title"] for h in hits] + [h["authors"][0] for h in hits if h["authors"]]
    for pdf in pdfs:
        cli("library", "add", pdf)
    metas = json.loads(cli("pdf", "meta", *pdfs, "--json"))
    frozen = tmp_path / "frozen.json"
    cli("runs", "freeze", run_id, "--case", "cancer-case", "-o", frozen)
    judgments = tmp_path / "judgments.json"
    first = run["hits"][0]["paper"]["id"]
    judgments.write_text(json.dumps({"judgments": {"cancer-case": {"grades": {first: 2}}}}))
    papers = json.loads(cli("paper", "list", "--study", STUDY, "--json"))
    with_abstract = next(p for p in papers if len((p.get("abstract") or "").split()) > 12)
    passage = " ".join(with_abstract["abstract"].split()[:10])
    finding = "A finding with a long description that takes more than one line at eighty columns"
    cli("evidence", "add", with_abstract["id"], "--finding", finding, "--passage", passage,
        "--study", STUDY)  # fmt: skip
    record = re.search(r"^record (\S+)", cli("screen", "next", STUDY), re.M)
    assert record is not None
    cli("screen", "decide", STUDY, record.group(1), "include")
    paper_titles = [p["title"] for p in papers if p.get("title")]
    page = json.loads(cli("study", "show", STUDY, "--json"))["papers"]  # its first page
    page_titles = [p["title"] for p in page if p.get("title")]
    assert 0 < len(page_titles) < len(paper_titles)  # the papers come a page at a time
    groups = json.loads(cli("study", "working-set", STUDY, "--json"))["working_set"]
    group_titles = [g["title"] for g in groups if g["title"]]
    labelled = _labelled(
        fixtures_dir / "screening" / "synergy_Oud_2018" / "synergy_Oud_2018.csv",
        tmp_path / "oud-labelled-sample.csv",
    )

    commands: list[tuple[str, tuple[object, ...], list[str]]] = [
        ("import", ("import", *files, bib / "ris" / "asreview__web_of_science.txt"), [LONG_NAME]),
        ("dedup", ("dedup", "--study", STUDY), ["duplicates removed"]),
        ("dedup-history", ("dedup-history", STUDY), ["new decisions"]),
        ("search", search, titles),
        ("search --trace", (*search, "--trace"), titles),
        ("runs list", ("runs", "list"), ["cancer", run_id]),
        ("runs show", ("runs", "show", run_id), titles),
        ("library list", ("library", "list"), [p.name for p in pdfs]),
        ("study show", ("study", "show", STUDY), page_titles),
        ("paper list", ("paper", "list", "--study", STUDY), paper_titles),
        ("evidence list", ("evidence", "list", "--study", STUDY), [finding]),
        ("study fulltext", ("study", "fulltext", STUDY), paper_titles),
        ("working set", ("study", "working-set", STUDY), group_titles),
        (
            "screen items",
            ("screen", "items", STUDY, "--status", "included"),
            [record.group(1)],
        ),
        ("pdf meta", ("pdf", "meta", *pdfs), [m["title"]["value"] for m in metas]),
        (
            "eval",
            ("eval", "--runs", frozen, "--judgments", judgments, "--k", "5"),
            ["cancer-case"],
        ),
        (
            "screen simulate",
            ("screen", "simulate", labelled, "--labels", "label_included"),
            ["recall after 10% screened"],
        ),
    ]
    problems: list[str] = []
    narrow: dict[str, str] = {}
    for name, args, shown in commands:
        narrow[name] = cli(*args)
        problems += _problems(name, narrow[name], shown)
    assert not problems, "\n".join(problems)
    # the cards really are what a long table turns into at 80 columns
    assert "why:" in narrow["search"] and "first author" not in narrow["search"]
    assert f"run {run_id}" in narrow["runs list"]

    _width(monkeypatch, 200)
    wide = cli(*search)
    assert "first author" in wide  # the table's header: a table again
    assert "file" in cli("library", "list").split()
