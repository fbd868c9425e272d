"""``litdesk --demo <command>``: any command works in the demo workspace (the quick start's
command-line twins), which is made on first use; your own data directory is not touched, and
the option holds for that one command only."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

DEMO_STUDY = "Stem cells for knee osteoarthritis (demo)"


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_root_demo_option_opens_the_demo_workspace_only(tmp_settings, tmp_path, monkeypatch):
    data = Path(tmp_settings.data_dir)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(data))
    monkeypatch.setenv("LITDESK_DEMO_DIR", str(tmp_path / "demo"))
    get_settings.cache_clear()
    runner = CliRunner()
    before = _tree(data)
    try:
        made = runner.invoke(app, ["--demo", "study", "list", "--json"])
        assert made.exit_code == 0, made.output
        assert "Making the demo workspace" in made.stderr  # first use: made, and said so
        assert DEMO_STUDY in [s["name"] for s in json.loads(made.stdout)]
        shown = runner.invoke(app, ["--demo", "study", "show", DEMO_STUDY, "--json"])
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout)["name"] == DEMO_STUDY
        # the demo source answers only there
        found = runner.invoke(app, ["--demo", "search", "knee", "-p", "demo", "--json"])
        assert found.exit_code == 0, found.output
        assert json.loads(found.stdout)["hits"]
        assert _tree(data) == before  # the demo's commands never opened your own workspace
        assert (tmp_path / "demo").is_dir()
        # without --demo: your own workspace, which has no demo Study and no demo source
        own = runner.invoke(app, ["study", "list", "--json"])
        assert own.exit_code == 0, own.output
        assert DEMO_STUDY not in [s["name"] for s in json.loads(own.stdout)]
        assert runner.invoke(app, ["search", "knee", "-p", "demo"]).exit_code != 0
    finally:
        get_settings.cache_clear()


def test_an_async_command_may_be_the_first_to_use_the_demo(tmp_settings, tmp_path, monkeypatch):
    """A command that runs on an event loop (search, study add-search, update) as the first
    ``--demo`` command makes the workspace before its loop starts (before: "asyncio.run()
    cannot be called from a running event loop", a traceback)."""
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    monkeypatch.setenv("LITDESK_DEMO_DIR", str(tmp_path / "demo"))
    get_settings.cache_clear()
    try:
        found = CliRunner().invoke(app, ["--demo", "search", "knee", "-p", "demo", "--json"])
        assert found.exit_code == 0, found.output
        assert "Making the demo workspace" in found.stderr
        assert json.loads(found.stdout)["hits"]
    finally:
        get_settings.cache_clear()
