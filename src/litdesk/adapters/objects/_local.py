"""The local-folder backend: each object a file under one root folder (the default: the
data directory itself, so keys are today's paths and nothing is copied). Writes are atomic
(a temporary file in the same folder, then renamed)."""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

from ._base import ObjectInfo, ObjectMissing, check_key, too_large

__all__ = ["LocalObjects"]


class LocalObjects:
    """Objects as files under ``root`` (created on the first write)."""

    def __init__(self, root: Path, *, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes

    def describe(self) -> str:
        return "the local folder"

    def _path(self, key: str) -> Path:
        return self.root.joinpath(*check_key(key).split("/"))

    def put(self, key: str, data: bytes) -> None:
        if len(data) > self.max_bytes:
            raise too_large(key, len(data), self.max_bytes)
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")
        try:
            tmp.write_bytes(data)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise too_large(key, size, self.max_bytes)
            return path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise ObjectMissing(f"no stored file {key}") from None

    def list(self, prefix: str = "") -> list[ObjectInfo]:
        folder = prefix.rpartition("/")[0]
        base = self._path(folder) if folder else self.root
        if not base.is_dir():
            return []
        out: list[ObjectInfo] = []
        for path in base.rglob("*"):
            if not path.is_file() or path.name.startswith("."):
                continue
            key = path.relative_to(self.root).as_posix()
            if key.startswith(prefix):
                out.append(ObjectInfo(key, path.stat().st_size))
        return sorted(out, key=lambda o: o.key)

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def close(self) -> None:
        """Nothing to release."""
