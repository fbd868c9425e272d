"""CLI: ``litdesk import`` and ``litdesk convert`` (exit codes, JSON shape, refusals)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk.faces.cli._app import app

GOOD = b"TY  - JOUR\nTI  - Good paper\nAU  - Doe, J\nPY  - 2021\nDO  - 10.1000/good\nER  - \n"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.ris"
    path.write_bytes(GOOD)
    return path


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"this is not an export\n")
    return path


def test_import_json_shape(runner: CliRunner, good: Path) -> None:
    result = runner.invoke(app, ["import", str(good), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"imports", "refused"} and doc["refused"] == []
    (imp,) = doc["imports"]
    assert imp["source"]["format"] == "ris" and imp["source"]["bytes"] == len(GOOD)
    assert imp["source"]["sha256"].startswith("sha256:")
    (rec,) = imp["records"]
    assert set(rec) == {"digest", "lines", "paper", "notices"}
    assert rec["lines"] == [1, 6]
    paper = rec["paper"]
    for key in ("id", "title", "authors", "journal", "year", "doi", "pmid", "pmcid"):
        assert key in paper
    assert (paper["title"], paper["authors"], paper["year"]) == ("Good paper", ["Doe, J"], 2021)


def test_refused_file_beside_a_good_one(runner: CliRunner, good: Path, bad: Path) -> None:
    result = runner.invoke(app, ["import", str(bad), str(good), "--json"])
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert [i["source"]["path"] for i in doc["imports"]] == [str(good)]
    assert doc["refused"] == [
        {"path": str(bad), "code": "unsupported", "message": doc["refused"][0]["message"]}
    ]
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"litdesk: {bad}:")


def test_import_summary_without_json(runner: CliRunner, good: Path) -> None:
    result = runner.invoke(app, ["import", str(good)])
    assert result.exit_code == 0
    assert "good.ris" in result.stdout and "1 record from 1 file" in result.stdout


def test_unknown_format_option(runner: CliRunner, good: Path) -> None:
    result = runner.invoke(app, ["import", str(good), "--format", "docx"])
    assert result.exit_code == 2
    assert "unknown format" in result.stderr


def test_convert_to_stdout_and_file(
    runner: CliRunner, good: Path, bad: Path, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["convert", str(good), "--to", "ris"])
    assert result.exit_code == 0
    assert result.stdout.startswith("TY  - JOUR\nTI  - Good paper\n")
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["convert", str(good), str(bad), "--to", "csv", "-o", str(out)])
    assert result.exit_code == 2
    text = out.read_bytes().decode()
    assert text.startswith("id,title,") and "Good paper" in text and "\r\n" in text
    assert "1 record from 1 file written" in result.stderr
    result = runner.invoke(app, ["convert", str(good), "--to", "docx"])
    assert result.exit_code == 2


def test_progress_bar_on_big_files(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from litdesk.faces.cli import _imports

    monkeypatch.setattr(_imports, "PROGRESS_BYTES", 1024)
    big = tmp_path / "big.ris"
    big.write_bytes(b"".join(GOOD.replace(b"Good paper", f"P{i}".encode()) for i in range(300)))
    assert big.stat().st_size > 1024
    result = runner.invoke(app, ["import", str(big), str(big)])
    assert result.exit_code == 0
    assert "600 records from 2 files" in result.stdout


def test_progress_hook_only_for_big_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from litdesk.faces.cli import _imports

    small = tmp_path / "small.ris"
    small.write_bytes(GOOD)
    with _imports._progress([str(small)]) as hook:
        assert hook is None
    monkeypatch.setattr(_imports, "PROGRESS_BYTES", len(GOOD))
    with _imports._progress([str(small), str(tmp_path / "missing")]) as hook:
        assert callable(hook)
        hook(str(small), len(GOOD))


def test_file_names_are_not_markup(runner: CliRunner, tmp_path: Path) -> None:
    odd = tmp_path / "x[red]y.ris"
    odd.write_bytes(GOOD)
    result = runner.invoke(app, ["import", str(odd)])
    assert result.exit_code == 0, result.output
    assert "x[red]y.ris" in result.stdout


def test_collector_paused_restores_only_what_it_changed() -> None:
    import gc

    from litdesk.faces.cli._imports import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off before: left off
    finally:
        gc.enable()


def test_import_and_convert_read_with_the_collector_paused(
    runner: CliRunner, good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from litdesk.services import imports as _imports  # the CLI imports it when it runs

    seen: list[bool] = []
    real_import, real_convert = _imports.import_files, _imports.convert_files

    def spy_import(*a: object, **kw: object) -> object:
        seen.append(gc.isenabled())
        return real_import(*a, **kw)  # type: ignore[arg-type]

    def spy_convert(*a: object, **kw: object) -> object:
        seen.append(gc.isenabled())
        return real_convert(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(_imports, "import_files", spy_import)
    monkeypatch.setattr(_imports, "convert_files", spy_convert)
    assert runner.invoke(app, ["import", str(good)]).exit_code == 0
    assert runner.invoke(app, ["convert", str(good), "--to", "csv"]).exit_code == 0
    assert seen == [False, False]
    assert gc.isenabled()


@pytest.mark.fixtures
def test_summary_counts_read_with_separators_and_no_table_when_all_refused(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path
) -> None:
    """The table printed "1000" where every other count says "1,000"; a call whose every file
    was refused printed an empty "0 records from 0 files" table above the refusal."""
    real = fixtures_dir / "bib" / "ris" / "asysd__zotero_export.ris"  # 1,000 records
    result = runner.invoke(app, ["import", str(real)], terminal_width=160)
    assert result.exit_code == 0, result.output
    assert "1,000 records from 1 file" in result.stdout
    row = next(line for line in result.stdout.splitlines() if "asysd__zotero_export" in line)
    assert "1,000" in row and "1000" not in row
    empty = tmp_path / "empty.ris"
    empty.write_bytes(b"")
    result = runner.invoke(app, ["import", str(empty)], terminal_width=160)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "empty.ris: the file is empty" in result.stderr
