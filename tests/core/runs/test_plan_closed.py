"""The search plan a run records is schema-closed: an unknown key is refused (a misspelt
``filter`` never silently widens a search); the legacy import profile is separate and
drops unknown keys with a notice naming each (issue 33, as the search-trace reference
requires)."""

from __future__ import annotations

import pytest

from litdesk.core.runs import RunInvalid, read_definition, read_legacy_definition

PLAN = {"query": "malaria", "mode": "keyword", "providers": ["europepmc"], "limit": 20}


def test_a_known_plan_reads() -> None:
    assert read_definition(PLAN).query == "malaria"


@pytest.mark.parametrize(
    "extra", [{"filter": {"year_from": 2020}}, {"provider": "pubmed"}, {"x": 1}]
)
def test_unknown_keys_are_refused(extra: dict[str, object]) -> None:
    with pytest.raises(RunInvalid, match="unknown keys"):
        read_definition(PLAN | extra)


def test_the_legacy_profile_drops_and_names_unknown_keys() -> None:
    definition, notices = read_legacy_definition(PLAN | {"filter": {}, "source": "other tool"})
    assert definition == read_definition(PLAN)
    assert notices == (
        "unknown key 'filter' dropped (legacy plan)",
        "unknown key 'source' dropped (legacy plan)",
    )
    with pytest.raises(RunInvalid):  # the known keys keep their rules
        read_legacy_definition(PLAN | {"mode": "fuzzy", "x": 1})
