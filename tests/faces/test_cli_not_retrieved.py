"""``litdesk screen next`` at the end of the full-text queue when the reports left are
recorded not retrieved (issue 28): it said "3 left" and then "Nothing left for you to screen at
this stage." with no word of why; now it says the 3 are recorded not retrieved and how to
decide on one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app


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


def test_next_says_the_reports_left_are_not_retrieved(run, tmp_path: Path) -> None:
    ris = tmp_path / "three.ris"
    ris.write_text(
        "".join(
            f"TY  - JOUR\nTI  - Trial {i} of exercise for asthma\nDO  - 10.5555/w33c.{i}\n"
            f"AB  - Adults with asthma were randomised.\nER  - \n\n"
            for i in range(3)
        )
    )
    run("study", "new", "Three")
    run("import", str(ris), "--study", "Three")
    run("screen", "configure", "Three", "--order", "original")
    keys = []
    for _ in range(3):
        out = run("screen", "next", "Three", "--no-retrain").stdout
        key = next(line.split()[1] for line in out.splitlines() if line.startswith("record "))
        keys.append(key)
        run("screen", "decide", "Three", key, "include")
    run("screen", "retrieval", "Three", keys[0], "--not-retrieved")
    run("screen", "retrieval", "Three", keys[1], "--not-retrieved")
    run("screen", "decide", "Three", keys[2], "include", "--stage", "ft")
    out = run("screen", "next", "Three", "--stage", "ft", "--no-retrain").stdout
    assert "2 left" in out
    assert "2 recorded not retrieved" in out, out
    assert "--retrieved" in out, out  # how to decide on one
