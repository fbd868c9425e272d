"""The edge part of a provider declaration: its parser, pacing, credential, polite
parameters, body limits and allowance settings. Each provider module declares one
:class:`ProviderAdapter` (``ADAPTER``) referencing its core declaration
(:class:`~litdesk.core.providers.ProviderSpec`); the transport, the allowance meter and
the search service read these declarations and list no provider themselves."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qsl

from litdesk.core.providers import ProviderSpec
from litdesk.core.search import CompiledRequest, ProviderPage

__all__ = [
    "JSON_ACCEPT",
    "Credential",
    "FollowUpFn",
    "PageParseFn",
    "ProviderAdapter",
    "request_param",
]

#: The Accept header of a search or lookup unless a provider declares another.
JSON_ACCEPT: Final = "application/json"

#: A provider's parser for one 2xx answer to ``request``.
PageParseFn = Callable[[CompiledRequest, bytes], ProviderPage]
#: A second request completing a page (PubMed: efetch for the PMIDs esearch found).
FollowUpFn = Callable[[CompiledRequest, ProviderPage], "CompiledRequest | None"]


@dataclass(frozen=True, slots=True)
class Credential:
    """Where a provider's key comes from and how it is sent: the settings field holding
    it, and a query parameter or a header (``template`` formats the value)."""

    setting: str
    param: str | None = None
    header: str | None = None
    template: str = "{key}"


@dataclass(frozen=True, slots=True)
class ProviderAdapter:
    """One provider's edge declaration.

    ``parser`` is the (id, version) recorded in the trace and the evidence-cache key;
    ``parse`` reads a 2xx answer to a request and ``parse_body`` a saved body without its
    request. ``interval`` spaces request starts (``keyed_interval`` with a key configured;
    ``interval_from_headers`` re-times it from a response's headers). ``credential`` is
    added only at send time and only for this provider; ``key_required`` is the message
    when a key is needed and none is configured (nothing is sent). ``contact_param`` /
    ``fixed_params`` are the polite parameters; ``accept`` the Accept header of searches
    and lookups; ``body_limits`` raise the response cap per lane; ``lane_gaps`` keep a
    minimum gap (seconds) between calls of a lane across processes;
    ``daily_limit_setting`` names the settings field of the provider's global daily
    allowance (else the per-owner allowance applies to both)."""

    spec: ProviderSpec
    parser: tuple[str, str]
    parse: PageParseFn
    parse_body: Callable[[bytes], ProviderPage]
    interval: float
    keyed_interval: float | None = None
    interval_from_headers: Callable[[Mapping[str, str]], float | None] | None = None
    credential: Credential | None = None
    key_required: str | None = None
    contact_param: str | None = None
    fixed_params: tuple[tuple[str, str], ...] = ()
    accept: str = JSON_ACCEPT
    body_limits: tuple[tuple[str, int], ...] = ()
    lane_gaps: tuple[tuple[str, float], ...] = ()
    daily_limit_setting: str | None = None
    follow_up: FollowUpFn | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def polite_params(self, contact: str | None) -> list[tuple[str, str]]:
        """The parameters naming the tool and its contact, as the provider asks."""
        out = list(self.fixed_params)
        if self.contact_param is not None and contact:
            out.append((self.contact_param, contact))
        return out


def request_param(request: CompiledRequest, name: str) -> str | None:
    """The value of the request's parameter ``name`` (query string or form body)."""
    for key, value in request.params:
        if key == name:
            return value
    if request.body and request.method == "POST" and "=" in request.body:
        for key, value in parse_qsl(request.body):
            if key == name:
                return value
    return None
