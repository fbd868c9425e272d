"""Odd files for the file-rule tests: FIFOs (kept open by a non-blocking reader so a wrong
blocking open for writing cannot hang the test), a private character device, a socket."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe.out"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield path
    finally:
        os.close(reader)


@pytest.fixture
def device(tmp_path: Path) -> Path:
    """A private null device (1, 3) in tmp_path, so no test can ever touch /dev."""
    path = tmp_path / "null.dev"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root here")
    return path


@pytest.fixture
def sock(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "s.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    try:
        yield path
    finally:
        s.close()
