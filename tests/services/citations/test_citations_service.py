"""Citation discovery through the real transport (``ProviderTransport``) with an
``httpx.MockTransport`` serving recorded OpenAlex bodies (and hand-made seeds for the
edge cases)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from pydantic import SecretStr
from tests._meters import store_meter

from litdesk._errors import NotFoundError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.http import ProviderTransport, StoreMeter, check_request
from litdesk.services.citations import (
    INCOMPLETE_NOTICE,
    CitationArgumentError,
    CitationService,
    SeedError,
    rank_shared,
    seed_key,
    work_request,
    works_by_id_request,
)

KEY = "oa-citations-key-9"
WORKS = "https://api.openalex.org/works"


class Server:
    """Answers OpenAlex requests: singletons by path, lists by a callable."""

    def __init__(
        self,
        singles: dict[str, bytes],
        lists: Callable[[httpx.Request], bytes] | None = None,
    ) -> None:
        self.singles = singles
        self.lists = lists
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/works":
            if self.lists is None:
                return httpx.Response(500, content=b"{}")
            return httpx.Response(200, content=self.lists(request))
        key = path.removeprefix("/works/")
        if key in self.singles:
            return httpx.Response(200, content=self.singles[key])
        return httpx.Response(404, content=b"<html>not found</html>")


@pytest.fixture
def settings(tmp_settings: Settings) -> Settings:
    return tmp_settings.model_copy(update={"openalex_api_key": SecretStr(KEY)})


async def _no_sleep(_: float) -> None:
    return None


def run(
    settings: Settings,
    server: Server,
    go: Callable[[CitationService], Any],
    *,
    meter: StoreMeter | None = None,
) -> Any:
    async def main() -> Any:
        transport = ProviderTransport(
            settings,
            transport=httpx.MockTransport(server),
            meter=meter or store_meter(settings),
            sleep=_no_sleep,
        )
        try:
            return await go(CitationService(transport))
        finally:
            await transport.aclose()

    return asyncio.run(main())


def seed(work: str, refs: list[str], related: list[str] | None = None) -> bytes:
    return json.dumps(
        {
            "id": f"https://openalex.org/{work}",
            "title": f"Seed {work}",
            "referenced_works": [f"https://openalex.org/{w}" for w in refs],
            "related_works": [f"https://openalex.org/{w}" for w in related or []],
        }
    ).encode()


def filter_ids(request: httpx.Request) -> list[str]:
    expr = request.url.params["filter"]
    assert expr.startswith("openalex:")
    return expr.removeprefix("openalex:").split("|")


def test_seed_keys() -> None:
    assert seed_key("OAX-W123") == ("work", "W123")
    assert seed_key("https://openalex.org/W5") == ("work", "W5")
    assert seed_key("10.1073/PNAS.1414271111") == ("doi", "doi:10.1073/pnas.1414271111")
    assert seed_key("MED-25349395") == ("pmid", "pmid:25349395")
    assert seed_key("PMC4234579") == ("pmcid", "pmcid:PMC4234579")
    for bad in ("", "PPR-1", "a title"):
        with pytest.raises(SeedError):
            seed_key(bad)


def test_rank_shared_counts_and_stable_order() -> None:
    lists = [["W1", "W2", "W3", "W2"], ["W3", "W2", "W9"], ["W3", "W4"], ["W4", "W1"]]
    assert rank_shared(lists) == [("W3", 3), ("W1", 2), ("W2", 2), ("W4", 2)]
    assert rank_shared([["W1"], ["W2"]]) == []


def test_works_request_shape() -> None:
    r = works_by_id_request(["W1", "W2"])
    assert r.url == WORKS and ("filter", "openalex:W1|W2") in r.params
    with pytest.raises(ValueError):
        works_by_id_request([f"W{i}" for i in range(1, 22)])


@pytest.mark.fixtures
def test_references_of_a_recorded_work_page_by_page(settings: Settings, fixtures_dir: Path) -> None:
    raw = (fixtures_dir / "providers/openalex/work-W2741809807.json").read_bytes()
    refs = [u.rsplit("/", 1)[-1] for u in json.loads(raw)["referenced_works"]]
    assert len(refs) == 45
    listing = (
        fixtures_dir / "providers/openalex/works-filter-openalex-ids-cursor-first.json"
    ).read_bytes()
    server = Server({"W2741809807": raw}, lists=lambda _r: listing)
    out = run(settings, server, lambda s: s.discover("references", ["OAX-W2741809807"]))
    assert out.total == 45 and out.page == 1 and out.has_more and not out.truncated
    assert out.seeds[0]["work"] == "W2741809807"
    assert filter_ids(server.requests[1]) == refs[:20]
    assert server.requests[1].url.params["per_page"] == "20"
    # the recorded list answers two works that are not among these 20: reported, not faked
    assert out.papers == [] and any("20 of 20 works" in n for n in out.notices)
    assert INCOMPLETE_NOTICE in out.notices
    last = run(settings, server, lambda s: s.discover("references", ["W2741809807"], page=3))
    assert filter_ids(server.requests[-1]) == refs[40:45] and not last.has_more
    beyond = run(settings, server, lambda s: s.discover("references", ["W2741809807"], page=4))
    assert beyond.papers == [] and beyond.total == 45 and not beyond.has_more
    assert server.requests[-1].url.path == "/works/W2741809807"  # no list call for nothing


@pytest.mark.fixtures
def test_results_come_back_in_ranked_order(settings: Settings, fixtures_dir: Path) -> None:
    listing = (
        fixtures_dir / "providers/openalex/works-filter-openalex-ids-cursor-first.json"
    ).read_bytes()
    recorded_order = [w["id"].rsplit("/", 1)[-1] for w in json.loads(listing)["results"]]
    assert recorded_order == ["W3046863325", "W3045921891"]
    server = Server({"W1": seed("W1", ["W3045921891", "W3046863325"])}, lists=lambda _r: listing)
    out = run(settings, server, lambda s: s.discover("references", ["W1"]))
    assert [p.openalex_id for p in out.papers] == ["W3045921891", "W3046863325"]
    assert all(p.title for p in out.papers)


@pytest.mark.fixtures
def test_related_works_of_a_recorded_work(settings: Settings, fixtures_dir: Path) -> None:
    raw = (fixtures_dir / "providers/openalex/work-W2741809807.json").read_bytes()
    related = [u.rsplit("/", 1)[-1] for u in json.loads(raw)["related_works"]]
    server = Server({"W2741809807": raw}, lists=lambda _r: b'{"meta":{"count":0},"results":[]}')
    out = run(settings, server, lambda s: s.discover("related", ["W2741809807"]))
    assert out.total == len(related) == 10 and not out.has_more
    assert filter_ids(server.requests[1]) == related


@pytest.mark.fixtures
def test_citing_newest_first_with_totals(settings: Settings, fixtures_dir: Path) -> None:
    listing = (
        fixtures_dir / "providers/openalex/works-filter-cites-cursor-first.json"
    ).read_bytes()
    server = Server({}, lists=lambda _r: listing)
    out = run(settings, server, lambda s: s.discover("citing", ["W3046863325"], page=2))
    (request,) = server.requests  # a W id needs no seed lookup
    params = request.url.params
    assert params["filter"] == "cites:W3046863325"
    assert params["sort"] == "publication_date:desc"
    assert params["page"] == "2" and params["per_page"] == "20"
    assert params["api_key"] == KEY
    assert out.total == 5 and len(out.papers) == 5 and not out.has_more and not out.truncated


def test_citing_total_over_2000_is_truncated(settings: Settings) -> None:
    body = json.dumps({"meta": {"count": 5000}, "results": []}).encode()
    server = Server({}, lists=lambda _r: body)
    out = run(settings, server, lambda s: s.discover("citing", ["W9"], page=100))
    assert out.truncated and not out.has_more
    first = run(settings, server, lambda s: s.discover("citing", ["W9"]))
    assert first.has_more


@pytest.mark.fixtures
def test_shared_references_referenced_by_n_of_m(settings: Settings, fixtures_dir: Path) -> None:
    listing = (
        fixtures_dir / "providers/openalex/works-filter-openalex-ids-cursor-first.json"
    ).read_bytes()
    server = Server(
        {
            "W1": seed("W1", ["W3046863325", "W7", "W3045921891"]),
            "W2": seed("W2", ["W3045921891", "W3046863325", "W8"]),
            "W3": seed("W3", ["W3045921891", "W9"]),
        },
        lists=lambda _r: listing,
    )
    out = run(settings, server, lambda s: s.discover("shared", ["W1", "W2", "W3"]))
    assert filter_ids(server.requests[-1]) == ["W3045921891", "W3046863325"]
    assert out.shared_counts == {"W3045921891": 3, "W3046863325": 2}
    assert [p.openalex_id for p in out.papers] == ["W3045921891", "W3046863325"]
    assert out.total == 2 and len(out.seeds) == 3
    assert len(server.requests) == 4  # three seed lookups, one list


@pytest.mark.parametrize(
    ("mode", "seeds", "page"),
    [
        ("references", ["W1", "W2"], 1),
        ("citing", [], 1),
        ("shared", ["W1"], 1),
        ("shared", ["W1", "W2", "W3", "W4", "W5", "W6"], 1),
        ("shared", ["W1", "W1"], 1),
        ("references", ["W1"], 0),
        ("references", ["W1"], 101),
        ("sideways", ["W1"], 1),
    ],
)
def test_argument_rules(settings: Settings, mode: Any, seeds: list[str], page: int) -> None:
    server = Server({})
    with pytest.raises(CitationArgumentError):
        run(settings, server, lambda s: s.discover(mode, seeds, page=page))
    assert server.requests == []


def test_seed_ids_over_the_cap_set_truncated(settings: Settings) -> None:
    refs = [f"W{i}" for i in range(1, 2_501)]
    server = Server({"W1": seed("W1", refs)}, lists=lambda _r: b'{"results":[]}')
    out = run(settings, server, lambda s: s.discover("references", ["W1"], page=100))
    assert out.truncated and out.total == 2_000 and not out.has_more
    assert filter_ids(server.requests[-1]) == refs[1980:2000]


def test_unknown_seed_is_not_found(settings: Settings) -> None:
    server = Server({})
    with pytest.raises(NotFoundError):
        run(settings, server, lambda s: s.discover("references", ["W404"]))


def test_without_api_key_nothing_is_sent(tmp_settings: Settings) -> None:
    server = Server({})
    with pytest.raises(RefusedError, match="LITDESK_OPENALEX_API_KEY"):
        run(tmp_settings, server, lambda s: s.discover("citing", ["W1"]))
    assert server.requests == []


def test_every_call_is_metered_including_seed_lookups(settings: Settings) -> None:
    meter = store_meter(settings, owner_daily_requests=3)
    server = Server(
        {"W1": seed("W1", ["W5"]), "W2": seed("W2", ["W5"])},
        lists=lambda _r: b'{"results":[]}',
    )
    run(settings, server, lambda s: s.discover("references", ["W1"]), meter=meter)
    assert len(server.requests) == 2 and meter.used("openalex") == 2
    with pytest.raises(RefusedError, match="allowance"):
        run(settings, server, lambda s: s.discover("shared", ["W1", "W2"]), meter=meter)
    assert len(server.requests) == 3  # the second seed lookup was refused before sending


@pytest.mark.fixtures
def test_doi_seed_is_looked_up_then_cited(settings: Settings, fixtures_dir: Path) -> None:
    work = (fixtures_dir / "providers/openalex/work-doi-10.1073-pnas.1414271111.json").read_bytes()
    listing = (
        fixtures_dir / "providers/openalex/works-filter-cites-cursor-first.json"
    ).read_bytes()
    server = Server(
        {"doi:10.1073/pnas.1414271111": work, "pmid:25349395": work}, lists=lambda _r: listing
    )
    out = run(settings, server, lambda s: s.discover("citing", ["10.1073/PNAS.1414271111"]))
    assert [r.url.path for r in server.requests] == [
        "/works/doi:10.1073/pnas.1414271111",
        "/works",
    ]
    assert server.requests[1].url.params["filter"] == "cites:W2109415576"
    assert out.seeds[0]["work"] == "W2109415576" and out.seeds[0]["title"]
    refs = json.loads(work)["referenced_works"]
    ref_out = run(settings, server, lambda s: s.discover("references", ["MED-25349395"]))
    assert server.requests[-2].url.path == "/works/pmid:25349395"
    assert ref_out.total == len(refs)


def test_a_seed_answered_by_another_work_is_refused(settings: Settings) -> None:
    from litdesk.services.citations import CitationFetchFailed

    server = Server({"W1": seed("W2", ["W5"])})
    with pytest.raises(CitationFetchFailed, match="another work"):
        run(settings, server, lambda s: s.discover("references", ["W1"]))


@hyp_settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(min_value=1, max_value=30).map(lambda i: f"W{i}"), max_size=25),
        min_size=2,
        max_size=5,
    )
)
def test_rank_shared_properties(lists: list[list[str]]) -> None:
    ranked = rank_shared(lists)
    ids = [w for w, _ in ranked]
    assert len(ids) == len(set(ids))
    for w, n in ranked:
        assert n == sum(1 for ids_ in lists if w in ids_) and n >= 2
    assert [n for _, n in ranked] == sorted((n for _, n in ranked), reverse=True)
    everything = {w for ids_ in lists for w in ids_}
    missing = everything - set(ids)
    assert all(sum(1 for ids_ in lists if w in ids_) == 1 for w in missing)


@hyp_settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_seed_key_is_total(text: str) -> None:
    try:
        kind, key = seed_key(text)
    except SeedError:
        return
    assert kind in {"work", "doi", "pmid", "pmcid"}
    try:
        request = work_request(key)
    except SeedError:
        return
    check_request(request)  # the transport accepts every request we build


def test_doi_with_a_query_character_is_refused_before_sending() -> None:
    with pytest.raises(SeedError):
        work_request("doi:10.1234/a?b=c")
