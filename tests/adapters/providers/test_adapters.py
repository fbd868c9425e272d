"""One adapter declaration per provider (litdesk.adapters.providers.ADAPTERS): it references
its core declaration, names real settings, declares lanes its provider has, and the
transport, pacing and search kit read it (values as they were before the declarations)."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from litdesk._settings import Settings
from litdesk.adapters.http import DEFAULT_INTERVALS
from litdesk.adapters.http._transport import _DECLARED_BODY_LIMITS, _accept
from litdesk.adapters.providers import ADAPTERS, PARSERS, ProviderParseError, adapter_for
from litdesk.core.providers import DECLARED, PROVIDER_SPECS
from litdesk.core.query import compile_search, fulltext_request


def test_one_adapter_per_declared_provider():
    assert tuple(ADAPTERS) == DECLARED  # the six databases and the offline demo sample
    for name, adapter in ADAPTERS.items():
        assert adapter.spec is PROVIDER_SPECS[name]
        assert PARSERS[name] == adapter.parser == (f"litdesk.providers.{name}", "1")
    with pytest.raises(ProviderParseError):
        adapter_for("scopus")


def test_declared_settings_and_lanes_exist():
    fields = Settings.model_fields
    for name, adapter in ADAPTERS.items():
        lanes = {lane.name for lane in adapter.spec.lanes}
        if adapter.credential is not None:
            assert adapter.credential.setting in fields, name
            assert (adapter.credential.param is None) != (adapter.credential.header is None)
        if adapter.daily_limit_setting is not None:
            assert adapter.daily_limit_setting in fields, name
        assert {lane for lane, _ in adapter.body_limits} <= lanes, name
        assert {lane for lane, _ in adapter.lane_gaps} <= lanes, name


def test_transport_reads_the_declarations():
    assert dict(DEFAULT_INTERVALS) == pytest.approx(
        {
            "europepmc": 0.1,
            "openalex": 0.1,
            "semanticscholar": 1.0,
            "crossref": 1 / 50,
            "pubmed": 1 / 3,
            "arxiv": 3.0,
            "demo": 0.0,  # answered in-process: nothing to pace
        }
    )
    assert _DECLARED_BODY_LIMITS == {"fulltext": 4_000_000}
    assert {n for n, a in ADAPTERS.items() if a.key_required} == {"openalex"}
    assert {n: a.credential.setting for n, a in ADAPTERS.items() if a.credential} == {
        "openalex": "openalex_api_key",
        "semanticscholar": "semantic_scholar_api_key",
        "crossref": "crossref_plus_token",
        "pubmed": "ncbi_api_key",
    }
    polite = {n: a.polite_params("me@example.org") for n, a in ADAPTERS.items()}
    assert polite == {
        "europepmc": [],
        "openalex": [("mailto", "me@example.org")],
        "semanticscholar": [],
        "crossref": [("mailto", "me@example.org")],
        "pubmed": [("tool", "litdesk"), ("email", "me@example.org")],
        "arxiv": [],
        "demo": [],
    }
    assert ADAPTERS["pubmed"].polite_params(None) == [("tool", "litdesk")]
    assert _accept(compile_search("arxiv", "malaria")).startswith("application/atom+xml")
    assert _accept(compile_search("europepmc", "malaria")) == "application/json"
    assert _accept(fulltext_request("PMC1")).startswith("application/xml")


def test_settings_credential_values_are_secret():
    settings = Settings(openalex_api_key=SecretStr("k"))
    assert isinstance(getattr(settings, ADAPTERS["openalex"].credential.setting), SecretStr)
