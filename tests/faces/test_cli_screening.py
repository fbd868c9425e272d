"""``litdesk screen`` over a real Study on SQLite: settings and configure, next, decide,
undo, history, retrieval, items, progress and retrain — each with ``--json`` — and clear
errors with litdesk's exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"


@pytest.fixture
def run(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, list(args), terminal_width=240)
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def _json(run, *args: str):
    return json.loads(run(*args, "--json").stdout)


def test_screen_a_study_from_the_terminal(run, fixtures_dir: Path) -> None:
    run("study", "new", "Gambling")
    run("import", str(fixtures_dir / EXPORT), "--study", "Gambling")
    settings = _json(run, "screen", "settings", "Gambling")
    assert "wrong population" in settings["reasons"] and settings["role"] == "owner"
    changed = _json(
        run,
        "screen",
        "configure",
        "Gambling",
        "--reason",
        "wrong population",
        "--reason",
        "no gambling outcome",
        "--include-keyword",
        "gambling",
        "--inclusion",
        "Gambling harms in adults",
        "--dual-review",
        "ft=off",
        "--order",
        "original",
    )
    assert changed["reasons"] == ["wrong population", "no gambling outcome"]
    assert changed["default_order"] == "original"
    card = _json(run, "screen", "next", "Gambling")
    key = card["record_key"]
    assert card["order"]["mode"] == "original" and card["title"]
    assert card["highlight"]["include"] == ["gambling"]
    assert card["criteria"]["inclusion"] == "Gambling harms in adults"
    shown = run("screen", "next", "Gambling").stdout
    assert key in shown and card["title"][:30] in shown and "0 of" in shown

    decided = _json(run, "screen", "decide", "Gambling", key, "include", "--note", "relevant")
    assert decided["entry"]["source"] == "cli" and decided["my_verdict"] == "include"
    second = _json(run, "screen", "next", "Gambling")["record_key"]
    assert second != key
    run("screen", "decide", "Gambling", second, "exclude")
    undone = _json(run, "screen", "undo", "Gambling")
    assert undone["record_key"] == second and undone["my_verdict"] is None
    history = _json(run, "screen", "history", "Gambling", second)
    assert [e["status"] for e in history["entries"]] == ["undone", "undo"]
    assert "[undone]" in run("screen", "history", "Gambling", second).stdout

    # full text: the include is there; an exclusion needs a listed reason
    none = run("screen", "decide", "Gambling", key, "exclude", "--stage", "ft", code=2)
    assert "needs one of the Study's exclusion reasons" in none.output
    assert "wrong population; no gambling outcome" in none.output
    bad = run(
        "screen", "decide", "Gambling", key, "exclude", "--stage", "ft", "--reason", "meh", code=2
    )
    assert "not one of the Study's exclusion reasons" in bad.output
    ft = _json(
        run,
        "screen",
        "decide",
        "Gambling",
        key,
        "exclude",
        "--stage",
        "full_text",
        "--reason",
        "No gambling outcome",
    )
    assert ft["entry"]["reason"] == "no gambling outcome"
    retrieval = _json(run, "screen", "retrieval", "Gambling", key, "--not-retrieved", "--note", "x")
    assert retrieval["status"] == "not_retrieved"
    items = _json(run, "screen", "items", "Gambling", "--status", "included")
    assert [r["record_key"] for r in items["rows"]] == [key]
    progress = _json(run, "screen", "progress", "Gambling")
    assert progress["mine"]["screened"] == 1 and progress["model"]["state"] == "none"
    assert not progress["model"]["due"]
    said = run("screen", "progress", "Gambling").stdout
    assert "1 included" in said and "it needs an include and an exclude" in said

    # a model: an include and an exclude — no model until the retrain runs, and the
    # words say so (not "it needs an include and an exclude": it has both)
    run("screen", "decide", "Gambling", second, "exclude")
    waiting = _json(run, "screen", "progress", "Gambling")["model"]
    assert waiting["state"] == "none" and waiting["due"]
    said = run("screen", "progress", "Gambling").stdout
    assert "needs an include" not in said and "its first training is queued" in said
    assert "litdesk screen retrain" in said
    card = _json(run, "screen", "next", "Gambling", "--order", "ranked", "--no-retrain")
    assert card["order"]["label"] == "random (no model yet: its first training is queued)"
    # the Study's default order (original here) needs no model: nothing is trained for it
    assert _json(run, "screen", "next", "Gambling")["order"]["mode"] == "original"
    assert _json(run, "screen", "progress", "Gambling")["model"]["state"] == "none"
    # without a server, `screen next` in the ranked order trains the queued model first
    ranked = _json(run, "screen", "next", "Gambling", "--order", "ranked")
    assert ranked["order"]["label"].startswith("ranked by model v1 trained on 2 decisions")
    model = _json(run, "screen", "retrain", "Gambling")  # nothing queued: the model stands
    assert model["state"] == "ready" and model["version"] == 1 and model["trained_on"] == 2
    # a decision queues the next retrain; `screen next` runs it (ranked: the Study's order now)
    run("screen", "configure", "Gambling", "--order", "ranked")
    run("screen", "decide", "Gambling", ranked["record_key"], "exclude")
    again = _json(run, "screen", "next", "Gambling")
    assert again["order"]["label"].startswith("ranked by model v2 trained on 3 decisions")


def test_clear_errors_and_exit_statuses(run, fixtures_dir: Path) -> None:
    run("study", "new", "Gambling")
    run("import", str(fixtures_dir / EXPORT), "--study", "Gambling")
    assert "no Study 'Nope'" in run("screen", "next", "Nope", code=4).output
    out = run("screen", "decide", "Gambling", "imp-none:1", "include", code=4).output
    assert "not in this Study's working set" in out
    assert (
        "verdict must be one of" in run("screen", "decide", "Gambling", "k", "yes", code=2).output
    )
    assert (
        "stage must be one of" in run("screen", "next", "Gambling", "--stage", "x", code=2).output
    )
    err = json.loads(run("screen", "undo", "Gambling", "--json", code=4).stdout)
    assert err["code"] == "nothing_to_undo"
    assert (
        "STAGE=on|off"
        in run("screen", "configure", "Gambling", "--dual-review", "ta", code=2).output
    )
