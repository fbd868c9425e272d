"""The search manifest (pure): a saved run's shareable record, validated fully on read.

``make_manifest`` keeps at most 150 hits (omitted hits are counted and disclosed), a
bibliography without abstracts and with the reference's field limits, the strategy as
run, limits and warnings. ``read_manifest`` revalidates everything from any source.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final

from litdesk.core.records import Paper

from ._run import RunInvalid, SearchRun, read_run

__all__ = [
    "MANIFEST_BYTES",
    "MANIFEST_HITS",
    "MANIFEST_VERSION",
    "Manifest",
    "bibliography",
    "make_manifest",
    "manifest_papers",
    "read_manifest",
]

MANIFEST_VERSION: Final = 1
MANIFEST_HITS: Final = 150
MANIFEST_BYTES: Final = 750_000
_TITLE = 1000
_AUTHORS = 12
_AUTHOR = 200
_JOURNAL = 300
_TYPES = 8

_LIMITS: Final = {
    "hits": MANIFEST_HITS,
    "bytes": MANIFEST_BYTES,
    "title_chars": _TITLE,
    "authors": _AUTHORS,
    "author_chars": _AUTHOR,
    "journal_chars": _JOURNAL,
    "publication_types": _TYPES,
}


def bibliography(paper: Paper) -> Paper:
    """The paper without abstract and with the manifest's field limits."""
    return paper.model_copy(
        update={
            "abstract": None,
            "abstract_source": None,
            "title": paper.title[:_TITLE],
            "authors": tuple(a[:_AUTHOR] for a in paper.authors[:_AUTHORS]),
            "journal": paper.journal[:_JOURNAL] if paper.journal else paper.journal,
            "publication_types": paper.publication_types[:_TYPES],
        }
    )


def _strategy(run: SearchRun) -> dict[str, Any]:
    return {
        "query": run.definition.query,
        "mode": run.definition.mode,
        "providers": list(run.definition.providers),
        "filters": run.definition.filters.to_dict(),
        "expansions": [e.to_dict() for e in run.definition.expansions],
        "executed": [
            {"lane": lane.lane, "provider": lane.provider, "executed_query": lane.executed_query}
            for lane in run.lanes
        ],
    }


def _warnings(run: SearchRun, omitted: int) -> list[str]:
    out: list[str] = []
    if omitted:
        out.append(
            f"{omitted} of {run.unique_retrieved} hits are omitted "
            f"(a manifest keeps the first {MANIFEST_HITS})"
        )
    for lane in run.lanes:
        if lane.status != "ok":
            out.append(
                f"{lane.lane}: {lane.status}" + (f" ({lane.message})" if lane.message else "")
            )
        out.extend(f"{lane.lane}: {w}" for w in lane.warnings)
    if run.coverage == "bounded-discovery":
        out.append(
            f"bounded discovery: at most {run.candidate_limit} candidates; provider totals are "
            "shown separately and never added"
        )
    conflicted = sum(1 for h in run.hits if h.conflicts)
    if conflicted:
        out.append(f"{conflicted} hits have conflicting identifiers (excluded from RIS)")
    return out


def make_manifest(run: SearchRun) -> dict[str, Any]:
    """The manifest document of ``run`` (JSON-ready)."""
    kept = run.hits[:MANIFEST_HITS]
    omitted = len(run.hits) - len(kept)
    slim = replace(
        run,
        hits=tuple(replace(h, paper=bibliography(h.paper), field_sources={}) for h in kept),
    )
    body = slim.to_dict()
    body["omitted_hits"] = omitted
    return {
        "version": MANIFEST_VERSION,
        "kind": "literature-search",
        "strategy": _strategy(run),
        "run": body,
        "limits": dict(_LIMITS),
        "warnings": _warnings(run, omitted),
    }


@dataclass(frozen=True, slots=True)
class Manifest:
    run: SearchRun
    omitted_hits: int
    strategy: dict[str, Any]
    warnings: tuple[str, ...]


def _fail(message: str) -> RunInvalid:
    return RunInvalid(message[:300], code="manifest_invalid")


def read_manifest(data: bytes | str) -> Manifest:
    """Validate a manifest from storage, a file or a recovery: size cap, shape, lanes,
    statuses, provider/lane pairing, at least one successful lane, contributions only
    from successful lanes, identifier consistency, and the hit count arithmetic."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if not isinstance(raw, bytes) or len(raw) > MANIFEST_BYTES:
        raise RunInvalid(
            f"a manifest is at most {MANIFEST_BYTES:,} bytes", code="manifest_too_large"
        )
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        raise _fail("a manifest must be valid UTF-8 JSON") from None
    if not isinstance(doc, dict):
        raise _fail("a manifest must be a JSON object")
    if doc.get("version") != MANIFEST_VERSION or doc.get("kind") != "literature-search":
        raise _fail("not a version 1 literature-search manifest")
    body = doc.get("run")
    if not isinstance(body, dict):
        raise _fail("a manifest needs a run")
    omitted = body.get("omitted_hits", 0)
    if isinstance(omitted, bool) or not isinstance(omitted, int) or omitted < 0:
        raise _fail("omitted_hits must be a non-negative integer")
    run_data = {k: v for k, v in body.items() if k not in ("omitted_hits", "source")}
    run = read_run(run_data, max_hits=MANIFEST_HITS)
    if run.unique_retrieved != len(run.hits) + omitted:
        raise _fail("unique_retrieved must equal stored plus omitted hits")
    for index, hit in enumerate(run.hits):
        if hit.paper.abstract is not None or hit.paper.abstract_source is not None:
            raise _fail(f"hits[{index}]: a manifest holds no abstracts")
    strategy = doc.get("strategy")
    if not isinstance(strategy, dict) or strategy.get("query") != run.definition.query:
        raise _fail("the strategy must match the run definition")
    executed = strategy.get("executed")
    if not isinstance(executed, list) or len(executed) != len(run.lanes):
        raise _fail("the strategy must list every lane as executed")
    for item, lane in zip(executed, run.lanes, strict=True):
        if not isinstance(item, dict) or (item.get("lane"), item.get("executed_query")) != (
            lane.lane,
            lane.executed_query,
        ):
            raise _fail(f"the strategy does not match lane {lane.lane}")
    warnings = doc.get("warnings", [])
    if not isinstance(warnings, list) or len(warnings) > 200:
        raise _fail("warnings must be a list")
    if any(not isinstance(w, str) or len(w) > 4000 for w in warnings):
        raise _fail("each warning must be text")
    return Manifest(run, omitted, dict(strategy), tuple(warnings))


def manifest_papers(manifest: Manifest) -> list[Paper]:
    """The papers a RIS export holds: every stored hit without conflicting identifiers."""
    return [h.paper for h in manifest.run.hits if not h.conflicts]
