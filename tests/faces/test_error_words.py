"""Errors told to people (``faces/_explain``, ``core.providers.lane_notice``): what
happened and what to do, built from the error's fields; the CLI prints them without any
exception class name, the technical message on a last ``details`` line."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._errors import (
    ConfigError,
    ExternalError,
    InputError,
    IntegrityError,
    LitdeskError,
    NotFoundError,
    RefusedError,
)
from litdesk._settings import get_settings
from litdesk.adapters.http import (
    CassetteMiss,
    CassetteRecorder,
    Exchange,
    Redactor,
    TransportFailed,
    TransportRefused,
    sanitised_url,
)
from litdesk.core.providers import lane_notice, status_words, wait_words
from litdesk.core.search import SearchFilters
from litdesk.faces._explain import explain, explain_status, sentence
from litdesk.faces.cli import app
from litdesk.services.search import default_kit


def _class_names() -> set[str]:
    import litdesk.faces.web  # noqa: F401 - every area's errors are defined once imported

    names: set[str] = set()
    todo: list[type[LitdeskError]] = [LitdeskError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__.lstrip("_"))
        todo.extend(cls.__subclasses__())
    return names


def _no_class_names(text: str) -> None:
    found = set(re.findall(r"[A-Za-z_]+", text)) & _class_names()
    assert not found, (found, text)


# -- lanes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "retry", "expected"),
    [
        (
            "timeout",
            "europepmc: no complete answer within 30 s (the time limit)",
            None,
            "Europe PMC did not answer in 30 seconds. Try again, or search the other databases.",
        ),
        (
            "rate_limited",
            "europepmc: the provider is rate limiting (HTTP 429); retry after 30 s",
            30.0,
            "Europe PMC is receiving too many searches just now. Try again in 30 seconds, "
            "or search the other databases.",
        ),
        (
            "unavailable",
            "europepmc: the provider failed (HTTP 503)",
            None,
            "Europe PMC is not working just now (it reported an error). Try again later, "
            "or search the other databases.",
        ),
        (
            "unavailable",
            "europepmc: network error (ConnectError: [Errno 111] Connection refused)",
            None,
            "Europe PMC could not be reached. Check the internet connection and try again, "
            "or search the other databases.",
        ),
        (
            "unavailable",
            "europepmc: credentials or allowance refused (HTTP 401)",
            None,
            "Europe PMC refused the request: its key or allowance was not accepted. "
            "Check the key in the settings, or search the other databases.",
        ),
        (
            "budget_exhausted",
            "europepmc: today's allowance of 500 calls is spent (UTC day 2026-12-05)",
            7200.0,
            "Today's allowance of searches for Europe PMC is used up. Try again in 2 hours, "
            "or search the other databases.",
        ),
        (
            "unsupported",
            "europepmc: field search AUTH_LAST is not supported",
            None,
            "Europe PMC, keyword search cannot run this query: field search AUTH_LAST is not "
            "supported. Change the query, or search the other databases.",
        ),
        (
            "parse_error",
            "europepmc: the parser failed on this body (KeyError)",
            None,
            "Europe PMC answered, but litdesk could not read the answer. Try again later, "
            "or search the other databases.",
        ),
    ],
)
def test_a_failed_lane_is_told_from_its_fields(
    status: str, message: str, retry: float | None, expected: str
) -> None:
    assert lane_notice(status, "europepmc-keyword", message=message, retry_after=retry) == expected


def test_lanes_that_answered_need_no_notice_and_statuses_have_words() -> None:
    assert lane_notice("ok", "europepmc-keyword", message="not found") == ""
    assert lane_notice("running", "europepmc-keyword") == ""
    assert status_words("timeout") == "no answer in time"
    assert status_words("rate_limited") == "too many searches"
    assert [wait_words(s) for s in (None, 1, 45, 600, 7200)] == [
        "later",
        "in 1 second",
        "in 45 seconds",
        "in 10 minutes",
        "in 2 hours",
    ]


def test_a_missing_key_says_how_to_get_one() -> None:
    told = lane_notice(
        "unavailable",
        "openalex-keyword",
        message="openalex: OpenAlex requires an API key (free): set LITDESK_OPENALEX_API_KEY",
    )
    assert told.startswith("OpenAlex requires an API key") and "LITDESK_OPENALEX_API_KEY" in told


# -- the families -----------------------------------------------------------------------------


def test_transport_errors_are_told_like_lanes() -> None:
    timeout = TransportFailed(
        "crossref: no complete answer within 30 s (the time limit)", lane_status="timeout"
    )
    assert str(explain(timeout)).startswith("Crossref did not answer in 30 seconds.")
    refused = TransportRefused(
        "crossref: the provider is rate limiting (HTTP 429)",
        lane_status="rate_limited",
        retry_after=60,
    )
    assert "Try again in 60 seconds" in str(explain(refused))
    miss = CassetteMiss("replay: the cassette /x holds no GET https://a/b?c=d", provider="pubmed")
    told = explain(miss)
    assert "PubMed was not asked" in told.text and "without --replay" in told.hint
    assert "https://" not in str(told)


@pytest.mark.parametrize(
    ("error", "hint"),
    [
        (InputError("the year must be a number"), "Correct it and try again."),
        (NotFoundError("no Study 'x'"), "pick it from its list"),
        (RefusedError("not yours"), "Nothing was changed."),
        (RefusedError("the queue is full", code="too_many_jobs"), "Wait and try again"),
        (ExternalError("the database did not answer"), "Try again in a minute."),
        (ConfigError("LITDESK_DATABASE_URL is not a URL"), "settings"),
        (IntegrityError("run.json is malformed"), "nothing was changed"),
        (LitdeskError("something odd"), "server log"),
    ],
)
def test_every_family_says_what_to_do(error: LitdeskError, hint: str) -> None:
    told = explain(error)
    assert told.text == sentence(error.message) and told.text[0].isupper()
    assert hint in told.hint
    _no_class_names(str(told))


def test_an_error_s_own_hint_replaces_its_family_s() -> None:
    """A Zotero folder that is not one says where to find Zotero's, not "pick it from its
    list" (NotFoundError) or "see the log" (IntegrityError)."""
    from litdesk.adapters.zotero._read import NoZoteroLibrary, ZoteroUnreadable

    for error in (NoZoteroLibrary("no zotero.sqlite in /x"), ZoteroUnreadable("not Zotero")):
        told = explain(error)
        assert "Files and Folders" in told.hint, told
        assert "pick it from its list" not in told.hint and "log" not in told.hint
        _no_class_names(str(told))

    class Spoken(NotFoundError):
        hint = ""  # its message says what to do

    assert explain(Spoken("no such thing; make it first")).hint == ""


