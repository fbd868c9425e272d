"""The search-evaluation case set and ``litdesk runs cases|bench`` + ``litdesk eval`` on
replayed runs: the identifier cases are answered from the real Europe PMC records they
name ($LITDESK_FIXTURES, read at run time), nothing is sent."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.core.runs import BENCHMARK_CASES, BENCHMARK_SOURCE, benchmark_cases
from litdesk.faces.cli import app
from litdesk.services.search import make_definition, plan_search

pytestmark = pytest.mark.fixtures


def test_the_case_set_has_the_reference_shape() -> None:
    buckets = Counter(c.bucket for c in BENCHMARK_CASES)
    assert list(buckets.items()) == [
        ("identifier", 10),
        ("synonym", 10),
        ("multi-concept", 10),
        ("question", 10),
        ("boolean", 8),
        ("typo-symbol", 6),
        ("edge", 6),
    ]
    assert len(benchmark_cases("holdout")) == 18 and len(benchmark_cases("development")) == 42
    for bucket in buckets:
        ours = [c for c in BENCHMARK_CASES if c.bucket == bucket]
        assert [c.holdout for c in ours] == [i % 3 == 2 for i in range(len(ours))]
    assert sum(1 for c in BENCHMARK_CASES if c.expect_error) == 5
    assert len({c.id for c in BENCHMARK_CASES}) == 60


def _records(fixtures_dir):
    data = json.loads((fixtures_dir / BENCHMARK_SOURCE).read_text(encoding="utf-8"))
    return data, data["resultList"]["result"]


def _owns(record: dict, key: str) -> bool:
    ns, _, value = key.partition(":")
    return str(record.get(ns, "")).lower() == value.lower()


def test_identifier_cases_name_real_records(fixtures_dir) -> None:
    _, records = _records(fixtures_dir)
    for case in (c for c in BENCHMARK_CASES if c.bucket == "identifier"):
        (known,) = case.known_items
        (record,) = [r for r in records if _owns(r, known)]
        # the query names the same record by another of its identifiers
        ids = [str(record.get(k, "")).lower() for k in ("doi", "pmid", "pmcid")]
        assert any(i and i in case.query.lower() for i in ids), case.id


def _record(folder, query: str, body: bytes) -> int:
    recorder = CassetteRecorder(folder)
    lanes = plan_search(make_definition(query)).lanes
    for lane in lanes:
        req = lane.request
        recorder.record(
            Exchange(
                provider=req.provider,
                method=req.method,
                url=sanitised_url(req),
                request_body=req.body,
                status=200,
                headers={"content-type": "application/json"},
                body=body,
                received_at=datetime(2026, 12, 5, tzinfo=UTC),
            ),
            Redactor(),
        )
    return len(lanes)


@pytest.fixture
def env(tmp_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_bench_on_replayed_runs_reports_recall_latency_and_calls(env, fixtures_dir) -> None:
    envelope, records = _records(fixtures_dir)
    cassette = env / "cas"
    identifier = [c for c in BENCHMARK_CASES if c.bucket == "identifier"]
    for case in identifier:
        (record,) = [r for r in records if _owns(r, case.known_items[0])]
        body = {**envelope, "hitCount": 1, "resultList": {"result": [record]}}
        body.pop("nextCursorMark", None)
        _record(cassette, case.query, json.dumps(body).encode())
    empty = (fixtures_dir / "providers/europepmc/search-no-results.json").read_bytes()
    _record(cassette, "asdkfjhasdkfjhasdfasdasdasdfgsagsd", empty)

    runner = CliRunner()
    runs_file, judgments = env / "runs.json", env / "judgments.json"
    cases = runner.invoke(app, ["runs", "cases", "--judgments", str(judgments), "--json"])
    assert cases.exit_code == 0, cases.output
    assert len(json.loads(cases.stdout)["cases"]) == 60
    result = runner.invoke(
        app, ["runs", "bench", "--split", "all", "--replay", str(cassette), "-o", str(runs_file)]
    )
    assert result.exit_code == 0, result.output
    runs = {r["case"]: r for r in json.loads(runs_file.read_text())["runs"]}
    assert len(runs) == 60
    for case in identifier:
        run = runs[case.id]
        assert run["provider_calls"] == 1 and run["lanes"] == [
            {"lane": "europepmc-keyword", "status": "ok"}
        ]
        assert case.known_items[0] in run["hits"][0]["keys"], case.id
    assert runs["edge-03"]["hits"] == [] and runs["edge-03"]["lanes"][0]["status"] == "ok"
    for c in BENCHMARK_CASES:
        assert runs[c.id]["split"] == c.split and runs[c.id]["latency_ms"] >= 0
        if c.expect_error:  # refused before any provider call
            assert runs[c.id]["error"] == c.expect_error and runs[c.id]["provider_calls"] == 0
    # a case with nothing recorded asked the cassette (one call per lane) and failed: no network
    synonym = runs["synonym-01"]
    assert synonym["provider_calls"] == 1 and synonym["error"] == "cassette_miss"

    report = runner.invoke(
        app, ["eval", "--runs", str(runs_file), "--judgments", str(judgments), "--json"]
    )
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    recall = data["summary"]["known_item_recall_at_k"]
    assert recall == {"mean": 1.0, "covered": 10, "of": 60}
    ops = data["operations"]
    assert ops["expected_errors"] == {"met": 5, "of": 5}
    assert ops["unexpected_errors"] == 60 - 10 - 1 - 5  # the cases nothing was recorded for
    assert ops["splits"] == {"development": 42, "holdout": 18}
    assert ops["latency_ms"]["covered"] == 60 and ops["latency_ms"]["p50"] is not None
    assert ops["provider_calls"]["total"] == sum(r["provider_calls"] for r in runs.values())
    assert ops["provider_calls"]["total"] > 10

    table = runner.invoke(app, ["eval", "--runs", str(runs_file), "--judgments", str(judgments)])
    assert table.exit_code == 0 and "provider calls" in table.stdout
    again = runner.invoke(app, ["runs", "bench", "--replay", str(cassette), "-o", str(runs_file)])
    assert again.exit_code != 0  # never overwritten without --force
    bad = runner.invoke(app, ["runs", "bench", "--split", "tuned", "-o", str(env / "x.json")])
    assert bad.exit_code == 2 and "split" in bad.output
