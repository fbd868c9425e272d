"""The full-text service through the real transport (``ProviderTransport``) with an
``httpx.MockTransport`` serving recorded Europe PMC / OpenAlex bodies."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st
from pydantic import SecretStr
from tests._meters import store_meter

from litdesk._errors import LitdeskError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.http import ProviderTransport, StoreMeter
from litdesk.core.fulltext import FullTextWrongPaper
from litdesk.services.fulltext import (
    FullTextService,
    NoFullText,
    PaperIdError,
    fulltext_request,
    pmid_lookup_request,
)

KEY = "oa-secret-key-123"
Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    def __init__(self, routes: dict[str, Callable[[httpx.Request], httpx.Response]]) -> None:
        self.routes = routes
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        for prefix, handler in self.routes.items():
            if str(request.url).startswith(prefix):
                return handler(request)
        return httpx.Response(404, content=b"not here")


def run(
    settings: Settings,
    recorder: Recorder,
    coro: Callable[[FullTextService], Any],
    *,
    cache_dir: Path | None = None,
    meter: StoreMeter | None = None,
    now: Callable[[], datetime] | None = None,
) -> Any:
    async def main() -> Any:
        transport = ProviderTransport(
            settings,
            transport=httpx.MockTransport(recorder),
            meter=meter or store_meter(settings),
            sleep=_no_sleep,
        )
        try:
            service = FullTextService(transport, cache_dir=cache_dir, now=now)
            return await coro(service)
        finally:
            await transport.aclose()

    return asyncio.run(main())


async def _no_sleep(_: float) -> None:
    return None


@pytest.fixture
def settings(tmp_settings: Settings) -> Settings:
    return tmp_settings.model_copy(
        update={"openalex_api_key": SecretStr(KEY), "http_max_response_bytes": 4_000_000}
    )


EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/"


def serve(path: Path) -> Handler:
    body = path.read_bytes()
    return lambda _r: httpx.Response(200, content=body)


def lookup_body(pmid: str, pmcid: str | None, doi: str | None = None) -> bytes:
    """A hand-made Europe PMC lite search answer with one record."""
    record: dict[str, Any] = {"id": pmid, "source": "MED", "pmid": pmid, "title": "T"}
    if pmcid:
        record["pmcid"] = pmcid
    if doi:
        record["doi"] = doi
    doc = {"version": "6.9", "hitCount": 1, "resultList": {"result": [record]}}
    return json.dumps(doc).encode()


def test_request_shapes() -> None:
    r = fulltext_request("pmc12061466")
    assert r.url == EPMC + "PMC12061466/fullTextXML" and r.params == ()
    q = pmid_lookup_request("40342701")
    assert q.url == EPMC + "search"
    assert ("query", "EXT_ID:40342701 AND SRC:MED") in q.params
    with pytest.raises(PaperIdError):
        fulltext_request("nope")


@pytest.mark.fixtures
def test_pmcid_fetch_parses_and_caches(
    settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> None:
    ft_file = fixtures_dir / "providers/europepmc/fulltext-PMC12061466-ccby.xml"
    rec = Recorder({EPMC + "PMC12061466/fullTextXML": serve(ft_file)})
    cache = tmp_path / "cache"
    first = run(settings, rec, lambda s: s.get("PMC-PMC12061466"), cache_dir=cache)
    assert first.fulltext.readable and first.fulltext.blocks and not first.cached
    assert first.to_dict()["source_url"] == "https://europepmc.org/articles/PMC12061466"
    assert (cache / "PMC12061466.json").is_file()
    # no credential or Authorization header ever goes to Europe PMC (known defect 1)
    assert all("authorization" not in r.headers for r in rec.requests)
    assert all(KEY not in str(r.url) for r in rec.requests)
    second = run(settings, rec, lambda s: s.get("pmc12061466"), cache_dir=cache)
    assert second.cached and len(rec.requests) == 1
    assert second.fulltext == first.fulltext and second.retrieved_at == first.retrieved_at
    third = run(settings, rec, lambda s: s.get("PMC12061466", refresh=True), cache_dir=cache)
    assert not third.cached and len(rec.requests) == 2


@pytest.mark.fixtures
def test_stale_or_tampered_cache_is_refetched(
    settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> None:
    ft_file = fixtures_dir / "providers/europepmc/fulltext-PMC12061466-ccby.xml"
    rec = Recorder({EPMC + "PMC12061466/fullTextXML": serve(ft_file)})
    cache = tmp_path / "cache"
    run(settings, rec, lambda s: s.get("PMC12061466"), cache_dir=cache)
    later = datetime.now(UTC) + timedelta(days=31)
    out = run(settings, rec, lambda s: s.get("PMC12061466"), cache_dir=cache, now=lambda: later)
    assert not out.cached and len(rec.requests) == 2
    entry = cache / "PMC12061466.json"
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["blocks"][0]["text"] = ""
    entry.write_text(json.dumps(data), encoding="utf-8")
    out = run(settings, rec, lambda s: s.get("PMC12061466"), cache_dir=cache)
    assert not out.cached and len(rec.requests) == 3


@pytest.mark.fixtures
def test_not_readable_licence_is_a_result_not_an_error(
    settings: Settings, fixtures_dir: Path
) -> None:
    ft_file = fixtures_dir / "providers/europepmc/fulltext-PMC12099753-ccbyncnd.xml"
    rec = Recorder({EPMC + "PMC12099753/fullTextXML": serve(ft_file)})
    out = run(settings, rec, lambda s: s.get("PMC12099753"))
    data = out.to_dict()
    assert data["readable"] is False and data["blocks"] == []
    assert "https://europepmc.org/articles/PMC12099753" in data["reason"]


@pytest.mark.fixtures
def test_wrong_paper_served_is_refused(settings: Settings, fixtures_dir: Path) -> None:
    ft_file = fixtures_dir / "providers/europepmc/fulltext-PMC12061466-ccby.xml"
    rec = Recorder({EPMC + "PMC999/fullTextXML": serve(ft_file)})
    with pytest.raises(FullTextWrongPaper):
        run(settings, rec, lambda s: s.get("PMC999"))


@pytest.mark.fixtures
def test_pmid_reaches_full_text_through_europe_pmc_lookup(
    settings: Settings, fixtures_dir: Path
) -> None:
    ft_file = fixtures_dir / "providers/europepmc/fulltext-PMC12061466-ccby.xml"
    rec = Recorder(
        {
            EPMC + "search": lambda _r: httpx.Response(
                200, content=lookup_body("40342701", "PMC12061466")
            ),
            EPMC + "PMC12061466/fullTextXML": serve(ft_file),
        }
    )
    out = run(settings, rec, lambda s: s.get("MED-40342701"))
    assert out.fulltext.pmcid == "PMC12061466" and out.fulltext.readable
    assert rec.requests[0].url.params["query"] == "EXT_ID:40342701 AND SRC:MED"
    assert len(rec.requests) == 2


@pytest.mark.fixtures
def test_lookup_takes_only_the_matching_record(settings: Settings, fixtures_dir: Path) -> None:
    page = fixtures_dir / "providers/europepmc/search-cancer-core.json"
    rec = Recorder({EPMC + "search": serve(page)})
    # the 6th record of the recorded page (PMID 40437959) has PMCID PMC12120539
    assert run(settings, rec, lambda s: s.resolve_pmcid("40437959")) == "PMC12120539"
    # a PMID that is not in the answer never borrows another record's PMCID
    with pytest.raises(NoFullText):
        run(settings, rec, lambda s: s.resolve_pmcid("MED-1"))


@pytest.mark.fixtures
def test_openalex_work_resolves_through_its_pmcid_or_pmid(
    settings: Settings, fixtures_dir: Path
) -> None:
    oa = fixtures_dir / "providers/openalex"
    rec = Recorder(
        {
            "https://api.openalex.org/works/W2109415576": serve(
                oa / "work-doi-10.1073-pnas.1414271111.json"
            ),
            "https://api.openalex.org/works/W4408732759": serve(
                oa / "work-doi-10.1016-j.xgen.2025.100814.json"
            ),
            EPMC + "search": lambda _r: httpx.Response(
                200, content=lookup_body("40120586", "PMC777")
            ),
        }
    )
    assert run(settings, rec, lambda s: s.resolve_pmcid("OAX-W2109415576")) == "PMC4234579"
    # the key goes to OpenAlex only, as a parameter the transport adds
    assert rec.requests[0].url.host == "api.openalex.org"
    assert rec.requests[0].url.params["api_key"] == KEY
    # no PMCID at OpenAlex: its PMID is looked up at Europe PMC
    assert run(settings, rec, lambda s: s.resolve_pmcid("W4408732759")) == "PMC777"
    europe = [r for r in rec.requests if r.url.host == "www.ebi.ac.uk"]
    assert europe and all(
        KEY not in str(r.url) and "authorization" not in r.headers for r in europe
    )


@pytest.mark.fixtures
def test_openalex_paratext_without_ids_has_no_full_text(
    settings: Settings, fixtures_dir: Path
) -> None:
    oa = fixtures_dir / "providers/openalex/work-W4234567890-paratext.json"
    rec = Recorder({"https://api.openalex.org/works/W4234567890": serve(oa)})
    with pytest.raises(NoFullText, match="no PMID or PMCID"):
        run(settings, rec, lambda s: s.get("OAX-W4234567890"))


def test_openalex_singleton_without_key_is_refused_and_nothing_sent(
    tmp_settings: Settings,
) -> None:
    rec = Recorder({})
    with pytest.raises(RefusedError, match="LITDESK_OPENALEX_API_KEY"):
        run(tmp_settings, rec, lambda s: s.get("OAX-W1"))
    assert rec.requests == []


def test_every_call_is_metered_including_singletons(settings: Settings) -> None:
    meter = store_meter(settings, owner_daily_requests=1)
    rec = Recorder(
        {
            "https://api.openalex.org/works/W1": lambda _r: httpx.Response(
                200,
                content=json.dumps(
                    {"id": "https://openalex.org/W1", "title": "x", "ids": {"pmid": "5"}}
                ).encode(),
            ),
            EPMC + "search": lambda _r: httpx.Response(200, content=lookup_body("5", "PMC6")),
        }
    )
    assert run(settings, rec, lambda s: s.resolve_pmcid("OAX-W1"), meter=meter) == "PMC6"
    with pytest.raises(RefusedError, match="allowance"):
        run(settings, rec, lambda s: s.resolve_pmcid("OAX-W1"), meter=meter)
    assert len(rec.requests) == 2  # the refused singleton was never sent


def test_europe_pmc_404_is_no_full_text(settings: Settings) -> None:
    rec = Recorder({})
    with pytest.raises(NoFullText, match="europepmc.org/articles/PMC5"):
        run(settings, rec, lambda s: s.get("PMC5"))


@pytest.mark.parametrize("bad", ["", "hello world", "PPR-123", "ARX-2401.00001"])
def test_unusable_ids_are_input_errors(settings: Settings, bad: str) -> None:
    rec = Recorder({})
    with pytest.raises(PaperIdError):
        run(settings, rec, lambda s: s.resolve_pmcid(bad))
    assert rec.requests == []


def test_a_non_jats_answer_is_an_external_error(settings: Settings) -> None:
    from litdesk.services.fulltext import FullTextFetchFailed

    rec = Recorder({EPMC: lambda _r: httpx.Response(200, content=b"<html><p>busy</p></html>")})
    with pytest.raises(FullTextFetchFailed, match="not JATS"):
        run(settings, rec, lambda s: s.get("PMC5"))


@pytest.fixture(scope="module")
def fuzz_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One data dir of its own for every example (never the user's default data dir)."""
    return Settings(
        data_dir=tmp_path_factory.mktemp("fulltext-fuzz"), openalex_api_key=SecretStr(KEY)
    )


@settings_(max_examples=60, deadline=None)
@given(body=st.binary(max_size=600))
def test_arbitrary_answers_give_a_result_or_a_typed_error(
    fuzz_settings: Settings, body: bytes
) -> None:
    conf = fuzz_settings
    rec = Recorder({EPMC: lambda _r: httpx.Response(200, content=body)})
    try:
        out = run(conf, rec, lambda s: s.get("PMC5"))
    except LitdeskError:
        return
    assert out.fulltext.pmcid == "PMC5"
