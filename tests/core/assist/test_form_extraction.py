"""Suggestions for a Study's own form (pure): the request's description of the fields is
bounded (help cut, fields beyond the bound left out and disclosed), the answer's size and
tokens are bounded, and every value is checked against its field."""

from __future__ import annotations

import json

import pytest

from litdesk.core.assist import (
    MAX_FORM_DESCRIPTION_CHARS,
    AnswerRefused,
    SourceBlock,
    ask_form,
    bound_source,
    form_answer_chars,
    form_extraction_message,
    form_extraction_schema,
    form_max_tokens,
    parse_form_extraction,
)
from litdesk.core.forms import MAX_FIELDS, MAX_OPTIONS, Form, FormField

TEXT = "We randomised 1,204 adults in Lyon; outcome assessors were blinded to allocation."
SOURCE = bound_source([SourceBlock("abstract", "Abstract", TEXT)])
FORM = Form(
    (
        FormField("sample_size", "Sample size", "number"),
        FormField("blinded", "Blinded", "yesno"),
        FormField("finding", "Finding", required=True),
        FormField("city", "City", max_length=10),
    )
)
FINDING = {"value": "F", "quote": "outcome assessors were blinded", "block": "abstract"}


def _answer(fields: dict[str, tuple[str, str]]) -> str:
    given = {k: fields.get(k, ("", "")) for k in ("sample_size", "blinded", "city")}
    return json.dumps(
        {
            "finding": FINDING,
            "fields": {
                k: {"value": v, "quote": q, "block": "abstract"} for k, (v, q) in given.items()
            },
        }
    )


def test_the_largest_form_is_bounded_and_disclosed():
    options = tuple(f"option {i:02d} " + "x" * 180 for i in range(MAX_OPTIONS))
    fields = tuple(
        FormField(f"f{i:02d}", f"Field {i}", "choice", options=options, help="h" * 1_000)
        for i in range(MAX_FIELDS)
    )
    asked = ask_form(Form(fields))
    assert 0 < len(asked.fields) < MAX_FIELDS
    assert asked.left_out == tuple(f.key for f in fields[len(asked.fields) :])
    assert "not asked (f" in asked.disclosure()[0]
    message = json.loads(form_extraction_message("T", SOURCE, asked, coverage="abstract"))
    described = json.dumps(message["fields"], ensure_ascii=False)
    assert len(described) <= MAX_FORM_DESCRIPTION_CHARS
    assert all(len(f["help"]) == 301 for f in message["fields"])  # cut, with an ellipsis
    assert form_max_tokens(ask_form(Form(fields[:1]))) < form_max_tokens(asked) <= 16_000
    schema = form_extraction_schema(asked)
    assert schema["properties"]["fields"]["required"] == list(asked.keys)
    assert schema["properties"]["fields"]["additionalProperties"] is False


def test_a_finding_field_is_filled_by_the_finding_not_asked_twice():
    asked = ask_form(FORM)
    assert asked.keys == ("sample_size", "blinded", "city") and asked.finding_field


def test_values_checked_against_their_fields():
    asked = ask_form(FORM)
    draft = parse_form_extraction(
        _answer(
            {
                "sample_size": ("1,204", "randomised 1,204 adults"),
                "blinded": ("Yes", "assessors were blinded"),
                "city": ("Lyon, France", "adults in Lyon"),  # over 10 characters
            }
        ),
        SOURCE,
        asked,
    )
    assert {k: v.value for k, v in draft.fields.items()} == {"sample_size": 1204, "blinded": True}
    assert draft.dropped == ("city",)
    assert draft.warnings[0].startswith("City (city) dropped: 'Lyon, France' does not fit")


def test_oversized_or_foreign_answers_refused():
    asked = ask_form(FORM)
    huge = _answer({"sample_size": ("1", "x" * form_answer_chars(asked))})
    with pytest.raises(AnswerRefused) as too_long:
        parse_form_extraction(huge, SOURCE, asked)
    assert too_long.value.code == "answer_too_long"
    with pytest.raises(AnswerRefused) as control:
        parse_form_extraction(_answer({"city": ("Ly\x00on", "in Lyon")}), SOURCE, asked)
    assert control.value.code == "control_characters"
    missing = json.loads(_answer({}))
    del missing["fields"]["city"]
    with pytest.raises(AnswerRefused) as lacks:
        parse_form_extraction(json.dumps(missing), SOURCE, asked)
    assert lacks.value.code == "bad_shape"
