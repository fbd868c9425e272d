"""``litdesk pdf meta FILE...`` through the real CLI app."""

from __future__ import annotations

import json
from pathlib import Path

from tests._paper_pdf import make_paper
from typer.testing import CliRunner

from litdesk.faces.cli._app import app


def test_meta_json_for_several_files(tmp_path: Path) -> None:
    one = make_paper(tmp_path / "one.pdf")
    two = make_paper(tmp_path / "two.pdf", title="Nitrate Leaching Beneath Irrigated Maize Fields")
    result = CliRunner().invoke(app, ["pdf", "meta", str(one), str(two), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [d["file"] for d in data] == [str(one), str(two)]
    assert data[1]["title"]["value"] == "Nitrate Leaching Beneath Irrigated Maize Fields"
    assert data[0]["authors"]["value"][0] == "Maria Lopez"
    assert data[0]["year"]["value"] == 2019 and data[0]["source"] == "read from the PDF"
    assert 0 < data[0]["title"]["confidence"] <= 1
    assert data[0]["missing"] == ["doi", "arxiv"]


def test_meta_table_and_a_failing_file(tmp_path: Path) -> None:
    good = make_paper(tmp_path / "good.pdf")
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4 broken")
    result = CliRunner().invoke(app, ["pdf", "meta", str(good), str(bad)])
    assert result.exit_code == 2  # an InputError: the readable file is still shown
    assert "Maria Lopez" in result.stdout and "2019" in result.stdout
    assert "bad.pdf: broken PDF" in result.stderr
    result = CliRunner().invoke(app, ["pdf", "meta", str(bad), "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)[0]["error"]["code"] == "broken"
