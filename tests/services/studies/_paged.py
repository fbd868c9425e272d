"""Paged provider answers for the whole-search tests and bench: Europe PMC's real cursor
walk (the shared fixtures' two pages of ``cancer``, pageSize 100) and a generated Europe
PMC search of any size (records ``{prefix}{n}`` with DOIs, 100 per page, cursors
``c{offset}``), served through ``httpx.MockTransport``."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx

EPMC_HOST = "www.ebi.ac.uk"


def _params(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}


class RealCancerPages:
    """The two real pages (cursor ``*`` and page 1's next cursor); any other cursor is a
    404 the test would see. Counts the requests it answered."""

    def __init__(self, fixtures: Path) -> None:
        folder = fixtures / "providers" / "europepmc"
        self.pages = [
            (folder / f"search-cancer-lite-pagesize100-page{n}.json").read_bytes() for n in (1, 2)
        ]
        self.first_next = json.loads(self.pages[0])["nextCursorMark"]
        self.calls: list[dict[str, str]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        params = _params(request)
        self.calls.append(params)
        cursor = params.get("cursorMark", "*")
        if request.url.host == EPMC_HOST and cursor == "*":
            return httpx.Response(200, content=self.pages[0])
        if request.url.host == EPMC_HOST and cursor == self.first_next:
            return httpx.Response(200, content=self.pages[1])
        return httpx.Response(404, content=b"{}")


#: First authors of the generated records: a search's records have many authors, so the
#: deduplication's author-and-year blocks stay small as in real searches (with one author
#: for all, 3,000 records made blocks of 100 and 148,500 candidate pairs, a third of the
#: whole-search tests' time).
_SURNAMES = (
    "Smith", "Okafor", "Nakamura", "García", "Müller", "Rossi", "Kim", "Dvořák", "Lefèvre",
    "O'Brien", "Nguyen", "Haddad", "Kowalski", "Andersen", "Silva", "Chen", "Ivanova",
    "Mensah", "Park", "Singh", "Cohen", "Murphy", "Yilmaz", "Novak", "Jansen", "Costa",
    "Larsen", "Petrov", "Tanaka", "Ali", "Moreau", "Schmidt", "Brown", "Ortiz", "Wang",
    "Fischer", "Kumar", "Lopez", "Eriksson", "Bianchi", "Adeyemi",
)  # fmt: skip


class GeneratedSearch:
    """A Europe PMC search of ``total`` records (``retracted``: ids marked retracted;
    ``delay``: seconds per page; ``gate``: an event each page waits for)."""

    def __init__(
        self,
        total: int,
        *,
        prefix: str = "gen",
        start: int = 0,
        retracted: frozenset[int] = frozenset(),
        delay: float = 0.0,
    ) -> None:
        self.total = total
        self.prefix = prefix
        self.start = start
        self.retracted = retracted
        self.delay = delay
        self.calls = 0
        self.lock = threading.Lock()

    def record(self, n: int) -> dict[str, object]:
        pmid = str(10_000_000 + n)
        out: dict[str, object] = {
            "id": pmid,
            "source": "MED",
            "pmid": pmid,
            "doi": f"10.5555/{self.prefix}.{n}",
            "title": f"Generated record {n} on malaria vaccines",
            "authorString": f"{_SURNAMES[n % len(_SURNAMES)]} J, Jones K.",
            "journalTitle": "J Gen",
            "pubYear": str(1990 + n % 30),
        }
        if n in self.retracted:
            out["pubTypeList"] = {"pubType": ["Retracted Publication", "Journal Article"]}
        return out

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.host != EPMC_HOST:
            return httpx.Response(404, content=b"{}")
        with self.lock:
            self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        params = _params(request)
        cursor = params.get("cursorMark", "*")
        offset = 0 if cursor == "*" else int(cursor[1:])
        size = int(params.get("pageSize", "25"))
        ids = range(offset, min(offset + size, self.total))
        body: dict[str, object] = {
            "version": "6.9",
            "hitCount": self.total,
            "request": {"cursorMark": cursor, "pageSize": size},
            "resultList": {"result": [self.record(self.start + n) for n in ids]},
        }
        if offset + size < self.total:
            body["nextCursorMark"] = f"c{offset + size}"
        return httpx.Response(200, content=json.dumps(body).encode())


CROSSREF_HOST = "api.crossref.org"


class GeneratedCrossref:
    """A Crossref search (``/works``, cursor paging) of records ``cr.{n}`` for ``n`` in
    ``own`` and, for ``n`` in ``shared``, the same DOIs as :class:`GeneratedSearch`'s
    records (a duplicate across the two databases); ``status``: every answer that HTTP
    status instead (503: Crossref down). Counts the requests it answered."""

    def __init__(
        self, own: range, shared: tuple[int, ...] = (), *, status: int = 200, prefix: str = "gen"
    ) -> None:
        self.own = own
        self.shared = shared
        self.status = status
        self.prefix = prefix
        self.calls = 0

    def items(self) -> list[dict[str, object]]:
        def item(doi: str, title: str, n: int) -> dict[str, object]:
            return {
                "DOI": doi,
                "title": [title],
                "author": [{"family": _SURNAMES[n % len(_SURNAMES)], "given": "J"}],
                "issued": {"date-parts": [[1990 + n % 30]]},
                "container-title": ["J Gen"],
                "type": "journal-article",
            }

        shared = [
            item(f"10.5555/{self.prefix}.{n}", f"Generated record {n} on malaria vaccines", n)
            for n in self.shared
        ]
        own = [
            item(f"10.6666/cr.{n}", f"Crossref-only malaria vaccine trial {n}", n) for n in self.own
        ]
        return shared + own

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.status != 200:
            return httpx.Response(self.status, content=b"<html>Service Unavailable</html>")
        params = _params(request)
        rows = int(params.get("rows", "20"))
        cursor = params.get("cursor", "*")
        offset = 0 if cursor == "*" else int(cursor[1:])
        items = self.items()
        page = items[offset : offset + rows]
        message: dict[str, object] = {"total-results": len(items), "items": page}
        message["next-cursor"] = f"k{offset + rows}" if page else cursor
        body = {"status": "ok", "message-type": "work-list", "message": message}
        return httpx.Response(200, content=json.dumps(body).encode())
