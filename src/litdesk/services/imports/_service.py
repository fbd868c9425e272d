"""Import many files: every file's :class:`ImportTrace` or its refusal, side by side.

A refused file (unsupported, malformed, duplicate ids, too large, missing…) never stops
the others: it is reported beside the successes with its code and message.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters import formats
from litdesk.core.imports import ImportRefused, ImportTrace, repeated_source
from litdesk.core.records import Paper

__all__ = ["ImportBatch", "RefusedFile", "convert_files", "import_bytes", "import_files"]

#: Called before each file is read: ``(path, size in bytes or -1 when unknown)``.
ProgressHook = Callable[[str, int], None]


@dataclass(frozen=True, slots=True)
class RefusedFile:
    """A file nothing was imported from, and why."""

    path: str
    code: str
    message: str
    exit_code: int = InputError.exit_code  # the error category's exit status (not in to_dict)

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class ImportBatch:
    """What one import call read: traces in the order given, refusals beside them."""

    imports: tuple[ImportTrace, ...]
    refused: tuple[RefusedFile, ...]

    @property
    def papers(self) -> list[Paper]:
        return [p for trace in self.imports for p in trace.papers]

    @property
    def record_count(self) -> int:
        return sum(len(t.records) for t in self.imports)

    def to_dict(self) -> dict[str, Any]:
        """The ``litdesk import --json`` document."""
        return {
            "imports": [
                {
                    "source": t.source.to_dict(),
                    "records": [
                        {
                            "digest": r.digest,
                            "lines": [r.first_line, r.last_line],
                            "paper": r.paper.to_dict(),
                            "notices": [n.to_dict() for n in r.notices],
                        }
                        for r in t.records
                    ],
                    "notices": [n.to_dict() for n in t.notices],
                }
                for t in self.imports
            ],
            "refused": [r.to_dict() for r in self.refused],
        }


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return -1


def import_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    format: str | None = None,
    max_bytes: int = formats.MAX_IMPORT_BYTES,
    on_file: ProgressHook | None = None,
    strict_ids: bool = False,
) -> ImportBatch:
    """Import every file of ``paths``; each is traced or refused, independently.

    With ``strict_ids`` a file whose records repeat a source record id is refused
    (``duplicate_ids``); by default such records are kept with notices. A file whose bytes
    were read earlier in the same call (the same source digest) gets a
    ``repeated_source`` notice.
    """
    if format:
        formats.get_format(format)  # an unknown --format refuses the whole call up front
    duplicate_ids = "refuse" if strict_ids else "notice"

    def reads() -> Iterator[tuple[str, Callable[[], ImportTrace]]]:
        for item in paths:
            path = os.fspath(item)
            if on_file is not None:
                on_file(path, _size(path))
            yield (
                path,
                partial(
                    formats.load,
                    Path(path),
                    format=format,
                    max_bytes=max_bytes,
                    duplicate_ids=duplicate_ids,
                ),
            )

    return _collect(reads())


def import_bytes(
    files: Iterable[tuple[str, bytes]],
    *,
    format: str | None = None,
    max_bytes: int = formats.MAX_IMPORT_BYTES,
    strict_ids: bool = False,
) -> ImportBatch:
    """Like :func:`import_files` for files a face already holds as ``(name, bytes)``
    (an upload): each is traced under its name or refused, independently; a repeat of
    earlier bytes of the same call gets a ``repeated_source`` notice."""
    if format:
        formats.get_format(format)
    duplicate_ids = "refuse" if strict_ids else "notice"

    def read(name: str, data: bytes) -> ImportTrace:
        if len(data) > max_bytes:
            raise ImportRefused(
                f"{name} is larger than {max_bytes:,} bytes; not read", code="too_large"
            )
        return formats.loads(
            data, format=format, path=name, max_bytes=max_bytes, duplicate_ids=duplicate_ids
        )

    return _collect((name, partial(read, name, data)) for name, data in files)


def _collect(reads: Iterable[tuple[str, Callable[[], ImportTrace]]]) -> ImportBatch:
    """Run each ``(name, read)``: its trace, or its refusal beside the others; a trace whose
    bytes an earlier one of the same call had gets a ``repeated_source`` notice."""
    traces: list[ImportTrace] = []
    refused: list[RefusedFile] = []
    seen: dict[str, str] = {}
    for name, read in reads:
        try:
            trace = read()
        except (InputError, NotFoundError) as exc:
            refused.append(RefusedFile(name, exc.code, exc.message, exc.exit_code))
            continue
        first = seen.get(trace.source.sha256)
        if first is None:
            seen[trace.source.sha256] = name
        traces.append(trace if first is None else repeated_source(trace, [first]))
    return ImportBatch(tuple(traces), tuple(refused))


def convert_files(
    paths: Sequence[str | os.PathLike[str]],
    *,
    to: str,
    format: str | None = None,
    max_bytes: int = formats.MAX_IMPORT_BYTES,
    on_file: ProgressHook | None = None,
) -> tuple[str, ImportBatch]:
    """Import ``paths`` and write every paper read as ``to`` (ris, bibtex, csljson, csv)."""
    target = to.strip().lower()
    if target not in formats.EXPORT_FORMATS:
        raise ImportRefused(
            f"cannot convert to {to[:40]!r} (choose one of {', '.join(formats.EXPORT_FORMATS)})",
            code="unsupported",
        )
    batch = import_files(paths, format=format, max_bytes=max_bytes, on_file=on_file)
    return formats.dumps(batch.papers, target), batch
