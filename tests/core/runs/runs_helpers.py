"""Hand-made runs for the core.runs tests."""

from __future__ import annotations

from litdesk.core.fusion import Sighting, fuse
from litdesk.core.records import make_paper
from litdesk.core.runs import LaneResult, RunDefinition, build_run


def paper(**kw):
    kw.setdefault("title", "A paper")
    return make_paper(**kw)


def discovery_run(n_epmc: int = 3, n_oax: int = 3, *, conflict: bool = False, run_id="run1"):
    epmc = [
        paper(pmid=str(100 + i), doi=f"10.1000/p{i}", title=f"Paper {i}", abstract="Long text")
        for i in range(n_epmc)
    ]
    oax = [
        paper(openalex_id=f"W{900 + i}", doi=f"10.1000/p{i}", title=f"Paper {i}")
        for i in range(n_oax)
    ]
    if conflict:
        # same PMID as p0 but another DOI: a contradiction fusion must flag
        oax.append(paper(pmid="100", doi="10.1000/other", title="Paper 0 (other DOI)"))
    sightings = [Sighting("europepmc-keyword", "europepmc", r, p) for r, p in enumerate(epmc, 1)]
    sightings += [Sighting("openalex-keyword", "openalex", r, p) for r, p in enumerate(oax, 1)]
    lanes = [
        LaneResult("europepmc-keyword", "europepmc", "ok", '"malaria"', len(epmc), 1234),
        LaneResult("openalex-keyword", "openalex", "ok", "malaria", len(oax), 999),
        LaneResult("openalex-semantic", "openalex", "rate_limited", "", 0, message="gap"),
    ]
    return build_run(
        run_id=run_id,
        definition=RunDefinition("malaria", "discovery", ("europepmc", "openalex")),
        lanes=lanes,
        hits=fuse(sightings),
        coverage="bounded-discovery",
        candidate_limit=150,
        retrieved_at="2026-11-30T10:00:00+00:00",
    )
