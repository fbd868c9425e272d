"""Shared request models and response helpers of the route modules."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Final

from fastapi import Path
from fastapi.encoders import jsonable_encoder
from fastapi.responses import Response

from litdesk.services.studies import Export

__all__ = ["PAPER_ID", "STUDY_REF", "JsonView", "PaperId", "StudyRef", "download", "json_answer"]

PAPER_ID: Final = r"^[A-Z0-9]{2,6}-[A-Z0-9][A-Z0-9._-]{0,99}$"
STUDY_REF: Final = r"^[^\x00-\x1f]{1,200}$"
PaperId = Annotated[str, Path(pattern=PAPER_ID, description="A paper's primary id.")]
StudyRef = Annotated[str, Path(pattern=STUDY_REF, description="A Study id or name.")]


#: the OpenAPI ``response_model`` of a route answering :func:`json_answer` (a JSON object)
JsonView = dict[str, Any]


def json_answer(
    data: Mapping[str, Any], status_code: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A view's JSON, encoded once by ``json`` (as ``JSONResponse`` renders it): no
    response-model validation and no ``jsonable_encoder`` walk of every value — most of a
    hot read route's framework cost. A value ``json`` does not know (a date, a set, a
    model) goes through ``jsonable_encoder``, so the answer is what FastAPI would send."""
    body = json.dumps(
        data,
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
        default=jsonable_encoder,
    ).encode("utf-8")
    return Response(body, status_code, dict(headers or {}), media_type="application/json")


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