def test_framework_errors_and_sentences() -> None:
    assert explain_status(404).text == "There is no page at this address."
    assert explain_status(500).hint.startswith("Try again")
    assert explain_status(418).text == "The request could not be answered."
    assert sentence("no Study 'x'") == "No Study 'x'." and sentence("Done.") == "Done."


# -- the CLI ----------------------------------------------------------------------------------


@pytest.fixture
def env(tmp_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def _cassette(folder: Path, provider: str, status: int, query: str = "sepsis") -> None:
    req = default_kit().compile(provider, query, SearchFilters(), 20, None)
    CassetteRecorder(folder).record(
        Exchange(
            provider=provider,
            method=req.method,
            url=sanitised_url(req),
            request_body=req.body,
            status=status,
            headers={"retry-after": "30"} if status == 429 else {},
            body=b"{}",
            received_at=datetime(2026, 11, 30, tzinfo=UTC),
        ),
        Redactor(),
    )


def test_cli_errors_speak_plainly(env: Path) -> None:
    folder = env / "cas"
    _cassette(folder, "crossref", 503)
    runner = CliRunner()
    miss = runner.invoke(app, ["search", "malaria", "-p", "crossref", "--replay", str(folder)])
    assert miss.exit_code == 4
    lines = miss.stderr.splitlines()
    assert lines[0].startswith("litdesk: This search is not among the recorded answers")
    assert "without --replay" in lines[1] and lines[-1].startswith("  details (cassette_miss):")
    assert miss.stderr.count("crossref.org") == 1  # the request, once, in the details
    down = runner.invoke(app, ["search", "sepsis", "-p", "crossref", "--replay", str(folder)])
    assert down.exit_code == 5
    assert "Crossref is not working just now" in down.output
    assert "Crossref, keyword search: not available" in " ".join(down.output.split())
    gone = runner.invoke(app, ["study", "show", "No such study"])
    assert gone.exit_code == 4 and "pick it from its list" in gone.stderr
    bad = runner.invoke(app, ["search", "sepsis", "--from", "2020", "--to", "2000"])
    assert bad.exit_code == 2 and "Correct it and try again." in bad.stderr
    as_json = runner.invoke(app, ["study", "show", "No such study", "--json"])
    data = json.loads(as_json.stdout)
    assert data["error"] == "NotFoundError" and data["hint"].startswith("No Study")
    for result in (miss, down, gone, bad):
        _no_class_names(result.output)


# -- --record ---------------------------------------------------------------------------------


def _network(monkeypatch: pytest.MonkeyPatch, handler: object) -> None:
    import httpx

    from litdesk.faces.cli import _context

    transport = httpx.MockTransport(handler)  # type: ignore[arg-type]
    monkeypatch.setattr(_context, "APP_TEST_HOOKS", {"http_transport": transport})


def test_record_with_no_network_fails_and_says_so(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    _network(monkeypatch, refuse)
    folder = env / "rec"
    for args in (["-p", "crossref"], ["-p", "crossref", "--trace", "--json"]):
        result = CliRunner().invoke(app, ["search", "sepsis", *args, "--record", str(folder)])
        assert result.exit_code == 5, result.output
        assert f"litdesk: nothing was recorded in {folder}" in result.stderr
        assert "recorded exchanges" not in result.output
        assert ("Crossref could not be reached" in result.output) != ("--json" in args)
        _no_class_names(result.stderr)


def test_record_reports_what_it_recorded(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    body = json.dumps(
        {
            "status": "ok",
            "message-type": "work-list",
            "message": {"total-results": 0, "items": []},
        }
    )
    _network(monkeypatch, lambda request: httpx.Response(200, content=body.encode()))
    folder = env / "rec"
    result = CliRunner().invoke(
        app, ["search", "sepsis", "-p", "crossref", "--record", str(folder)]
    )
    assert result.exit_code == 0, result.output
    assert f"recorded 1 exchange in {folder}: Crossref 1" in result.stderr
    assert (folder / "index.json").is_file()


def test_a_provider_that_does_not_answer_in_time_is_told_so(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    _network(monkeypatch, slow)
    result = CliRunner().invoke(app, ["search", "sepsis", "-p", "crossref"])
    assert result.exit_code == 5
    said = " ".join(result.output.split())
    assert (
        "Crossref did not answer in 30 seconds. Try again, or search the other databases." in said
    )
    assert "Crossref, keyword search: no answer in time" in said
    _no_class_names(result.output)
