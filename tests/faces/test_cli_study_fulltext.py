"""``litdesk study fulltext`` and ``litdesk study attach`` end to end over real PDFs
($LITDESK_FIXTURES/pdf) and a real SQLite store: list, match (DOI linked, verified title
suggested), confirm by another identifier, undo, attach a PDF for one paper; --json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

pytestmark = pytest.mark.fixtures

SPECTER = "SPECTER: Document-level Representation Learning using Citation-informed Transformers"


@pytest.fixture
def cli(tmp_settings, monkeypatch, fixtures_dir: Path, tmp_path: Path):
    library = tmp_path / "pdfs"
    library.mkdir()
    for name in ("hindawi_rrp_2010_157939.pdf", "acl_2020_main_207_specter.pdf"):
        shutil.copyfile(fixtures_dir / "pdf" / name, library / name)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    monkeypatch.setenv("LITDESK_LIBRARY_DIRS", json.dumps([str(library)]))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def test_study_fulltext_lists_matches_confirms_undoes_and_attaches(
    cli, fixtures_dir: Path, tmp_path: Path
) -> None:
    cli("study", "new", "Heart")
    cli("paper", "save", "--doi", "10.1155/2010/157939", "--title", "Patient experiences",
        "--study", "Heart")  # fmt: skip
    cli("paper", "save", "--id", "W3034153734", "--title", SPECTER, "--author", "Cohan, Arman",
        "--year", "2020", "--study", "Heart")  # fmt: skip
    cli("paper", "save", "--pmid", "40342701", "--title", "No PDF yet", "--study", "Heart")

    listed = json.loads(cli("study", "fulltext", "Heart", "--json").output)
    assert listed["counts"]["papers"] == 3
    assert listed["counts"]["without_full_text"] == 3

    out = cli("study", "fulltext", "Heart", "--match").output
    assert "hindawi_rrp_2010_157939.pdf (doi)" in out
    assert "suggested: acl_2020_main_207_specter.pdf (title)" in out
    assert "2 of the Study's 3 papers with neither a PDF nor licensed full text" in out
    assert "PRISMA: reports" not in out  # papers are not PRISMA's reports

    done = json.loads(
        cli("study", "fulltext", "Heart", "--confirm", "W3034153734", "--json").output
    )
    specter = next(p for p in done["papers"] if p["id"] == "OAX-W3034153734")
    assert specter["pdf"]["state"] == "linked" and specter["retrieved"] == "pdf"

    cli("study", "fulltext", "Heart", "--undo", "10.1155/2010/157939")
    again = json.loads(cli("study", "fulltext", "Heart", "--match", "--json").output)
    assert again["changed"] == {"linked": 0, "suggested": 0}

    pdf = tmp_path / "graph.pdf"
    shutil.copyfile(fixtures_dir / "pdf/naacl_2018_N18-3011.pdf", pdf)
    attached = json.loads(cli("study", "attach", "Heart", "40342701", pdf, "--json").output)
    assert attached["stored"] and attached["file"] == "graph.pdf"
    assert attached["paper_title"] == "No PDF yet"
    final = json.loads(cli("study", "fulltext", "Heart", "--json").output)
    assert final["counts"]["with_pdf"] == 2 and final["counts"]["without_full_text"] == 1

    refused = cli("study", "fulltext", "Heart", "--undo", "nope", code=4)
    assert "nope" in refused.output
    cli("study", "fulltext", "Heart", "--match", "--check", code=2)
    not_pdf = tmp_path / "x.pdf"
    not_pdf.write_bytes(b"hello")
    assert "not a PDF" in cli("study", "attach", "Heart", "40342701", not_pdf, code=2).output

    # --show: the papers screening sought for retrieval, those without either, all
    cli("screen", "decide", "Heart", "OAX-W3034153734", "maybe")
    sought = json.loads(cli("study", "fulltext", "Heart", "--show", "sought", "--json").output)
    assert [p["id"] for p in sought["papers"]] == ["OAX-W3034153734"] and sought["sought"] == 1
    out = cli("study", "fulltext", "Heart", "--show", "missing").output
    assert "With neither a PDF nor licensed full text: 1 paper" in out
    assert "Patient experiences" in out and SPECTER not in out
    assert (
        "--show must be one of sought, missing, all"
        in cli("study", "fulltext", "Heart", "--show", "some", code=2).output
    )


def test_a_pdf_attached_to_the_wrong_paper_is_linked_with_its_doubt(
    cli, fixtures_dir: Path, tmp_path: Path
) -> None:
    """A PDF a person uploads for a paper is linked (they chose it), but when its first
    pages are another paper's of the Study — or name another DOI — the CLI, the JSON and
    the listing say so, with how to undo it."""
    cli("study", "new", "Heart")
    cli("paper", "save", "--doi", "10.1155/2010/157939", "--title", "Patient experiences",
        "--study", "Heart")  # fmt: skip
    cli("paper", "save", "--doi", "10.1000/other.1", "--title", "Another trial", "--study", "Heart")
    # the Hindawi PDF (already in the library) uploaded for the wrong paper
    pdf = tmp_path / "mine.pdf"
    shutil.copyfile(fixtures_dir / "pdf/hindawi_rrp_2010_157939.pdf", pdf)
    out = cli("study", "attach", "Heart", "10.1000/other.1", pdf).output
    assert "is now the PDF of Another trial" in out
    assert "Check this PDF: it looks like another paper of this Study, 'Patient experiences'" in out
    assert "DOI 10.1155/2010/157939 on both" in out
    assert "litdesk study fulltext Heart --undo" in out
    listed = json.loads(cli("study", "fulltext", "Heart", "--json").output)
    other = next(p for p in listed["papers"] if p["doi"] == "10.1000/other.1")
    assert other["pdf"]["doubt"] is True and other["pdf"]["state"] == "linked"
    assert "Patient experiences" in other["pdf"]["detail"]
    assert "Check this PDF" in cli("study", "fulltext", "Heart").output
    # the right paper's own PDF: no doubt
    right = json.loads(cli("study", "attach", "Heart", "10.1155/2010/157939", pdf, "--json").output)
    assert right["doubt"] is None
    listed = json.loads(cli("study", "fulltext", "Heart", "--json").output)
    mine = next(p for p in listed["papers"] if p["doi"] == "10.1155/2010/157939")
    assert mine["pdf"]["doubt"] is False and mine["pdf"]["detail"] == "uploaded for this paper"
    # the reviewer screening its full text is told before reading it
    cli("screen", "decide", "Heart", other["id"], "include")
    card = cli("screen", "next", "Heart", "--stage", "ft").output
    assert "Another trial" in card and "full text: PDF hindawi_rrp_2010_157939.pdf" in card
    assert "Check this PDF: it looks like another paper of this Study" in card
    shown = json.loads(cli("screen", "next", "Heart", "--stage", "ft", "--json").output)
    assert "'Patient experiences'" in shown["full_text"]["pdf"]["doubt"]
    # a new upload (stored in the inbox) naming a DOI that is no paper's of the Study
    new = tmp_path / "wheat.pdf"
    shutil.copyfile(fixtures_dir / "pdf/plosone_2018_0197919.pdf", new)
    stored = json.loads(cli("study", "attach", "Heart", "10.1000/other.1", new, "--json").output)
    assert stored["stored"] is True
    assert stored["doubt"] == (
        "Check this PDF: its first pages name DOI 10.1371/journal.pone.0197919; "
        "this paper's is 10.1000/other.1"
    )
    # undone as the message says
    cli("study", "fulltext", "Heart", "--undo", "10.1000/other.1")
    listed = json.loads(cli("study", "fulltext", "Heart", "--json").output)
    assert next(p for p in listed["papers"] if p["doi"] == "10.1000/other.1")["pdf"] is None
