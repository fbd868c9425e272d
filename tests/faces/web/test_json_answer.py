"""The hot read routes answer pre-encoded JSON (``routes._common.json_answer``): the same
JSON FastAPI's own encoding gives, and the OpenAPI schema still describes them."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime
from enum import StrEnum
from pathlib import Path

import pytest
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel

from litdesk import Settings
from litdesk.faces.web import create_app
from litdesk.faces.web.routes._common import json_answer


class Colour(StrEnum):
    RED = "red"


class Inner(BaseModel):
    name: str
    when: date


def test_the_answer_is_what_fastapi_would_encode():
    data = {
        "text": "ünïcode — “quotes”",
        "n": 3,
        "x": 1.5,
        "none": None,
        "tuple": (1, "two"),
        "set": {"only"},
        "day": date(2026, 12, 5),
        "moment": datetime(2026, 12, 5, 19, 0, tzinfo=UTC),
        "enum": Colour.RED,
        "model": Inner(name="m", when=date(2026, 1, 2)),
        "nested": [{"a": [{"b": date(2020, 1, 1)}]}],
    }
    response = json_answer(data, 207, {"x-extra": "1"})
    assert response.status_code == 207
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-extra"] == "1"
    assert json.loads(response.body) == jsonable_encoder(data)
    assert "ünïcode" in response.body.decode("utf-8")  # not \\u-escaped, as JSONResponse


def test_a_value_json_cannot_carry_is_refused_as_by_jsonresponse():
    with pytest.raises(ValueError):
        json_answer({"x": math.nan})


def test_the_read_routes_keep_a_described_openapi_answer(tmp_path: Path):
    web = create_app(Settings(data_dir=tmp_path), app=object())
    paths = web.openapi()["paths"]
    for path in (
        "/api/v1/saved",
        "/api/v1/papers/{paper_id}",
        "/api/v1/studies/{ref}",
        "/api/v1/notebook",
        "/api/v1/search",
    ):
        schema = paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema.get("type") == "object", (path, schema)
