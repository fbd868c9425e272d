"""``litdesk report`` (the issue's form) and ``litdesk report synthesis`` through the real
CLI app (no model: extractive); ``litdesk report`` alone prints help."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fpdf import FPDF
from lxml import html as lxml_html
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli._app import app

EVIL = "<script>alert(1)</script>"


def _pdf(path: Path, pages: list[str]) -> None:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for key in [k for k in os.environ if k.startswith("LITDESK_")]:
        if key not in {"LITDESK_FIXTURES", "LITDESK_LIBRARY_INDEX_WORKERS"}:  # conftest's
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    folder = tmp_path / "pdfs"
    folder.mkdir()
    _pdf(folder / "estuary.pdf", ["Cover.", "Cadmium was highest near the harbour outflow. " * 15])
    _pdf(folder / "wheat.pdf", [f"Wheat plants under heat stress lost yield. {EVIL} " * 15])
    yield folder
    get_settings.cache_clear()


@pytest.fixture(params=["sqlite", "postgres"])
def env_both(request: pytest.FixtureRequest, env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``env`` with its store on SQLite, then on PostgreSQL (a fresh schema)."""
    if request.param == "postgres":
        monkeypatch.setenv("LITDESK_DATABASE_URL", request.getfixturevalue("pg_schema"))
        get_settings.cache_clear()
    return env


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_report_html_and_json(env_both: Path, tmp_path: Path) -> None:
    assert _run("library", "add", str(env_both))[0] == 0
    (tmp_path / "reports").mkdir()  # -o names an existing folder (never created by litdesk)
    code, out, err = _run(
        "report", "--all", "--questions", f"Where was cadmium highest? {EVIL};Yield?",
        "--summary", "bullets", "--synthesis", "-o", str(tmp_path / "reports"),
    )  # fmt: skip
    assert code == 0, err
    path = Path(out.strip())
    assert path.parent == tmp_path / "reports"
    assert path.name.endswith("_synthesis_report_where_was_cadmium_highest_script_alert_1.html")
    assert "synthesis needs a model" in err
    html = path.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in html
    doc = lxml_html.fromstring(html)
    cites = doc.xpath("//a[@class='cite']")
    assert cites and all("#page=" in a.get("href") for a in cites)
    cadmium = [a for a in cites if "Cadmium" in a.get("data-passage")]
    assert cadmium and all(a.get("href").endswith("estuary.pdf#page=2") for a in cadmium)
    assert all(a.get("href").endswith("#page=1") for a in cites if "Cover" in a.get("data-passage"))
    assert all(a.get("data-rects") for a in cites)  # every passage was located on its page
    # not overwritten without --force
    code, _, err = _run("report", "synthesis", "--all", "--questions", "Yield?", "-o", str(path))
    assert code != 0 and "exists" in err
    # --json prints the model; -o none given: no file written
    code, out, err = _run(
        "report", "synthesis", "--papers", "wheat.pdf", "--questions", "Yield?", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["path"] is None and [p["file"] for p in data["papers"]] == ["wheat.pdf"]
    assert data["passages"] and data["passages"][0]["label"] == "1"
    assert data["units"][0]["extractive"] is True and data["model"] == "none (extractive)"


def test_report_refusals(env_both: Path) -> None:
    assert _run("library", "add", str(env_both))[0] == 0
    code, _, err = _run("report", "synthesis", "--questions", "q?")
    assert code != 0 and "--papers" in err
    code, _, err = _run("report", "synthesis", "--all", "--papers", "a.pdf", "--questions", "q?")
    assert code != 0 and "either" in err
    code, _, err = _run("report", "synthesis", "--papers", "nope.pdf", "--questions", "q?")
    assert code != 0 and "estuary.pdf" in err
    code, _, err = _run(
        "report", "synthesis", "--all", "--questions", "q?", "--detail-mode", "sideways"
    )
    assert code != 0 and "detail-mode" in err


def _comparable(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in {"created"}}


def test_issue_form_and_subcommand_form_are_one_command(env: Path) -> None:
    assert _run("library", "add", str(env))[0] == 0
    args = ["--papers", "estuary.pdf,wheat.pdf", "--questions", "Where was cadmium highest?",
            "--summary", "bullets", "--top-k", "3", "--json"]  # fmt: skip
    code, short_out, err = _run("report", *args)
    assert code == 0, err
    code, long_out, err = _run("report", "synthesis", *args)
    assert code == 0, err
    short, long = json.loads(short_out), json.loads(long_out)
    assert _comparable(short) == _comparable(long)
    assert [p["file"] for p in short["papers"]] == ["estuary.pdf", "wheat.pdf"]
    assert short["summary"] == "bullets" and short["path"] is None
    assert any(u["kind"] == "summary" for u in short["units"])
    # the same refusals through the issue's form
    code, _, err = _run("report", "--questions", "q?")
    assert code != 0 and "--papers" in err
    code, _, err = _run("report", "--all", "--papers", "a.pdf", "--questions", "q?")
    assert code != 0 and "either" in err
    code, _, err = _run("report", "--all", "--questions", "q?", "--top-k", "21")
    assert code != 0 and "top" in err.lower()


def test_report_alone_prints_help_and_subcommands_stay(env: Path) -> None:
    code, out, _ = _run("report")
    assert code == 2  # click's "no arguments: help" status, as before
    assert "--papers" in out and "--questions" in out
    assert "prisma" in out and "synthesis" in out
    code, out, _ = _run("report", "--help")
    assert code == 0 and "--summary" in out and "prisma" in out
    code, out, _ = _run("report", "synthesis", "--help")
    assert code == 0 and "--synthesis" in out and "prisma" not in out
    code, out, _ = _run("report", "prisma", "--help")
    assert code == 0 and "--study" in out and "--questions" not in out


def test_synthesis_options_before_a_subcommand_are_refused(env: Path) -> None:
    code, _, err = _run("report", "--all", "--top-k", "3", "prisma", "--study", "S")
    assert code != 0
    assert "--all" in err and "--top-k" in err and "report prisma" in err


def test_report_output_paths_refused(env: Path, tmp_path: Path) -> None:
    """-o a FIFO or a device (with or without --force), a missing folder or a file inside a
    missing folder: exit 2, nothing replaced, no folder created (issue 13, class 6)."""
    import stat

    assert _run("library", "add", str(env))[0] == 0
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a wrong blocking open cannot hang
    device = tmp_path / "null.html"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        device = fifo
    try:
        for target in (fifo, device, tmp_path / "gone" / "r.html", tmp_path / "gone2"):
            for force in ([], ["--force"]):
                code, _, err = _run(
                    "report", "--all", "--questions", "Yield?", "-o", str(target), *force
                )
                assert code == 2, err
                assert "Traceback" not in err
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
        assert device == fifo or stat.S_ISCHR(os.lstat(device).st_mode)
        assert not (tmp_path / "gone").exists() and not (tmp_path / "gone2").exists()
        # refused before the build: nothing was indexed for it
        code, out, _ = _run("library", "list", "--json")
        assert code == 0 and not any(f["indexed"] for f in json.loads(out)["files"])
    finally:
        os.close(reader)


def test_chat_only_prints_the_answers_as_ask_does_and_writes_no_file(
    env: Path, tmp_path: Path
) -> None:
    assert _run("library", "add", str(env))[0] == 0
    code, out, err = _run(
        "report", "--all", "--questions", "Where was cadmium highest?;What did heat do to wheat?",
        "--chat-only",
    )  # fmt: skip
    assert code == 0, err
    first, _, second = out.partition("\nQuestion 2: What did heat do to wheat?\n")
    assert first.startswith("Question 1: Where was cadmium highest?\n") and second
    assert "harbour outflow" in first and re.search(r"\[1\] file://\S+estuary\.pdf#page=2", first)
    assert re.search(r"\[1\] file://\S+wheat\.pdf#page=1", second)
    assert not list((tmp_path / "data").rglob("*.html"))  # no report
    protocol = "".join(p.read_text() for p in (tmp_path / "data").rglob("protocols/*.md"))
    assert "— Where was cadmium highest?" in protocol and "— What did heat do to wheat?" in protocol
    code, out, _ = _run(
        "report", "--papers", "wheat.pdf", "--questions", "Yield?", "--chat-only", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["output"] == "chat" and data["stopped"] is None
    assert [a["question"] for a in data["answers"]] == ["Yield?"]
    code, _, err = _run(
        "report", "--all", "--questions", "Yield?", "--summary", "prose", "--chat-only"
    )
    assert code == 2 and "A summary needs the HTML report" in err
    assert not list((tmp_path / "data").rglob("*.html"))


def test_labels_choose_the_page_labels_and_an_unknown_one_is_refused(env: Path) -> None:
    assert _run("library", "add", str(env))[0] == 0
    code, out, err = _run(
        "report", "--papers", "wheat.pdf", "--questions", "Yield?", "--labels", "fr"
    )
    assert code == 0, err
    html = Path(out.strip()).read_text(encoding="utf-8")
    assert (
        '<html lang="fr">' in html and ">Articles<" in html and ">À propos de ce rapport<" in html
    )
    assert ">Papers<" not in html
    code, _, err = _run(
        "report", "--papers", "wheat.pdf", "--questions", "Yield?", "--labels", "xx"
    )
    assert code == 2 and "English (en), Deutsch (de), Français (fr), Español (es)" in err
