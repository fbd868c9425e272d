"""``litdesk screen simulate``: the JSON contract used by independent checks, the summary and
the typed errors (exit 2), on small CSV files written here; one real set (fixtures)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk.core.screening import recall_at, wss
from litdesk.faces.cli._app import app

_IN = "carvedilol beta blocker heart failure mortality randomised trial"
_OUT = "wheat irrigation soil nitrogen rainfall crop survey yield"


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _rows(n: int = 40, every: int = 8) -> list[dict[str, str]]:
    rows = []
    for i in range(n):
        inc = i % every == 3
        words = (_IN if inc else _OUT).split()
        rows.append(
            {
                "record_id": str(i + 1),
                "title": f"Study {i}: {' '.join(words[i % 3 :][:4])}",
                "abstract": " ".join(words[::-1]) + f" cohort {i}",
                "label_included": "1" if inc else "0",
                "mesh_terms": "Heart Failure; Humans" if inc else "Triticum; Soil",
            }
        )
    rows[5]["title"] = rows[5]["abstract"] = ""  # a record with neither: still listed
    return rows


def _run(*args: str):
    return CliRunner().invoke(app, ["screen", "simulate", *args])


def test_json_contract(tmp_path: Path):
    rows = _rows()
    path = _write(tmp_path / "set.csv", rows)
    result = _run(str(path), "--labels", "label_included", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {"order", "wss95", "recall_at_10", "model"} <= set(doc)
    order = doc["order"]
    assert sorted(order) == list(range(len(rows)))  # every record once, 0-based file rows
    labels = [r["label_included"] == "1" for r in rows]
    assert doc["wss95"] == pytest.approx(wss(order, labels))
    assert doc["recall_at_10"] == pytest.approx(recall_at(order, labels))
    # default priors: 1 included then 1 excluded, shown first
    assert doc["priors"] == order[:2]
    assert [labels[i] for i in order[:2]] == [True, False]
    assert isinstance(doc["model"], dict) and doc["model"]["name"]
    # the model finds the obvious includes right after the priors
    assert all(labels[i] for i in order[2:5])
    again = _run(str(path), "--labels", "label_included", "--seed", "3", "--json")
    assert json.loads(again.stdout)["order"] == order  # deterministic for a seed


def test_prior_counts_and_seed(tmp_path: Path):
    rows = _rows()
    path = _write(tmp_path / "set.csv", rows)
    labels = [r["label_included"] == "1" for r in rows]
    args = [str(path), "--labels", "label_included", "--json"]
    doc = json.loads(
        _run(*args, "--seed", "9", "--prior-included", "2", "--prior-excluded", "3").stdout
    )
    assert [labels[i] for i in doc["order"][:5]] == [True, True, False, False, False]
    first = json.loads(_run(*args, "--seed", "9").stdout)
    other = json.loads(_run(*args, "--seed", "10").stdout)
    assert first["order"] != other["order"]  # the seed draws the priors


def test_summary_without_json(tmp_path: Path):
    path = _write(tmp_path / "set.csv", _rows())
    result = _run(str(path), "--labels", "label_included")
    assert result.exit_code == 0, result.output
    assert "WSS@95" in result.stdout and "40" in result.stdout


@pytest.mark.parametrize(
    ("mutate", "column", "code"),
    [
        (lambda rows: rows, "decision", "no_label_column"),
        (
            lambda rows: [{**r, "label_included": "maybe"} for r in rows],
            "label_included",
            "bad_label",
        ),
        (
            lambda rows: [{**r, "label_included": "0"} for r in rows],
            "label_included",
            "no_included",
        ),
        (
            lambda rows: [
                {**r, "label_included": "" if i == 7 else r["label_included"]}
                for i, r in enumerate(rows)
            ],
            "label_included",
            "unlabelled",
        ),
    ],
)
def test_typed_errors_exit_2(tmp_path: Path, mutate, column, code):
    path = _write(tmp_path / "set.csv", mutate(_rows()))
    result = _run(str(path), "--labels", column, "--json")
    assert result.exit_code == 2, result.output
    doc = json.loads(result.stdout)
    assert doc["code"] == code and doc["error"] == "InputError"


def test_missing_file_is_not_found(tmp_path: Path):
    result = _run(str(tmp_path / "nope.csv"), "--labels", "label_included")
    assert result.exit_code == 4


@pytest.mark.fixtures
@pytest.mark.timeout(900)  # ~15 s alone; the shared machine can be many times slower
def test_real_set_one_seed(fixtures_dir: Path):
    path = fixtures_dir / "screening" / "synergy_Oud_2018" / "synergy_Oud_2018.csv"
    result = _run(str(path), "--labels", "label_included", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert sorted(doc["order"]) == list(range(952))
    # far better than random order (expected WSS@95 of random ≈ 0, recall@10% ≈ 0.1)
    assert doc["wss95"] > 0.5 and doc["recall_at_10"] > 0.4


def test_the_model_option(tmp_path: Path, tmp_settings, monkeypatch: pytest.MonkeyPatch):
    """``--model``: by default the model a Study's screening uses; ``litdesk-handover``
    embeds the file with the app's sentence encoder first (USE-m3 rows beside TF-IDF)."""
    from litdesk._settings import get_settings
    from litdesk.core.screening import DEFAULT_MODEL

    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    rows = _rows()
    path = _write(tmp_path / "set.csv", rows)
    args = [str(path), "--labels", "label_included", "--json"]
    default = json.loads(_run(*args).stdout)
    assert default["model"]["name"] == DEFAULT_MODEL
    result = _run(*args, "--model", "litdesk-handover")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["model"]["name"] == "litdesk-handover"
    assert doc["model"]["features"]["embedding"] == "use-m3-512"
    assert doc["model"]["embedding_use"] == "handover"
    assert sorted(doc["order"]) == list(range(len(rows)))
    labels = [r["label_included"] == "1" for r in rows]
    assert doc["wss95"] == pytest.approx(wss(doc["order"], labels))
    bad = _run(*args, "--model", "elas_u4")
    assert bad.exit_code == 2, bad.output
    get_settings.cache_clear()
