"""``compile_lane``: the one "exact identifier lookup or search" decision per lane."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litdesk._errors import LitdeskError
from litdesk.core.query import (
    compile_lane,
    compile_lookup,
    compile_search,
    plan_identifier,
)
from litdesk.core.search import PROVIDERS, CompileRefused, SearchFilters

IDS = ["10.1038/s42256-024-00832-8", "PMC6398430", "W2741809807", "arXiv:2501.10120"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("text", IDS)
def test_an_exact_identifier_is_one_lookup_on_the_first_page(provider: str, text: str) -> None:
    exact = plan_identifier(text)
    assert exact is not None
    try:
        expected = compile_lookup(provider, exact.namespace, exact.value)
    except CompileRefused:
        with pytest.raises(CompileRefused):
            compile_lane(provider, text)
        return
    assert compile_lane(provider, text) == expected
    assert compile_lane(provider, text).operation == "lookup"


def test_a_cursor_or_a_field_means_search() -> None:
    doi = IDS[0]
    paged = compile_lane("crossref", doi, cursor="abc")
    assert paged.operation == "search"
    titled = compile_lane("crossref", doi, SearchFilters(field="title"))
    assert titled == compile_search("crossref", doi, SearchFilters(field="title"))


@given(st.text(max_size=60), st.sampled_from(PROVIDERS))
def test_same_answer_as_deciding_by_hand(text: str, provider: str) -> None:
    def by_hand() -> object:
        exact = plan_identifier(text)
        if exact is not None:
            return compile_lookup(provider, exact.namespace, exact.value)
        return compile_search(provider, text, SearchFilters())

    outcomes = []
    for fn in (by_hand, lambda: compile_lane(provider, text)):
        try:
            outcomes.append(fn())
        except LitdeskError as exc:
            outcomes.append((type(exc), exc.message))
    assert outcomes[0] == outcomes[1]
