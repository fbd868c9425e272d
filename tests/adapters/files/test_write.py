"""Output files: atomic writes of regular files only; nothing else is ever replaced."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk import InputError
from litdesk.adapters.files import OutputPathError, check_output, read_bounded, write_output


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def test_new_file_written_with_umask_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.ris"
    assert write_output(target, "TY  - JOUR\r\nER  - \r\n") == target
    assert target.read_bytes() == b"TY  - JOUR\r\nER  - \r\n"  # no newline translation
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert _leftovers(tmp_path) == []


def test_existing_file_needs_force_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with pytest.raises(OutputPathError) as info:
        write_output(target, b"new")
    assert info.value.code == "exists" and target.read_bytes() == b"old"
    write_output(target, b"new", force=True)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("force", [False, True])
def test_directory_refused(tmp_path: Path, force: bool) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputPathError) as info:
        write_output(tmp_path / "d", b"x", force=force)
    assert info.value.code == "is_directory"
    assert (tmp_path / "d").is_dir() and list((tmp_path / "d").iterdir()) == []


@pytest.mark.parametrize("force", [False, True])
def test_missing_folder_not_created(tmp_path: Path, force: bool) -> None:
    target = tmp_path / "missing" / "dir" / "x.zip"
    with pytest.raises(OutputPathError) as info:
        write_output(target, b"x", force=force)
    assert info.value.code == "no_folder"
    assert not (tmp_path / "missing").exists()


def test_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputPathError) as info:
        write_output(tmp_path / "f" / "x.csv", b"x", force=True)
    assert info.value.code in {"no_folder", "unwritable"}


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("kind", ["fifo", "device", "sock"])
def test_special_files_never_replaced(
    request: pytest.FixtureRequest, kind: str, force: bool
) -> None:
    path: Path = request.getfixturevalue(kind)
    before = os.lstat(path)
    with pytest.raises(OutputPathError) as info:
        write_output(path, b"replaced?", force=force)
    assert info.value.code == "not_regular"
    assert isinstance(info.value, InputError) and info.value.exit_code == 2
    after = os.lstat(path)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert after.st_ino == before.st_ino
    assert _leftovers(path.parent) == []


def test_link_to_device_refused_link_kept(tmp_path: Path, device: Path) -> None:
    link = tmp_path / "report.html"
    link.symlink_to(device)
    with pytest.raises(OutputPathError) as info:
        write_output(link, b"x", force=True)
    assert info.value.code == "not_regular"
    assert link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode)


def test_link_to_regular_file_replaces_the_target(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    with pytest.raises(OutputPathError):
        write_output(link, "new")
    assert write_output(link, "new", force=True) == real
    assert link.is_symlink() and real.read_text() == "new"


def test_target_swapped_for_a_fifo_after_the_check_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is repeated just before the rename (a FIFO created in between stays)."""
    import litdesk.adapters.files._write as w

    target = tmp_path / "x.csv"
    real_fdopen = os.fdopen

    def fdopen_then_swap(fd: int, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        fh = real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]
        if not target.exists():
            os.mkfifo(target)
        return fh

    monkeypatch.setattr(w.os, "fdopen", fdopen_then_swap)
    with pytest.raises(OutputPathError) as info:
        write_output(target, b"x", force=True)
    assert info.value.code == "not_regular"
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert _leftovers(tmp_path) == []


def test_write_failure_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import litdesk.adapters.files._write as w

    target = tmp_path / "x.csv"
    target.write_bytes(b"old")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(w.os, "fsync", full)
    with pytest.raises(OutputPathError) as info:
        write_output(target, b"new" * 1000, force=True)
    assert info.value.code == "unwritable" and "disk is full" in info.value.message
    assert target.read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["", ".", ".."])
def test_not_a_file_name(tmp_path: Path, name: str) -> None:
    with pytest.raises(OutputPathError):
        check_output(name, force=True)


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=4096) | st.text(max_size=1024))
def test_round_trip_through_the_read_rule(data: bytes | str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.bin"
        write_output(target, data)
        expected = data.encode("utf-8") if isinstance(data, str) else data
        assert read_bounded(target, limit=10_000) == expected
        write_output(target, expected[::-1], force=True)
        assert read_bounded(target, limit=10_000) == expected[::-1]
        assert _leftovers(Path(folder)) == []
