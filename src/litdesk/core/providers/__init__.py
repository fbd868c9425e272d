"""The providers litdesk searches, each declared once (pure; standard library only, so
the CLI can name them without importing the query compilers).

* :class:`ProviderSpec` — a provider's name, display name, hosts, lanes (with the modes,
  fields, sorts and types each search lane expresses) and evidence-cache policy.
* :data:`PROVIDER_SPECS` — the registry; :data:`PROVIDERS`, :data:`HOSTS` and
  :data:`LANE_PROVIDER` are derived from it.
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._notices import lane_notice, status_words, wait_words
    from ._registry import (
        DECLARED,
        DEMO_PROVIDER,
        DISCOVERY_LANES,
        HOSTS,
        LANE_PROVIDER,
        MODE_DEFAULTS,
        PROVIDER_SPECS,
        PROVIDERS,
        DemoMixed,
        UnknownProvider,
        check_sources,
        display_name,
        known_provider,
        lane_label,
        provider_spec,
    )
    from ._spec import (
        CacheMode,
        CachePolicy,
        LaneKind,
        LaneSpec,
        ProviderName,
        ProviderSpec,
        ProviderTerms,
        SearchMode,
        UnknownLane,
    )

__all__ = [
    "DECLARED",
    "DEMO_PROVIDER",
    "DISCOVERY_LANES",
    "HOSTS",
    "LANE_PROVIDER",
    "MODE_DEFAULTS",
    "PROVIDERS",
    "PROVIDER_SPECS",
    "CacheMode",
    "CachePolicy",
    "DemoMixed",
    "LaneKind",
    "LaneSpec",
    "ProviderName",
    "ProviderSpec",
    "ProviderTerms",
    "SearchMode",
    "UnknownLane",
    "UnknownProvider",
    "check_sources",
    "known_provider",
    "display_name",
    "lane_label",
    "lane_notice",
    "provider_spec",
    "status_words",
    "wait_words",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
