"""The contract every file format implements (one module per format).

A format module defines ``FORMATS: list[FormatSpec]``. The registry
(``_registry.py``) collects them, detects the format by content, decodes bytes and
builds the :class:`~litdesk.core.imports.ImportTrace`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from litdesk.core.imports import Notice, RecordTrace
from litdesk.core.records import Paper

__all__ = ["FormatSpec", "ParseResult"]


@dataclass(slots=True)
class ParseResult:
    """What a parser read from one decoded text."""

    records: list[RecordTrace]
    notices: list[Notice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """One readable (and maybe writable) format.

    * ``sniff(head)`` gets the first ~64 KiB of decoded text and returns a confidence
      0–100 that this is the format (0 = certainly not).
    * ``parse(text)`` reads the whole decoded text; it raises
      :class:`~litdesk.core.imports.ImportRefused` for a whole-file refusal (no record at
      all, duplicate source ids) and otherwise never raises on bad input: problems become
      notices beside the records.
    * ``dumps(papers)`` writes papers in this format (export), when supported.
    * ``tool(data, records)`` names the reference manager that wrote the file when the
      file's own markers say so (``"Zotero"``), else ``None`` (``SourceInfo.tool``).
    """

    name: str
    parser_id: str
    parser_version: str
    description: str
    sniff: Callable[[str], int]
    parse: Callable[[str], ParseResult]
    extensions: tuple[str, ...] = ()
    dumps: Callable[[Sequence[Paper]], str] | None = None
    tool: Callable[[bytes | str, Sequence[RecordTrace]], str | None] | None = None
