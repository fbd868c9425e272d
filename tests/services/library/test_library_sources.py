from __future__ import annotations

from pathlib import Path

import pytest

from litdesk._errors import InputError, NotFoundError
from litdesk.services.library import (
    Source,
    UnknownPapers,
    add_source,
    discover,
    load_added,
    remove_source,
)


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.4\n")
    return path


def test_earlier_source_wins_and_shadowed_are_named(tmp_path: Path) -> None:
    a = _touch(tmp_path / "one" / "deep" / "paper.pdf")
    _touch(tmp_path / "one" / "other.PDF")
    b = _touch(tmp_path / "two" / "paper.pdf")
    _touch(tmp_path / "inbox" / "new.pdf")
    _touch(tmp_path / "inbox" / "sub" / "ignored.pdf")  # the inbox is flat
    (tmp_path / "two" / "notes.txt").write_text("x")
    corpus = discover(
        [
            Source(tmp_path / "one", True, "settings"),
            Source(tmp_path / "two", True, "added"),
            Source(tmp_path / "inbox", False, "inbox"),
            Source(tmp_path / "missing", True, "added"),
        ]
    )
    assert corpus.names() == ["other.PDF", "paper.pdf", "new.pdf"]  # a folder's files first
    assert corpus.files[1].path == a
    assert any(str(b) in w and "shadowed" in w for w in corpus.warnings)
    assert any("missing" in w for w in corpus.warnings)


def test_select_rejects_unknown_with_the_real_list(tmp_path: Path) -> None:
    _touch(tmp_path / "a.pdf")
    corpus = discover([Source(tmp_path, True, "added")])
    assert [f.name for f in corpus.select(["a.pdf"])] == ["a.pdf"]
    with pytest.raises(UnknownPapers) as info:
        corpus.select(["a.pdf", "b.pdf"])
    assert "b.pdf" in info.value.message and "a.pdf" in info.value.message
    assert info.value.details["available"] == ["a.pdf"]
    assert info.value.exit_code == 4


def test_add_and_remove_persist(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = tmp_path / "pdfs"
    folder.mkdir()
    assert add_source(data, folder) == (folder.resolve(), True)
    assert add_source(data, folder)[1] is False
    pdf = _touch(tmp_path / "x.pdf")
    add_source(data, pdf)
    assert load_added(data) == [folder.resolve(), pdf.resolve()]
    with pytest.raises(InputError):
        add_source(data, tmp_path / "nope")
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(InputError):
        add_source(data, tmp_path / "a.txt")
    remove_source(data, folder)
    assert load_added(data) == [pdf.resolve()]
    with pytest.raises(NotFoundError):
        remove_source(data, folder)
