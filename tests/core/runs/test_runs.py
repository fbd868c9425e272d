"""SearchRun, reuse and the manifest: shape, limits, and validation attacks on read."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runs_helpers import discovery_run, paper

from litdesk.core.fusion import Sighting, fuse
from litdesk.core.runs import (
    MANIFEST_BYTES,
    LaneResult,
    RunDefinition,
    RunInvalid,
    build_run,
    make_manifest,
    manifest_papers,
    read_manifest,
    read_run,
    reuse_run,
)


def test_run_shape_and_round_trip():
    run = discovery_run()
    assert run.source == "Combined" and not run.succeeded
    assert run.unique_retrieved == 3 == len(run.hits)
    assert run.total == 3 and run.next_cursor is None
    top = run.hits[0]
    assert {c.lane for c in top.contributions} == {"europepmc-keyword", "openalex-keyword"}
    assert read_run(json.loads(json.dumps(run.to_dict()))) == run


def test_reuse_keeps_retrieval_time_and_points_back():
    run = discovery_run()
    copy = reuse_run(run, "cache", new_id="run2", executed_at="2026-11-30T10:03:00+00:00")
    assert copy.id == "run2" and copy.reused_from == "run1" and copy.reuse == "cache"
    assert copy.retrieved_at == run.retrieved_at and copy.executed_at != run.executed_at
    assert copy.hits == run.hits
    again = reuse_run(copy, "coalesced", new_id="run3", executed_at="x")
    assert again.reused_from == "run1"
    assert read_run(copy.to_dict()) == copy


def test_manifest_limits_omitted_and_no_abstracts():
    run = discovery_run(160, 0)
    doc = make_manifest(run)
    assert len(doc["run"]["hits"]) == 150 and doc["run"]["omitted_hits"] == 10
    assert any("10 of 160 hits are omitted" in w for w in doc["warnings"])
    assert all(h["paper"]["abstract"] is None for h in doc["run"]["hits"])
    m = read_manifest(json.dumps(doc))
    assert m.omitted_hits == 10 and len(m.run.hits) == 150
    assert m.strategy["executed"][0]["executed_query"] == '"malaria"'


def test_manifest_field_limits():
    long = paper(
        pmid="5",
        title="T" * 1500,
        authors=tuple(f"Author {i} " + "x" * 250 for i in range(20)),
        journal="J" * 299,
        publication_types=tuple(f"type {i}" for i in range(12)),
    )
    run = build_run(
        run_id="r",
        definition=RunDefinition("q", "keyword", ("europepmc",)),
        lanes=[LaneResult("europepmc-keyword", "europepmc", "ok", "q", 1, 1)],
        hits=fuse([Sighting("europepmc-keyword", "europepmc", 1, long)]),
        coverage="provider-order",
        candidate_limit=20,
        retrieved_at="2026-11-30T10:00:00+00:00",
    )
    p = make_manifest(run)["run"]["hits"][0]["paper"]
    assert len(p["title"]) == 1000 and len(p["authors"]) == 12
    assert all(len(a) <= 200 for a in p["authors"]) and len(p["publication_types"]) == 8


def test_ris_export_excludes_conflicted_hits():
    run = discovery_run(conflict=True)
    assert any(h.conflicts for h in run.hits)
    m = read_manifest(json.dumps(make_manifest(run)))
    kept = manifest_papers(m)
    assert len(kept) == len(run.hits) - sum(1 for h in run.hits if h.conflicts)
    assert all(p.id != "MED-100" for p in kept)


def _doc():
    return make_manifest(discovery_run())


def _attack(mutate):
    doc = _doc()
    mutate(doc)
    with pytest.raises(RunInvalid):
        read_manifest(json.dumps(doc))


def test_oversized_manifest_is_refused():
    doc = _doc()
    doc["warnings"] = ["x" * 1000] * 800
    with pytest.raises(RunInvalid) as caught:
        read_manifest(json.dumps(doc))
    assert caught.value.code == "manifest_too_large"
    assert len(json.dumps(doc)) > MANIFEST_BYTES


def test_unknown_lane_and_status_and_pairing_are_refused():
    _attack(lambda d: d["run"]["lanes"][0].update(lane="google-scholar"))
    _attack(lambda d: d["run"]["lanes"][0].update(status="great"))
    _attack(lambda d: d["run"]["lanes"][0].update(provider="openalex"))  # europepmc lane


def test_no_successful_lane_is_refused():
    def all_fail(d):
        for lane in d["run"]["lanes"]:
            lane["status"] = "timeout"

    _attack(all_fail)


def test_forged_contribution_is_refused():
    # a contribution from the lane that failed (rate_limited)
    _attack(
        lambda d: d["run"]["hits"][0]["contributions"].append(
            {"lane": "openalex-semantic", "provider": "openalex", "rank": 1}
        )
    )
    # a contribution from a lane not in the run
    _attack(
        lambda d: d["run"]["hits"][0]["contributions"].append(
            {"lane": "crossref-keyword", "provider": "crossref", "rank": 1}
        )
    )


def test_inconsistent_identifiers_are_refused():
    # the primary id says PMID 100 while the pmid field says 999, no conflict flagged
    def forge(d):
        d["run"]["hits"][0]["paper"]["id"] = "MED-100"
        d["run"]["hits"][0]["paper"]["pmid"] = "999"

    _attack(forge)
    _attack(lambda d: d["run"]["hits"][0]["paper"].update(doi="not a doi"))


def test_count_arithmetic_and_abstracts_and_strategy_are_checked():
    _attack(lambda d: d["run"].update(unique_retrieved=99))
    _attack(lambda d: d["run"]["hits"][0]["paper"].update(abstract="smuggled"))
    _attack(lambda d: d["strategy"].update(query="something else"))
    _attack(lambda d: d["strategy"]["executed"][0].update(executed_query="forged"))


def test_garbage_never_crashes():
    for raw in (b"", b"\xff\xfe", b"[]", b"null", b'{"version":1}', b"[" * 100_000):
        with pytest.raises(RunInvalid):
            read_manifest(raw)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_epmc=st.integers(0, 8),
    n_oax=st.integers(1, 8),
    conflict=st.booleans(),
)
def test_manifest_round_trip_property(n_epmc, n_oax, conflict):
    run = discovery_run(n_epmc, n_oax, conflict=conflict)
    doc = make_manifest(run)
    m = read_manifest(json.dumps(doc).encode())
    assert [h.paper.id for h in m.run.hits] == [h.paper.id for h in run.hits]
    assert [h.contributions for h in m.run.hits] == [h.contributions for h in run.hits]
    assert m.run.unique_retrieved == run.unique_retrieved
    assert make_manifest(m.run) == doc


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=20,
    )
)
def test_arbitrary_json_never_crashes(value):
    doc = _doc()
    doc["run"]["hits"][0]["paper"] = value if not isinstance(value, dict) else {**value}
    with pytest.raises(RunInvalid):  # never a crash, never accepted as a paper
        read_manifest(json.dumps(doc))


def test_replace_run_keeps_validation():
    run = discovery_run()
    bad = replace(run, unique_retrieved=run.unique_retrieved + 1)
    with pytest.raises(RunInvalid):
        read_manifest(json.dumps(make_manifest(bad)))


def test_unknown_run_keys_are_refused():
    _attack(lambda d: d["run"].update(smuggled=True))
