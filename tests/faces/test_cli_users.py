"""``litdesk user add|list|disable|reset-password`` on the settings' store (SQLite here; the
service underneath is tested on both backends)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from litdesk.faces.cli._app import app

PASSWORD = "correct horse battery"


def test_user_commands(tmp_settings, monkeypatch) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    from litdesk._settings import get_settings

    get_settings.cache_clear()
    runner = CliRunner()
    r = runner.invoke(app, ["user", "add", "ana", "--password-stdin"], input=PASSWORD + "\n")
    assert r.exit_code == 0, r.output
    assert "account ana created" in r.output and PASSWORD not in r.output
    r = runner.invoke(app, ["user", "add", "ana", "--password-stdin"], input=PASSWORD + "\n")
    assert r.exit_code == 2 and "already exists" in r.output
    r = runner.invoke(app, ["user", "add", "bob", "--password-stdin"], input="short\n")
    assert r.exit_code == 2 and "at least 12 characters" in r.output
    r = runner.invoke(app, ["user", "list", "--json"])
    listed = json.loads(r.stdout)
    assert [(u["username"], u["disabled"]) for u in listed] == [("ana", False)]
    r = runner.invoke(app, ["user", "disable", "ana"])
    assert r.exit_code == 0 and "disabled" in r.output
    r = runner.invoke(app, ["user", "list"])
    assert r.output.split()[:2] == ["ana", "disabled"]
    r = runner.invoke(app, ["user", "disable", "ana", "--enable"])
    assert r.exit_code == 0 and "enabled" in r.output
    r = runner.invoke(
        app, ["user", "reset-password", "ana", "--password-stdin"], input="a new long passphrase\n"
    )
    assert r.exit_code == 0 and "password of ana replaced" in r.output
    r = runner.invoke(
        app, ["user", "reset-password", "nobody", "--password-stdin"], input=PASSWORD + "\n"
    )
    assert r.exit_code == 4
    get_settings.cache_clear()


def test_serve_team_needs_postgres(tmp_settings, monkeypatch) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    from litdesk._settings import get_settings

    get_settings.cache_clear()
    r = CliRunner().invoke(app, ["serve", "--team", "--host", "0.0.0.0"])
    assert r.exit_code == 6 and "team mode needs PostgreSQL" in r.output
    r = CliRunner().invoke(app, ["serve", "--workers", "2"])
    assert r.exit_code == 3 and "--workers needs --team" in r.output
    get_settings.cache_clear()
