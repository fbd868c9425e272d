"""Input files: only regular files are read, never by a blocking open, never past a limit."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from litdesk import NotFoundError
from litdesk.adapters import formats
from litdesk.adapters.files import InputFileError, check_regular, read_regular
from litdesk.core.imports import ImportRefused


def test_regular_file_read(tmp_path: Path) -> None:
    p = tmp_path / "a.ris"
    p.write_bytes(b"abc")
    assert check_regular(p) == 3
    assert read_regular(p, max_bytes=3) == b"abc"


def test_over_the_limit_refused(tmp_path: Path) -> None:
    p = tmp_path / "a.json"
    p.write_bytes(b"x" * 11)
    with pytest.raises(InputFileError) as info:
        read_regular(p, max_bytes=10)
    assert info.value.code == "too_large"


def test_missing_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read_regular(tmp_path / "nope", max_bytes=10)


@pytest.mark.timeout(20)
def test_fifo_without_writer_refused_without_blocking(tmp_path: Path) -> None:
    """No writer ever opens this FIFO: a blocking open would hang (the timeout fails it)."""
    path = tmp_path / "refs.ris"
    os.mkfifo(path)
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            read_regular(path, max_bytes=100)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            done.append(exc)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "read_regular blocked on a FIFO"
    assert isinstance(done[0], InputFileError) and done[0].code == "not_regular"


@pytest.mark.parametrize("kind", ["fifo", "device", "sock"])
def test_special_files_refused(request: pytest.FixtureRequest, kind: str) -> None:
    path: Path = request.getfixturevalue(kind)
    with pytest.raises(InputFileError) as info:
        read_regular(path, max_bytes=100)
    assert info.value.code == "not_regular" and info.value.exit_code == 2


def test_dev_zero_and_a_folder_refused(tmp_path: Path) -> None:
    for path in (Path("/dev/zero"), tmp_path):
        with pytest.raises(InputFileError) as info:
            read_regular(path, max_bytes=100)
        assert info.value.code == "not_regular"


def test_link_to_regular_file_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.ris"
    real.write_bytes(b"TY  - JOUR\n")
    (tmp_path / "link.ris").symlink_to(real)
    assert read_regular(tmp_path / "link.ris", max_bytes=100) == b"TY  - JOUR\n"


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["fifo", "device", "sock"])
def test_format_load_refuses_special_files(request: pytest.FixtureRequest, kind: str) -> None:
    path: Path = request.getfixturevalue(kind)
    with pytest.raises(ImportRefused) as info:
        formats.load(path)
    assert info.value.code == "not_regular"
    with pytest.raises(ImportRefused):
        formats.load("/dev/zero")
