"""Uploads into the inbox: safe names only (never rewritten), the %PDF- signature and the
size limit checked while streaming, nothing written outside the inbox, names already in
the library refused, identical content noted; Hypothesis over hostile names."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.services.library import Upload, UploadRefused, safe_name, store_upload

PDF = b"%PDF-1.4\n" + b"0" * 2_000 + b"\n%%EOF\n"


def _store(inbox: Path, name: str, body: bytes = PDF, **kw: object) -> object:
    return store_upload(
        inbox,
        Upload(name, io.BytesIO(body)),
        limit=int(kw.get("limit", 10_000)),  # type: ignore[call-overload]
        taken=kw.get("taken", {}),  # type: ignore[arg-type]
        hashes=kw.get("hashes", {}),  # type: ignore[arg-type]
    )


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("../evil.pdf", "unsafe_name"),
        ("..\\evil.pdf", "unsafe_name"),
        ("/etc/passwd.pdf", "unsafe_name"),
        ("sub/paper.pdf", "unsafe_name"),
        ("..", "unsafe_name"),
        (".hidden.pdf", "unsafe_name"),
        ("a\x00b.pdf", "unsafe_name"),
        ("line\nbreak.pdf", "unsafe_name"),
        (" spaced.pdf", "unsafe_name"),
        ("x" * 250 + ".pdf", "unsafe_name"),
        ("", "unsafe_name"),
        ("notes.txt", "not_pdf_name"),
    ],
)
def test_unsafe_names_are_refused_and_nothing_is_written(
    tmp_path: Path, name: str, code: str
) -> None:
    inbox = tmp_path / "lib" / "inbox"
    with pytest.raises(UploadRefused) as exc:
        _store(inbox, name)
    assert exc.value.code == code
    assert _tree(tmp_path) <= {"lib", "lib/inbox"}


def test_a_safe_pdf_is_stored_under_its_own_name(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    stored = _store(inbox, "Étude 2024 (final).PDF")
    assert stored.file == "Étude 2024 (final).PDF" and stored.bytes == len(PDF)  # type: ignore[attr-defined]
    assert (inbox / "Étude 2024 (final).PDF").read_bytes() == PDF
    assert sorted(os.listdir(inbox)) == ["Étude 2024 (final).PDF"]  # no temporary left
    assert oct((inbox / "Étude 2024 (final).PDF").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    ("body", "limit", "code"),
    [
        (b"hello, not a pdf at all", 10_000, "not_pdf"),
        (b"%PD", 10_000, "not_pdf"),
        (b"", 10_000, "empty"),
        (PDF, 1_000, "too_large"),
        (b"<html>%PDF-1.4</html>", 10_000, "not_pdf"),
    ],
)
def test_content_checks(tmp_path: Path, body: bytes, limit: int, code: str) -> None:
    inbox = tmp_path / "inbox"
    with pytest.raises(UploadRefused) as exc:
        _store(inbox, "paper.pdf", body, limit=limit)
    assert exc.value.code == code
    assert os.listdir(inbox) == []  # the partial file is gone


def test_names_in_the_library_are_refused_identical_content_is_noted(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    with pytest.raises(UploadRefused) as exc:
        _store(inbox, "a.pdf", taken={"a.pdf": "an added folder"})
    assert exc.value.code == "name_exists" and "an added folder" in exc.value.message
    first = _store(inbox, "b.pdf")
    with pytest.raises(UploadRefused) as again:
        _store(inbox, "b.pdf")  # already in the inbox: never overwritten
    assert again.value.code == "name_exists"
    same = _store(inbox, "c.pdf", hashes={first.sha256: "b.pdf"})  # type: ignore[attr-defined]
    assert same.same_content_as == "b.pdf"  # type: ignore[attr-defined]


def test_a_symlink_planted_in_the_inbox_is_not_followed(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    outside = tmp_path / "outside.pdf"
    (inbox / "planted.pdf").symlink_to(outside)
    with pytest.raises(UploadRefused):
        _store(inbox, "planted.pdf")
    assert not outside.exists()


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.sampled_from(list("./\\ab_-~ \x00\n:$%é") + ["..", "../", ".pdf", "PDF", "/etc"]),
        max_size=12,
    ).map("".join)
)
def test_no_name_escapes_the_inbox(tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    root = tmp_path_factory.mktemp("h")
    inbox = root / "inbox"
    try:
        stored = _store(inbox, name + ".pdf")
    except UploadRefused:
        assert _tree(root) <= {"inbox"}
        return
    path = inbox / stored.file  # type: ignore[attr-defined]
    assert path.resolve().parent == inbox.resolve()
    assert _tree(root) == {"inbox", f"inbox/{stored.file}"}  # type: ignore[attr-defined]
    assert safe_name(stored.file) == stored.file  # type: ignore[attr-defined]
