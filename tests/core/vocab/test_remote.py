"""Remote suggestions (pure): the OpenAlex autocomplete request for a typed term, and its
answer read as subjects — the documented shape, results of another entity or without a
usable id or label skipped, labels kept as one line of plain text, and hostile bodies
(any bytes, any JSON, huge or deeply nested) met with a typed error in linear time."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError
from litdesk.core.vocab import (
    MAX_REMOTE_LABEL,
    RemoteAnswerInvalid,
    RemoteSubject,
    autocomplete_request,
    is_remote_vocabulary,
    parse_autocomplete,
    remote_vocabulary_name,
)

DOCUMENTED = {
    "meta": {"count": 183, "db_response_time_ms": 5, "page": 1, "per_page": 10},
    "results": [
        {
            "id": "https://openalex.org/T10017",
            "display_name": "Malaria Research and Control",
            "hint": "Infectious Diseases",
            "cited_by_count": 17190001,
            "works_count": 93_000,
            "entity_type": "topic",
            "external_id": None,
        },
        {"id": "https://openalex.org/T10017", "display_name": "The same id again"},
        {
            "id": "https://openalex.org/C71924100",
            "display_name": "Medicine",
            "entity_type": "concept",
        },
        {"id": "https://openalex.org/W1", "display_name": "A work", "entity_type": "topic"},
        {"id": "T10300", "display_name": "  Mosquito\u0000 vectors\n\tand\u202e control  "},
        {"id": "https://openalex.org/T10400", "display_name": ""},
        {"id": 12, "display_name": "No id"},
        "not an object",
    ],
}


def test_the_documented_answer_reads_as_subjects() -> None:
    found = parse_autocomplete(json.dumps(DOCUMENTED).encode(), "topics")
    assert found == (
        RemoteSubject(
            "openalex_topic", "T10017", "Malaria Research and Control", "Infectious Diseases"
        ),
        RemoteSubject("openalex_topic", "T10300", "Mosquito vectors and control", ""),
    )
    assert remote_vocabulary_name("openalex_topic") == "OpenAlex topic"
    assert is_remote_vocabulary("openalex_concept") and not is_remote_vocabulary("mesh")
    assert remote_vocabulary_name("mesh") is None


def test_concepts_and_keywords_read_their_own_ids() -> None:
    concepts = parse_autocomplete(json.dumps(DOCUMENTED).encode(), "concepts")
    assert [(s.vocabulary, s.id) for s in concepts] == [("openalex_concept", "C71924100")]
    body = {"results": [{"id": "https://openalex.org/keywords/malaria-vaccine",
                         "display_name": "Malaria vaccine", "entity_type": "keyword"}]}  # fmt: skip
    (keyword,) = parse_autocomplete(json.dumps(body).encode(), "keywords")
    assert (keyword.vocabulary, keyword.id) == ("openalex_keyword", "malaria-vaccine")


def test_the_request_is_the_autocomplete_path_with_the_term_only() -> None:
    request = autocomplete_request("topics", "  malaria   vac ")
    assert request.url == "https://api.openalex.org/autocomplete/topics"
    assert request.params == (("q", "malaria vac"),)
    assert (request.provider, request.method, request.operation) == ("openalex", "GET", "lookup")
    with pytest.raises(InputError):
        autocomplete_request("works", "malaria")
    with pytest.raises(InputError):
        autocomplete_request("topics", "ma")
    with pytest.raises(InputError):
        autocomplete_request("topics", "m" * 101)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"\xff\xfe",
        b"[]",
        b"null",
        b'{"results": {}}',
        b'{"meta": {}}',
        b"<html>",
        b"[" * 100_000 + b"]" * 100_000,
    ],  # fmt: skip
)
def test_an_answer_of_another_shape_is_a_typed_error(body: bytes) -> None:
    with pytest.raises(RemoteAnswerInvalid):
        parse_autocomplete(body, "topics")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=30,
)
_result = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(
            st.text(max_size=40),
            st.from_regex(r"(https://openalex\.org/)?T[0-9]{1,8}", fullmatch=True),
            _json,
        ),
        "display_name": st.one_of(st.text(max_size=400), _json),
        "hint": st.one_of(st.text(max_size=300), _json),
        "entity_type": st.sampled_from(["topic", "concept", "work", None]),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=300), _json.map(lambda v: json.dumps(v).encode()),
                 st.lists(_result, max_size=30).map(lambda r: json.dumps({"results": r}).encode())))  # fmt: skip
def test_any_body_gives_subjects_or_a_typed_error(body: bytes) -> None:
    try:
        found = parse_autocomplete(body, "topics")
    except RemoteAnswerInvalid:
        return
    assert len({s.id for s in found}) == len(found) <= 25
    for s in found:
        assert s.vocabulary == "openalex_topic" and s.id[0] == "T" and s.id[1:].isdigit()
        assert s.label and s.label == s.label.strip() and len(s.label) <= MAX_REMOTE_LABEL
        assert all(ch == " " or ch.isprintable() for ch in s.label + s.hint)
        assert "\n" not in s.label and "  " not in s.label


def _timed(body: Any) -> float:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    started = time.perf_counter()
    with contextlib.suppress(RemoteAnswerInvalid):
        parse_autocomplete(raw, "topics")
    return time.perf_counter() - started


def test_hostile_bodies_take_linear_time() -> None:
    long_label = {"results": [{"id": "T1", "display_name": "\u0000 a" * 1_000_000}]}
    many = {"results": [{"id": f"T{i}", "display_name": "x" * 100} for i in range(200_000)]}
    long_id = {"results": [{"id": "T" + "1" * 1_000_000, "display_name": "x"}]}
    for hostile in (long_label, many, long_id, b'{"results": [' + b"{}," * 500_000 + b"{}]}",
                    b'"' + b"\\u0000" * 500_000 + b'"'):  # fmt: skip
        assert _timed(hostile) < 2.0
    (kept,) = parse_autocomplete(json.dumps(long_label).encode(), "topics")
    assert MAX_REMOTE_LABEL - 1 <= len(kept.label) <= MAX_REMOTE_LABEL  # cut, then stripped
