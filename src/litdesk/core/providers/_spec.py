"""The shape of a provider declaration (pure, standard library only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from litdesk._errors import LitdeskError

__all__ = [
    "CacheMode",
    "CachePolicy",
    "LaneKind",
    "LaneSpec",
    "ProviderName",
    "ProviderSpec",
    "ProviderTerms",
    "SearchMode",
    "UnknownLane",
]

#: The providers, as a type (the registry checks it names exactly the declared providers).
#: ``demo`` is the offline demo sample: declared here, offered only in the demo workspace.
ProviderName = Literal[
    "europepmc", "openalex", "semanticscholar", "crossref", "pubmed", "arxiv", "demo"
]
#: ``search``/``lookup`` lanes are run lanes (recorded in search runs); ``fetch`` completes
#: a search page (PubMed efetch); ``reading`` lanes serve full text and citations.
LaneKind = Literal["search", "lookup", "fetch", "reading"]
SearchMode = Literal["keyword", "semantic"]
CacheMode = Literal["body", "digest", "deny"]


class UnknownLane(LitdeskError):
    """A provider declaration has no lane with that role (a programming error)."""

    default_code = "unknown_lane"


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """How the provider evidence cache may keep this provider's 200 answers."""

    mode: CacheMode
    ttl: timedelta | None
    reason: str


@dataclass(frozen=True, slots=True)
class LaneSpec:
    """One lane of a provider: its role inside the provider (``keyword``, ``lookup``, …),
    its name as recorded in traces and runs, and — for search lanes — the search mode it
    serves and the fields, sorts and types its compiler can express exactly."""

    role: str
    name: str
    kind: LaneKind
    mode: SearchMode | None = None
    fields: tuple[str, ...] = ()
    sorts: tuple[str, ...] = ()
    types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProviderTerms:
    """A provider's terms as litdesk read them: the terms page, the licence of the data it
    returns (metadata; abstracts and full text keep their own), and the date they were read."""

    url: str
    data_licence: str
    read: str  # ISO date

    def to_dict(self) -> dict[str, str]:
        return {"url": self.url, "data_licence": self.data_licence, "read": self.read}


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """The pure part of one provider: names, hosts, lanes and evidence-cache policy.

    The query compiler of the provider is ``litdesk.core.query._<name>`` (it builds its
    URLs and lane names from this declaration); the edge part (parser, pacing,
    credentials, body limits) is the provider's adapter declaration in
    ``litdesk.adapters.providers``."""

    name: ProviderName
    display_name: str
    hosts: frozenset[str]
    lanes: tuple[LaneSpec, ...]
    cache: CachePolicy
    terms: ProviderTerms | None = None
    #: True for the demo sample (answered offline from bundled records): never one of
    #: :data:`~litdesk.core.providers.PROVIDERS`, usable only in the demo workspace.
    demo: bool = False

    def lane(self, role: str) -> str:
        """The name of the lane with ``role``."""
        for lane in self.lanes:
            if lane.role == role:
                return lane.name
        raise UnknownLane(f"{self.name} has no {role!r} lane", provider=self.name, role=role)

    def url(self, path: str) -> str:
        """``https://<the provider's host><path>`` (``path`` starts with ``/``)."""
        if len(self.hosts) != 1 or not path.startswith("/"):
            raise UnknownLane(f"{self.name}: no single host for {path!r}", provider=self.name)
        (host,) = self.hosts
        return f"https://{host}{path}"

    @property
    def run_lanes(self) -> tuple[LaneSpec, ...]:
        """The lanes a search run may hold (searches and exact lookups)."""
        return tuple(lane for lane in self.lanes if lane.kind in ("search", "lookup"))

    def search_lanes(self, mode: SearchMode | None = None) -> tuple[LaneSpec, ...]:
        """The search lanes (of ``mode`` when given), in declaration order."""
        return tuple(
            lane
            for lane in self.lanes
            if lane.kind == "search" and (mode is None or lane.mode == mode)
        )
