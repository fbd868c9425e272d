"""A Study's files on the desk: its PRISMA-S report (view, Markdown, self-contained HTML,
the SVG flow diagram) and its ZIP export and recovery (functions taking the Desk)."""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from litdesk.core.runs import PrismaReport, prisma_html, prisma_markdown, prisma_svg
from litdesk.services.search import study_prisma
from litdesk.services.workspace import MAX_ZIP_BYTES, export_study, import_study

from ._desk import Desk, DeskInputError
from ._views import Export

__all__ = [
    "MAX_STUDY_ZIP_BYTES",
    "PRISMA_FORMATS",
    "prisma_file",
    "prisma_view",
    "recover_study",
    "study_zip",
]

#: A ZIP uploaded through the web face (the workspace itself accepts up to MAX_ZIP_BYTES).
MAX_STUDY_ZIP_BYTES: Final = min(MAX_ZIP_BYTES, 100_000_000)
PrismaFormat = Literal["md", "html", "svg"]
PRISMA_FORMATS: Final[dict[str, tuple[str, str]]] = {
    "md": ("text/markdown; charset=utf-8", "md"),
    "html": ("text/html; charset=utf-8", "html"),
    "svg": ("image/svg+xml", "svg"),
}
_SAFE_NAME: Final = re.compile(r"[^A-Za-z0-9._-]+")


def _slug(name: str) -> str:
    """A file-name stem from a Study's name (ASCII letters, digits, ``._-``)."""
    return _SAFE_NAME.sub("-", name).strip("-.")[:60] or "study"


def _report(desk: Desk, ref: str) -> PrismaReport:
    return study_prisma(desk.store, ref)


def prisma_view(desk: Desk, ref: str) -> dict[str, Any]:
    """The PRISMA-S report of a Study as data (the page and the API render the same)."""
    row = desk.workspace.study(ref)
    return {"study_id": row.id} | _report(desk, row.id).to_dict()


def prisma_file(desk: Desk, ref: str, fmt: str) -> Export:
    """The report as Markdown, a self-contained HTML page, or the SVG flow diagram."""
    if fmt not in PRISMA_FORMATS:
        raise DeskInputError(
            f"PRISMA-S format is one of {', '.join(PRISMA_FORMATS)}", code="format"
        )
    row = desk.workspace.study(ref)
    report = _report(desk, row.id)
    render = {"md": prisma_markdown, "html": prisma_html, "svg": prisma_svg}[fmt]
    media, ext = PRISMA_FORMATS[fmt]
    body = render(report).encode("utf-8")
    return Export(body, f"prisma-s-{_slug(row.name)}.{ext}", media, report.after_dedup)


def study_zip(desk: Desk, ref: str) -> Export:
    """The Study as its ZIP export (the same bytes as ``litdesk study export``)."""
    row = desk.workspace.study(ref)
    data = export_study(desk.workspace, row.id)
    count = len(desk.workspace.study_summary(row.id)["papers"])
    return Export(data, f"{_slug(row.name)}.zip", "application/zip", count)


def recover_study(desk: Desk, data: bytes, *, name: str | None = None) -> dict[str, Any]:
    """Recover a Study from an uploaded ZIP export: every record validated, refused as a
    whole with its reason (``StudyImportRefused``) or stored as a new Study."""
    if len(data) > MAX_STUDY_ZIP_BYTES:
        raise DeskInputError(
            f"the ZIP has more than {MAX_STUDY_ZIP_BYTES:,} bytes", code="too_large"
        )
    if not data:
        raise DeskInputError("the uploaded file is empty", code="empty_file")
    return import_study(desk.workspace, data, name=name)
