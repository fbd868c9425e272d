"""``litdesk user add|list|disable|reset-password|link|unlink`` on the settings' store (SQLite here; the
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


def test_user_link_unlink_and_list(tmp_settings, monkeypatch) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    monkeypatch.setenv("LITDESK_OIDC_ISSUER", "https://login.lab.example")
    from litdesk._settings import get_settings

    get_settings.cache_clear()
    runner = CliRunner()
    r = runner.invoke(app, ["user", "add", "ana", "--password-stdin"], input=PASSWORD + "\n")
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["user", "link", "ana", "--subject", "248289761001"])
    assert r.exit_code == 0, r.output
    assert "248289761001 now signs in as ana" in r.output
    other = ["--subject", "u-7", "--issuer", "https://id.partner.example"]
    assert runner.invoke(app, ["user", "link", "ana", *other]).exit_code == 0
    r = runner.invoke(app, ["user", "link", "ana", "--subject", "248289761001"])
    assert r.exit_code == 2 and "already linked" in r.output
    r = runner.invoke(app, ["user", "link", "nobody", "--subject", "x"])
    assert r.exit_code == 4
    r = runner.invoke(app, ["user", "list", "--json"])
    listed = json.loads(r.stdout)
    assert [(i["issuer"], i["subject"]) for i in listed[0]["identities"]] == [
        ("https://id.partner.example", "u-7"),
        ("https://login.lab.example", "248289761001"),
    ]
    r = runner.invoke(app, ["user", "list"])
    assert ["sso", "https://login.lab.example", "248289761001"] in [
        line.split() for line in r.output.splitlines()
    ]
    r = runner.invoke(app, ["user", "unlink", "ana", *other])
    assert r.exit_code == 0 and "no longer signs in as ana" in r.output
    r = runner.invoke(app, ["user", "unlink", "ana", *other])
    assert r.exit_code == 4
    r = runner.invoke(app, ["user", "list", "--json"])
    assert len(json.loads(r.stdout)[0]["identities"]) == 1
    get_settings.cache_clear()
