"""Every ``litdesk …`` command shown in the README's and the docs' code blocks names real
commands and options, and every relative link and image of those pages points at a file.

The README and docs/ are the user's first contact; a renamed option there is a broken promise.
Each command line (continuations joined, comments and ``> file`` redirections dropped,
``[--opt]`` optional parts taken as written) is parsed by the real command tree with ``--help``
added, so nothing runs. The quick start's screenshots (``docs/img/quickstart-*.png``) are made
by ``tools/screenshots.py`` and may be missing until it has run; any other missing target fails.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk.faces.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]

#: the pages every area's reference lives in (the README links them)
EXPECTED_DOCS = {
    "README.md", "architecture.md", "assist.md", "benchmarks.md", "dedup.md", "files.md",
    "import.md", "library.md", "reading.md", "reports.md", "screening.md", "search.md",
    "settings.md", "studies.md", "team.md", "web.md", "zotero.md",
}  # fmt: skip

QUICKSTART_IMAGES = [
    f"docs/img/quickstart-{name}.png"
    for name in (
        "01-run", "02-study", "03-search", "04-import", "05-dedup",
        "06-screen", "07-read", "08-evidence", "09-prisma", "10-export",
    )
]  # fmt: skip


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _command_lines(page: Path) -> list[tuple[str, str]]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, str]] = []
    in_block = False
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(lines, start=1):
        if raw.lstrip().startswith("```"):
            in_block = not in_block
            pending = None
            continue
        if not in_block:
            continue
        text = raw.strip()
        if pending is not None:
            start, head = pending
            joined = head + " " + text
            if text.endswith("\\"):
                pending = (start, joined[:-1])
            else:
                found.append((f"{_name(page)}:{start}", joined))
                pending = None
            continue
        if not text.startswith("litdesk "):
            continue
        if text.endswith("\\"):
            pending = (number, text[:-1])
        else:
            found.append((f"{_name(page)}:{number}", text))
    return found


def _args(line: str) -> list[str]:
    tokens = shlex.split(line, comments=True)[1:]
    if ">" in tokens:
        tokens = tokens[: tokens.index(">")]
    out: list[str] = []
    for token in tokens:
        # "[--json]", "[-o", "report.html]", "[--undo N]": optional parts, as written
        out.append(re.sub(r"^\[|\]$", "", token))
    return [t for t in out if t]


COMMANDS = [found for page in PAGES for found in _command_lines(page)]

_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _links(page: Path) -> list[tuple[str, str]]:
    """(where, target) of every relative link and image (code blocks and spans left out)."""
    out: list[tuple[str, str]] = []
    in_block = False
    for number, raw in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if raw.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            continue
        for target in _LINK.findall(_CODE_SPAN.sub("", raw)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # https:, mailto:, a heading of the same page
            out.append((f"{_name(page)}:{number}", target.split("#", 1)[0]))
    return out


LINKS = [found for page in PAGES for found in _links(page)]


def test_docs_pages_exist() -> None:
    assert {p.name for p in DOCS.glob("*.md")} >= EXPECTED_DOCS


def test_readme_and_docs_have_commands() -> None:
    assert len(COMMANDS) >= 150
    assert len(_command_lines(README)) >= 20  # the quick start's CLI twins


def test_readme_opens_with_the_quick_start() -> None:
    text = README.read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## Your first review in ten minutes"
    assert "## Two commands" in headings
    for image in QUICKSTART_IMAGES:  # every step has its screenshot, in order
        assert f"]({image})" in text, image
    order = [text.index(f"]({image})") for image in QUICKSTART_IMAGES]
    assert order == sorted(order)
    assert len(text.splitlines()) < 400  # the reference lives in docs/


def test_every_page_is_linked_from_the_readme_or_the_index() -> None:
    linked = {
        (page.parent / target).resolve()
        for page in (README, DOCS / "README.md")
        for _, target in _links(page)
    }
    for page in DOCS.glob("*.md"):
        assert page.resolve() in linked, f"{_name(page)} is linked from nowhere"


@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_command_parses(where: str, command: str) -> None:
    # ``--help`` is eager: the command line is parsed (unknown commands and options, options
    # missing their value fail here) and the help printed, nothing runs.
    result = CliRunner().invoke(app, [*_args(command), "--help"])
    assert result.exit_code == 0, f"{where}: {command!r}: {result.output}"
    assert "Usage:" in result.output


@pytest.mark.parametrize(("where", "target"), LINKS, ids=[f"{w} {t}" for w, t in LINKS])
def test_relative_link_points_at_a_file(where: str, target: str) -> None:
    page = ROOT / where.rsplit(":", 1)[0]
    path = (page.parent / target).resolve()
    if path.exists():
        return
    relative = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    if relative in QUICKSTART_IMAGES:
        pytest.skip(f"{relative}: made by tools/screenshots.py (not run yet)")
    pytest.fail(f"{where}: {target} does not exist")


_DOC_REF = re.compile(
    r"\b(README(?:\.md)?|docs/[\w-]+\.md)\b(?::\s*[\"\u201c]([^\"\u201d\n]+)[\"\u201d])?"
)


def _doc_refs() -> list[tuple[str, str, str | None]]:
    """(where, page, heading) of every page the code's words point the user to: help texts,
    hints and page templates saying "see docs/x.md" or "see README: "Heading""."""
    found: list[tuple[str, str, str | None]] = []
    for path in sorted((ROOT / "src" / "litdesk").rglob("*")):
        if path.suffix not in (".py", ".html") or "_demo" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for page, heading in _DOC_REF.findall(line):
                found.append((f"{_name(path)}:{number}", page, heading or None))
    return found


def test_the_pages_the_code_points_to_exist_with_their_headings() -> None:
    """A help text or hint that says "see README: 'Keeping a Study up to date'" must lead
    somewhere: the page exists and, when a heading is named, the page has it; the README is
    the quick start, so the code names the docs/ page where the reference lives."""
    refs = _doc_refs()
    assert refs  # the hints do point to pages
    for where, page, heading in refs:
        assert not page.startswith("README"), f"{where}: names the README, not its docs/ page"
        target = ROOT / page
        assert target.is_file(), f"{where}: {page} does not exist"
        if heading is not None:
            headings = [
                line.lstrip("#").strip().casefold()
                for line in target.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")
            ]
            assert heading.casefold() in headings, f"{where}: {page} has no heading {heading!r}"
