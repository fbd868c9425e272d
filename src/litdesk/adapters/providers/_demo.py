"""The demo sample (offline) at the edge: the JSON the demo workspace's own transport
answers (:mod:`litdesk.adapters.demo`) parsed into papers. Nothing here reaches a network:
the demo host is ``.invalid`` and only the demo workspace's transport answers it."""

from __future__ import annotations

from typing import Any, Final

from litdesk.core.providers import provider_spec
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import ProviderAdapter
from ._common import (
    Builder,
    ProviderParseError,
    as_dict,
    as_int,
    as_list,
    as_str,
    guarded,
    load_json,
)

__all__ = ["ADAPTER", "PARSER", "SPEC", "demo_fields", "parse_demo"]

SPEC: Final = provider_spec("demo")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.demo", "1")


def demo_fields(item: dict[str, Any]) -> dict[str, Any]:
    """Paper fields of one sample record as the demo host sends it."""
    work = as_str(item.get("id"))
    return {
        "openalex_id": work,
        "doi": as_str(item.get("doi")),
        "pmid": as_str(item.get("pmid")),
        "title": as_str(item.get("title")) or "",
        "abstract": as_str(item.get("abstract")),
        "authors": tuple(a for a in as_list(item.get("authors")) if isinstance(a, str)),
        "journal": as_str(item.get("journal")),
        "year": as_int(item.get("year")),
        "source_url": f"https://openalex.org/{work}" if work else None,
        "licence": "CC0 1.0 (demo sample)",
        "provider": SPEC.display_name,
    }


def parse_demo(body: bytes) -> ProviderPage:
    return guarded(PROVIDER, _parse, body)


def _parse(body: bytes) -> ProviderPage:
    data = as_dict(load_json(PROVIDER, body))
    if "results" not in data:
        raise ProviderParseError(PROVIDER, "no results in the answer", body)
    total = as_int(data.get("total"))
    start = as_int(data.get("start")) or 0
    items = as_list(data.get("results"))
    b = Builder(PROVIDER)
    for n, item in enumerate(items):
        b.add(demo_fields(as_dict(item)), fallback=f"demo-{start + n}")
    end = start + len(items)
    cursor = str(end) if items and total is not None and end < total else None
    return b.page(total=total, next_cursor=cursor)


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    return parse_demo(body)


#: the demo sample at the edge: answered in-process, no pacing, no key
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_demo,
    interval=0.0,
)
