"""``litdesk screen simulate`` names the columns it could read labels from when ``--labels``
names none of them (issue 28): a file whose label column is ``Included?`` run with
``--labels included`` said only "no label column 'included'", leaving the user to open the
file to find the name."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from litdesk.faces.cli import app


def _run(*args: str):
    return CliRunner().invoke(app, ["screen", "simulate", *args], terminal_width=240)


def test_the_refusal_lists_the_columns_that_could_be_labels(tmp_path: Path) -> None:
    path = tmp_path / "set.csv"
    rows = ["Included?,Title,Abstract,Reviewer note"]
    rows += [
        f"{'yes' if i % 5 == 0 else 'no'},Trial {i},Adults with asthma {i},n{i}" for i in range(20)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = _run(str(path), "--labels", "included", "--json")
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)
    assert error["code"] == "no_label_column"
    assert "'Included?'" in error["message"] and "'Reviewer note'" in error["message"]
    assert "'Title'" not in error["message"]  # a record field, not a label column
    ok = _run(str(path), "--labels", "Included?", "--json")
    assert ok.exit_code == 0, ok.output


def test_a_file_with_no_other_column_says_so(tmp_path: Path) -> None:
    path = tmp_path / "plain.csv"
    path.write_text("title,abstract\nA,a\nB,b\n", encoding="utf-8")
    result = _run(str(path), "--labels", "label", "--json")
    assert result.exit_code == 2, result.output
    assert "no column besides the record fields" in json.loads(result.stdout)["message"]
