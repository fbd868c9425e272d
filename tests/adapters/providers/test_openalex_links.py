"""OpenAlex citation links (one work's ``referenced_works`` / ``related_works``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litdesk.adapters.providers import ProviderParseError, parse_openalex_links


def test_links_are_canonical_distinct_and_capped() -> None:
    body = json.dumps(
        {
            "id": "https://openalex.org/W1",
            "display_name": "  A   title ",
            "referenced_works": [
                "https://openalex.org/W2",
                "https://openalex.org/W2",
                "not an id",
                7,
                "https://openalex.org/W3",
                "https://openalex.org/W4",
            ],
            "related_works": ["https://openalex.org/W9"],
        }
    ).encode()
    links = parse_openalex_links(body, max_ids=2)
    assert links.work == "W1" and links.title == "A title"
    assert links.referenced == ("W2", "W3") and links.truncated
    assert links.related == ("W9",)
    assert parse_openalex_links(body).referenced == ("W2", "W3", "W4")


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"[]", "not an object"), (b'{"title": "x"}', "without a work id"), (b"{", "not JSON")],
)
def test_unreadable_answers_are_typed(body: bytes, reason: str) -> None:
    with pytest.raises(ProviderParseError, match=reason) as caught:
        parse_openalex_links(body)
    assert caught.value.digest is not None


@given(st.binary(max_size=400))
def test_garbage_never_crashes(body: bytes) -> None:
    try:
        links = parse_openalex_links(body)
    except ProviderParseError:
        return
    assert links.work.startswith("W")
