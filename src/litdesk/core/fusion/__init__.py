"""Identity graph, merging and reciprocal rank fusion of search sightings."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._fuse import (
        PROVIDER_ORDER_VERSION,
        RANKING_VERSION,
        RRF_K,
        Contribution,
        Hit,
        Sighting,
        canonical_order,
        fuse,
        merge_records,
        provider_order,
    )
    from ._graph import (
        DEDUPLICATION_VERSION,
        NAMESPACE_LABELS,
        NAMESPACES,
        Conflict,
        ConflictKind,
        Group,
        component_labels,
        group_identities,
        group_keys,
        identity_keys,
    )

__all__ = [
    "DEDUPLICATION_VERSION",
    "NAMESPACES",
    "NAMESPACE_LABELS",
    "PROVIDER_ORDER_VERSION",
    "RANKING_VERSION",
    "RRF_K",
    "Conflict",
    "ConflictKind",
    "Contribution",
    "Group",
    "Hit",
    "Sighting",
    "canonical_order",
    "component_labels",
    "fuse",
    "group_identities",
    "group_keys",
    "identity_keys",
    "merge_records",
    "provider_order",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
