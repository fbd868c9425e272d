"""``litdesk screen import-decisions | export-decisions | conflicts | reveal | resolve |
agreement`` and ``litdesk study prisma`` end to end on a real SQLite store: a Rayyan-shaped
export with two reviewers in a dual-review Study, its conflicts revealed and resolved, the
RIS export read back by ``litdesk import``, the PRISMA flow as JSON, Markdown, CSV, SVG."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app
from litdesk.services.accounts import Sharing
from litdesk.services.app import open_app_sync

TITLES = [f"Trial {i} of a beta blocker in heart failure cohort {i * 7}" for i in range(10)]


@pytest.fixture
def cli(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: object, code: int = 0, input: str | None = None):
        result = runner.invoke(app, [str(a) for a in args], input=input)
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def test_team_screening_from_the_cli(cli, tmp_path: Path) -> None:
    records = tmp_path / "records.csv"
    records.write_text(
        "title,doi,year\n"
        + "".join(f"{t},10.1000/t{i},{2000 + i}\n" for i, t in enumerate(TITLES)),
        encoding="utf-8",
    )
    cli("study", "new", "Beta")
    cli("import", records, "--study", "Beta")
    cli("screen", "configure", "Beta", "--dual-review", "title_abstract=on")
    rayyan = tmp_path / "rayyan.csv"
    rows = ["key,title,year,notes"]
    for i, t in enumerate(TITLES):
        a = "Included" if i % 2 else "Excluded"
        b = a if i % 3 else ("Included" if a == "Excluded" else "Excluded")
        rows.append(
            f'{i + 1},{t},{2000 + i},"RAYYAN-INCLUSION: {{""Ann""=>""{a}"", ""Bo""=>""{b}""}}"'
        )
    rows.append(
        '11,Nothing like this is in the Study,1999,"RAYYAN-INCLUSION: {""Ann""=>""Included""}"'
    )
    rayyan.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = json.loads(cli("screen", "import-decisions", "Beta", rayyan, "--json").stdout)
    assert out["format"] == "rayyan" and out["recorded"] == 2 * len(TITLES)
    assert [u["line"] for u in out["unmatched"]] == [len(TITLES) + 2]
    text = cli("screen", "import-decisions", "Beta", rayyan).stdout
    assert "0 recorded" in text and f"line {len(TITLES) + 2}:" in text

    disagree = [i for i in range(len(TITLES)) if i % 3 == 0]
    blind = json.loads(cli("screen", "conflicts", "Beta", "--json").stdout)
    assert blind["conflicts"] == [] and not blind["revealed"]
    assert "blind" in cli("screen", "conflicts", "Beta").stdout
    assert json.loads(cli("screen", "reveal", "Beta", "--json").stdout)["conflicts"] == len(
        disagree
    )
    queue = json.loads(cli("screen", "conflicts", "Beta", "--json").stdout)["conflicts"]
    assert [c["title"] for c in queue] == [TITLES[i] for i in disagree]
    cli("screen", "resolve", "Beta", queue[0]["record_key"], "include", "--note", "dose fits")
    # the queue a page at a time: the waiting ones, then the resolved one with its resolution
    waiting = [TITLES[i] for i in disagree[1:]]
    page2 = json.loads(
        cli("screen", "conflicts", "Beta", "--per-page", 2, "--page", 2, "--json").stdout
    )
    assert [c["title"] for c in page2["conflicts"]] == waiting[2:4]
    assert (page2["page"], page2["pages"], page2["total"]) == (2, 2, len(waiting))
    assert (page2["waiting"], page2["resolved"]) == (len(waiting), 1)
    text = cli("screen", "conflicts", "Beta", "--per-page", 2).stdout
    assert f"{len(waiting)} conflicts waiting, 1 resolved" in text
    assert f"unresolved: page 1 of 2 ({len(waiting)} in all)" in text
    assert sum(t in text for t in waiting) == 2 and "Ann: " in text and "Bo: " in text
    done = cli("screen", "conflicts", "Beta", "--status", "resolved").stdout
    assert TITLES[disagree[0]] in done and "resolved: local: include" in done
    for bad in (("--page", 0), ("--per-page", 101), ("--status", "open")):
        refused = cli("screen", "conflicts", "Beta", *bad, "--json", code=2)
        assert json.loads(refused.stdout)["code"] in ("bad_page", "bad_status"), refused.stdout
    agree = json.loads(cli("screen", "agreement", "Beta", "--json").stdout)
    (pair,) = agree["pairs"]
    assert pair["reviewers"] == ["Ann", "Bo"] and pair["n"] == len(TITLES)
    assert pair["agreed"] == len(TITLES) - len(disagree)
    assert "kappa" in cli("screen", "agreement", "Beta").stdout

    ris = tmp_path / "decisions.ris"
    cli("screen", "export-decisions", "Beta", "--format", "ris", "-o", ris)
    body = ris.read_text(encoding="utf-8")
    assert body.count("ER  -") == len(TITLES) and "ASReview_relevant" in body
    cli("study", "new", "Back")
    cli("import", ris, "--study", "Back")  # litdesk's own RIS reader takes it back
    csv_text = cli("screen", "export-decisions", "Beta").stdout
    assert csv_text.splitlines()[0].startswith("record_id,doi,pmid,title")

    flow = json.loads(cli("study", "prisma", "Beta", "--json").stdout)
    (r,) = flow["rounds"]
    assert all(c["ok"] for c in r["checks"])
    assert r["screened"] == len(TITLES) - len(disagree) + 1
    md = cli("study", "prisma", "Beta", "--format", "md").stdout
    assert "| Records screened |" in md and "| \u00a0\u00a0" in md
    # the terminal's table: the same lines, indented with spaces, no Markdown entities
    shown = cli("study", "prisma", "Beta").stdout
    assert "&nbsp;" not in shown and "|" not in shown, shown
    screened = next(line for line in shown.splitlines() if "Records screened" in line)
    cells = [c.strip() for c in screened.split("│") if c.strip()]
    assert cells == ["Records screened", f"{r['screened']:,}", f"{r['screened']:,}"], cells
    assert cli("study", "prisma", "Beta", "--format", "csv").stdout.startswith("box,level,")
    assert cli("study", "prisma", "Beta", "--format", "svg").stdout.startswith("<svg")
    cli("study", "prisma", "Beta", "--format", "pdf", code=2)
    behind = json.loads(
        cli("study", "prisma", "Beta", "--box", "excluded_screening", "--json").stdout
    )
    assert behind["total"] == r["excluded_screening"] and all(
        row["title"] in TITLES for row in behind["records"]
    )
    sought = cli("study", "prisma", "Beta", "--box", "sought", "--round", "1").stdout
    assert re.search(r"^sought \(.*\): [0-9,]+ records?$", sought, re.M) and "(s)" not in sought
    cli("study", "prisma", "Beta", "--box", "sought", "--round", "2", code=2)
    # the identification numbers open too: every record each source brought in
    ident = json.loads(cli("study", "prisma", "Beta", "--box", "identified", "--json").stdout)
    assert ident["total"] == r["identified"]["total"] == len(ident["records"])
    (source,) = r["identified"]["sources"]
    by_source = json.loads(
        cli("study", "prisma", "Beta", "--box", "identified", "--kind", source["kind"],
            "--source", source["name"], "--json").stdout
    )  # fmt: skip
    assert by_source["total"] == source["records"]
    assert {row["source"] for row in by_source["records"]} == {source["name"]}
    shown = cli("study", "prisma", "Beta", "--box", "removed_duplicates").stdout
    assert f"removed_duplicates (all rounds): {r['removed_duplicates']} record" in shown
    cli("study", "prisma", "Beta", "--box", "screened", "--kind", "database", code=2)


def test_rayyan_ris_with_a_reviewer_map_from_the_cli(cli, tmp_path: Path) -> None:
    """``--reviewer-map "Rayyan name=reviewer"`` (repeatable): the mapped reviewer's
    decisions recorded under the local name, the other reviewer's rows and a broken record
    listed with their lines; a malformed map item is a usage error (exit 2)."""
    records = tmp_path / "records.csv"
    records.write_text(
        "title,doi,year\n"
        + "".join(f"{t},10.1000/t{i},{2000 + i}\n" for i, t in enumerate(TITLES)),
        encoding="utf-8",
    )
    cli("study", "new", "Beta")
    cli("import", records, "--study", "Beta")
    ris = tmp_path / "rayyan.ris"
    blocks = []
    for i, t in enumerate(TITLES):
        verdict = "Included" if i % 2 else "Excluded"
        notes = f'RAYYAN-INCLUSION: {{"Ann Lee"=>"{verdict}", "Bo"=>"Maybe"}}'
        if i == 4:
            notes = 'RAYYAN-INCLUSION: {"Ann Lee"=>"Perhaps"}'
        blocks.append(f"TY  - JOUR\nTI  - {t}\nDO  - 10.1000/t{i}\nN1  - {notes}\nER  - \n")
    ris.write_text("".join(blocks), encoding="utf-8")
    broken = 1 + 5 * 4  # the fifth record's first line
    out = json.loads(
        cli("screen", "import-decisions", "Beta", ris, "--reviewer-map", "Ann Lee=ann",
            "--json").stdout
    )  # fmt: skip
    assert out["format"] == "rayyan" and out["reviewers"] == ["ann"]
    assert out["recorded"] == len(TITLES) - 1
    assert [p["line"] for p in out["problems"]] == [broken]
    assert len(out["unmatched"]) == len(TITLES) - 1  # Bo's, not mapped
    text = cli(
        "screen", "import-decisions", "Beta", ris, "--reviewer-map", "Ann Lee=ann",
        "--reviewer-map", "Bo=bo",
    ).stdout  # fmt: skip
    assert f"{len(TITLES) - 1} recorded" in text and "1 unreadable" in text
    assert "as the decisions of ann, bo" in text
    assert f"line {broken}: Rayyan's notes cannot be read" in text
    assert "'Perhaps' is not Included" in text
    bad = cli("screen", "import-decisions", "Beta", ris, "--reviewer-map", "Ann Lee", code=2)
    assert "Rayyan name=reviewer" in bad.output


def test_reviewers_are_named_by_their_user_names(cli, tmp_path: Path) -> None:
    """Decisions of accounts (a team's reviewers) are shown by user name in the CLI's text
    of ``screen agreement``, ``conflicts`` and ``history`` (before: by account id, e.g.
    'acct_53db…c693 and acct_c509…72b0: kappa 0.391'; the JSON and the web named them)."""
    for name in ("ana", "bo"):
        cli("user", "add", name, "--password-stdin", input=f"{name}-password-1234\n")
    records = tmp_path / "records.csv"
    records.write_text(
        "title,doi,year\n"
        + "".join(f"{t},10.1000/t{i},{2000 + i}\n" for i, t in enumerate(TITLES[:4])),
        encoding="utf-8",
    )
    cli("study", "new", "Pair")
    cli("import", records, "--study", "Pair")
    cli("screen", "configure", "Pair", "--dual-review", "title_abstract=on")
    with open_app_sync(get_settings()) as opened:  # the accounts screen in the Study
        for name in ("ana", "bo"):
            Sharing(opened.store, opened.owner).share("Pair", name, "editor")
    rayyan = tmp_path / "rayyan.csv"
    rows = ["key,title,year,notes"]
    for i, t in enumerate(TITLES[:4]):
        b = "Excluded" if i == 0 else "Included"
        rows.append(
            f'{i + 1},{t},{2000 + i},"RAYYAN-INCLUSION: {{""Ann""=>""Included"", ""Bo""=>""{b}""}}"'
        )
    rayyan.write_text("\n".join(rows) + "\n", encoding="utf-8")
    cli("screen", "import-decisions", "Pair", rayyan, "--reviewer-map", "Ann=ana",
        "--reviewer-map", "Bo=bo")  # fmt: skip
    cli("screen", "reveal", "Pair")
    pair = json.loads(cli("screen", "agreement", "Pair", "--json").stdout)["pairs"][0]
    assert sorted(pair["reviewer_names"]) == ["ana", "bo"]  # in the order of their ids
    assert all(r.startswith("acct_") for r in pair["reviewers"])  # ids, named in the text
    text = cli("screen", "agreement", "Pair").stdout
    assert " and ".join(pair["reviewer_names"]) + ": kappa" in text and "acct_" not in text
    (conflict,) = json.loads(cli("screen", "conflicts", "Pair", "--json").stdout)["conflicts"]
    text = cli("screen", "conflicts", "Pair").stdout
    assert "[ana: include; bo: exclude]" in text and "acct_" not in text
    text = cli("screen", "history", "Pair", conflict["record_key"]).stdout
    assert " ana: decision include" in text and " bo: decision exclude" in text
    assert "acct_" not in text


def test_prisma_table_keeps_its_numbers_beside_a_long_source_name(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database named with its platform and dates (as reviewers name Embase) or a
    sentence of a reason used to take the whole terminal width: the number columns were
    squeezed to nothing and the table showed labels only. The label folds; every count
    stays, equal to the JSON's."""
    records = tmp_path / "records.csv"
    records.write_text(
        "title,doi,year\n"
        + "".join(f"{t},10.1000/t{i},{2000 + i}\n" for i, t in enumerate(TITLES)),
        encoding="utf-8",
    )
    source = (
        "Embase Classic + Embase via Ovid SP (Elsevier, 1947 to 2026 December week 49, "
        "including conference abstracts)"
    )
    cli("study", "new", "Long")
    cli("import", records, "--study", "Long", "--source", source)
    flow = json.loads(cli("study", "prisma", "Long", "--json").stdout)
    (r,) = flow["rounds"]
    from litdesk.faces.cli._output import console

    monkeypatch.setattr(console, "_width", 80)  # a terminal of 80 columns
    shown = cli("study", "prisma", "Long").stdout
    assert max(len(line) for line in shown.splitlines()) <= 80, shown
    rows = [
        [c.strip() for c in line.split("│")[1:-1]]
        for line in shown.splitlines()
        if line.startswith("│")
    ]
    by_label = {cells[0]: cells[1:] for cells in rows if cells and cells[1]}
    total = f"{r['identified']['total']:,}"
    assert by_label["Records identified"] == [total, total], shown
    assert by_label["Records to screen"] == [f"{r['to_screen']:,}"] * 2, shown
    # the source's line carries its count; its name continues on the lines below
    (start,) = [k for k in by_label if k.startswith("Embase Classic")]
    assert by_label[start] == [total, total]
    folded = " ".join(c[0] for c in rows if c and (c[0] == start or not c[1]))
    assert " ".join(folded.split()) == source, shown
