"""Shared pieces for the fused-search tests: hand-made provider bodies and a service
over ``httpx.MockTransport`` (the providers cannot be reached here)."""

from __future__ import annotations

import json

import httpx

from litdesk.adapters.http import Pacer, ProviderTransport, StoreMeter
from litdesk.core.search import PROVIDERS
from litdesk.services.search import FusedSearch, SearchService

EPMC = {
    "version": "6.9",
    "hitCount": 2,
    "nextCursorMark": "AoE",
    "request": {},
    "resultList": {
        "result": [
            {
                "id": "111",
                "source": "MED",
                "pmid": "111",
                "doi": "10.1000/a",
                "title": "Malaria A",
                "authorString": "Smith J.",
                "pubYear": "2020",
                "journalTitle": "J",
            },
            {"id": "222", "source": "MED", "pmid": "222", "title": "Malaria B", "pubYear": "2021"},
        ]
    },
}
OPENALEX = {
    "meta": {"count": 2, "next_cursor": None},
    "results": [
        {
            "id": "https://openalex.org/W1",
            "doi": "https://doi.org/10.1000/a",
            "title": "Malaria A",
            "publication_year": 2020,
            "ids": {
                "openalex": "https://openalex.org/W1",
                "pmid": "https://pubmed.ncbi.nlm.nih.gov/111",
            },
        },
        {"id": "https://openalex.org/W9", "title": "Malaria Z", "publication_year": 2019},
    ],
}


def body_for(request: httpx.Request) -> bytes:
    if request.url.host == "www.ebi.ac.uk":
        return json.dumps(EPMC).encode()
    return json.dumps(OPENALEX).encode()


def fused(settings, store, handler, *, owner="local", meter=None, **kw):
    transport = ProviderTransport(
        settings,
        transport=httpx.MockTransport(handler),
        pacer=Pacer({p: 0.0 for p in PROVIDERS}),
        meter=meter or StoreMeter(store, settings, owner=owner),
    )
    return transport, FusedSearch(SearchService(settings, transport), store, owner=owner, **kw)
