"""Test kit: OpenAlex autocomplete answers (its wire format) recorded into a web test's
cassette, so the server's remote subject suggestions replay them (nothing is sent)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.core.vocab import autocomplete_request

__all__ = ["TOPICS", "autocomplete_body", "record_autocomplete"]

#: What the recorded answers hold (the first is also a MeSH heading: left out as a repeat).
TOPICS = (
    "Malaria Vaccines",
    "Malaria Vaccine Development and Trials",
    "Plasmodium falciparum immunity",
)


def autocomplete_body(*labels: str, first_id: int = 10_000) -> bytes:
    results = [
        {
            "id": f"https://openalex.org/T{first_id + i}",
            "display_name": label,
            "hint": "This cluster of papers studies malaria vaccines: antigen choice, adjuvants, trials in endemic regions and the immune responses they raise.",
            "cited_by_count": 5_000 - i,
            "works_count": 800 - i,
            "entity_type": "topic",
            "external_id": None,
            "filter_key": "topics.id",
        }
        for i, label in enumerate(labels)
    ]
    meta = {"count": len(results), "db_response_time_ms": 3, "page": 1, "per_page": 10}
    return json.dumps({"meta": meta, "results": results}).encode()


def record_autocomplete(folder: Path, term: str, body: bytes, *, status: int = 200) -> None:
    """Record ``body`` as OpenAlex's answer to autocompleting ``term`` (topics)."""
    request = autocomplete_request("topics", term)
    CassetteRecorder(folder).record(
        Exchange(
            provider="openalex",
            method="GET",
            url=sanitised_url(request),
            request_body=None,
            status=status,
            headers={"content-type": "application/json"},
            body=body,
            received_at=datetime(2026, 12, 1, tzinfo=UTC),
        ),
        Redactor(),
    )
