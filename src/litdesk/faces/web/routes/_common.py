"""Shared request models and response helpers of the route modules."""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import Path
from fastapi.responses import Response

from litdesk.services.studies import Export

__all__ = ["PAPER_ID", "STUDY_REF", "PaperId", "StudyRef", "download"]

PAPER_ID: Final = r"^[A-Z0-9]{2,6}-[A-Z0-9][A-Z0-9._-]{0,99}$"
STUDY_REF: Final = r"^[^\x00-\x1f]{1,200}$"
PaperId = Annotated[str, Path(pattern=PAPER_ID, description="A paper's primary id.")]
StudyRef = Annotated[str, Path(pattern=STUDY_REF, description="A Study id or name.")]


def download(export: Export) -> Response:
    """An export as an attachment (never rendered by the browser)."""
    return Response(
        export.body,
        media_type=export.media_type,
        headers={
            "content-disposition": f'attachment; filename="{export.filename}"',
            "x-litdesk-records": str(export.count),
        },
    )
