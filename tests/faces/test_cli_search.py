"""``litdesk search`` end to end: options → service → replayed cassette → output."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.core.search import SearchFilters
from litdesk.faces.cli import app
from litdesk.services.search import default_kit

# hand-made Crossref and arXiv answers (tiny, one edge each)
CROSSREF = json.dumps(
    {
        "status": "ok",
        "message-type": "work-list",
        "message": {
            "total-results": 2,
            "items": [
                {
                    "DOI": "10.1000/xyz123",
                    "title": ["Deep learning for sepsis"],
                    "author": [{"family": "Okafor", "given": "Ada"}],
                    "issued": {"date-parts": [[2021]]},
                    "type": "journal-article",
                },
                {"DOI": "10.1000/abc456", "title": ["Second paper"], "type": "journal-article"},
            ],
        },
    }
).encode()


@pytest.fixture
def env(tmp_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def _cassette(folder: Path, answers: dict[str, tuple[int, bytes]], query: str = "sepsis") -> None:
    kit = default_kit()
    recorder = CassetteRecorder(folder)
    for provider, (status, body) in answers.items():
        req = kit.compile(provider, query, SearchFilters(), 20, None)
        recorder.record(
            Exchange(
                provider=provider,
                method=req.method,
                url=sanitised_url(req),
                request_body=req.body,
                status=status,
                headers={"retry-after": "30"} if status == 429 else {},
                body=body,
                received_at=datetime(2026, 11, 30, tzinfo=UTC),
            ),
            Redactor(),
        )


def test_search_replay_table_and_lane_status(env):
    folder = env / "cas"
    _cassette(
        folder, {"crossref": (200, CROSSREF), "semanticscholar": (429, b'{"message":"slow"}')}
    )
    result = CliRunner().invoke(
        app,
        ["search", "sepsis", "--trace", "-p", "crossref,semanticscholar", "--replay", str(folder)],
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Deep learning for sepsis" in out and "Okafor" in out and "2021" in out
    assert "doi:10.1000/xyz123" in out
    assert "rate_limited" in out and "retry after 30 s" in out
    assert "not deduplicated" in out


def test_search_json_is_the_full_trace(env):
    folder = env / "cas"
    _cassette(folder, {"crossref": (200, CROSSREF)})
    result = CliRunner().invoke(
        app,
        ["search", "sepsis", "--trace", "-p", "crossref", "--replay", str(folder), "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["version"] == 1 and data["status"] == "success"
    assert data["request"]["providers"] == ["crossref"]
    assert [s["paper"]["doi"] for s in data["sightings"]] == ["10.1000/xyz123", "10.1000/abc456"]
    assert data["attempts"][0]["reuse"] == "replay"
    assert len(data["cache_identity"]) == 64


def test_search_all_lanes_failed_exits_5(env):
    folder = env / "cas"
    _cassette(folder, {"crossref": (503, b"down")})
    result = CliRunner().invoke(
        app, ["search", "sepsis", "--trace", "-p", "crossref", "--replay", str(folder)]
    )
    assert result.exit_code == 5
    assert "unavailable" in result.output


def test_search_every_lane_refused_says_change_it_not_wait(env):
    # Crossref refuses Boolean syntax before sending: "try again in a minute" was wrong advice
    for extra in (["--trace"], []):
        result = CliRunner().invoke(app, ["search", "heart AND (a OR b)", "-p", "crossref", *extra])
        assert result.exit_code == 5
        assert "no database can run this search as asked" in result.stderr
        assert "Change what each database refused" in result.stderr
        assert "Try again in a minute" not in result.stderr
    # a provider that did not answer still gets the advice to wait
    folder = env / "cas"
    _cassette(folder, {"crossref": (503, b"down")})
    down = CliRunner().invoke(app, ["search", "sepsis", "-p", "crossref", "--replay", str(folder)])
    assert down.exit_code == 5 and "Try again in a minute" in down.stderr


def test_search_replay_miss_is_a_clear_error(env):
    folder = env / "cas"
    _cassette(folder, {"crossref": (200, CROSSREF)})
    result = CliRunner().invoke(
        app, ["search", "malaria", "-p", "crossref", "--replay", str(folder)]
    )
    assert result.exit_code == 4
    assert "record it first" in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--field", "body"], "field must be one of"),
        (["--from", "2020", "--to", "2000"], "first year is after the last year"),
        (["-p", "scholar"], "unknown provider"),
        (["--limit", "500"], "limit"),
        (["--record", "a", "--replay", "b"], "not both"),
    ],
)
def test_search_bad_arguments(env, args, needle):
    result = CliRunner().invoke(app, ["search", "sepsis", "-p", "crossref", *args])
    assert result.exit_code == 2, result.output
    assert needle in result.stderr


def test_search_openalex_without_key_says_how(env):
    result = CliRunner().invoke(app, ["search", "sepsis", "--trace", "-p", "openalex", "--json"])
    assert result.exit_code == 5
    data = json.loads(result.stdout)
    assert "LITDESK_OPENALEX_API_KEY" in data["attempts"][0]["message"]
    fused = CliRunner().invoke(app, ["search", "sepsis", "-p", "openalex", "--json"])
    assert fused.exit_code == 5
    assert "LITDESK_OPENALEX_API_KEY" in json.loads(fused.stdout)["lanes"][0]["message"]


def test_fused_search_table_why_and_provenance(env):
    folder = env / "cas"
    _cassette(
        folder, {"crossref": (200, CROSSREF), "semanticscholar": (429, b'{"message":"slow"}')}
    )
    result = CliRunner().invoke(
        app, ["search", "sepsis", "-p", "crossref,semanticscholar", "--replay", str(folder)]
    )
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "Deep learning for" in out and "Okafor" in out
    assert "Crossref, keyword search #1" in out and "crossref-keyword" not in out
    assert "Semantic Scholar is receiving too many searches just now" in out
    assert "rate_limited" in out and "executed:" in out
    assert "coverage bounded-discovery" in out and "rrf-60-v1" in out
    assert "never added" in out


def test_fused_search_json_save_into_study_and_runs_show(env):
    folder = env / "cas"
    _cassette(folder, {"crossref": (200, CROSSREF)})
    made = CliRunner().invoke(app, ["study", "new", "Sepsis"])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(
        app,
        [
            "search",
            "sepsis",
            "-p",
            "crossref",
            "--replay",
            str(folder),
            "--json",
            "--study",
            "Sepsis",
        ],
    )
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)
    assert run["version"] == 2 and run["coverage"] == "provider-order"
    assert run["ranking_version"] == "provider-order-v1"
    assert [h["paper"]["doi"] for h in run["hits"]] == ["10.1000/xyz123", "10.1000/abc456"]
    assert run["lanes"][0]["total"] == 2 and run["candidate_limit"] == 20
    assert "saved run" in result.stderr
    shown = CliRunner().invoke(app, ["runs", "show", run["id"], "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["id"] == run["id"]


def test_fused_search_bad_mode(env):
    result = CliRunner().invoke(app, ["search", "sepsis", "--mode", "fuzzy"])
    assert result.exit_code == 2 and "mode must be one of" in result.stderr
