"""Citation discovery over OpenAlex: references, citing works, related works and the
references shared by 2–5 papers ("referenced by n of m").

Every OpenAlex call — the singleton seed lookups included (known defect 5 of the
reference system) — goes through the transport, which reserves it once in the store's
daily allowance before sending (fail closed). Pages hold 20 works, up to page 100.
OpenAlex citation records can be incomplete: an empty result does not show that no
relevant papers exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from litdesk._errors import ExternalError, InputError, NotFoundError
from litdesk.adapters.providers import (
    MAX_LINKS,
    ProviderParseError,
    parse_openalex_links,
    parse_response,
)
from litdesk.core.records import Paper
from litdesk.core.search import CompiledRequest, ParseFn
from litdesk.services.fulltext import Fetcher

from ._requests import (
    MAX_PAGE,
    PER_PAGE,
    citing_request,
    seed_key,
    work_request,
    works_by_id_request,
)

__all__ = [
    "INCOMPLETE_NOTICE",
    "MAX_IDS_PER_SEED",
    "MODES",
    "OPENALEX_KEY_NEEDED",
    "CitationArgumentError",
    "CitationFetchFailed",
    "CitationResult",
    "CitationService",
    "Mode",
    "Seed",
    "rank_shared",
]

Mode = Literal["references", "citing", "related", "shared"]
MODES: Final[tuple[Mode, ...]] = ("references", "citing", "related", "shared")
#: Ids read per seed from referenced_works / related_works; longer lists set truncated.
MAX_IDS_PER_SEED: Final = MAX_LINKS
#: Results reachable by paging (20 per page, up to page 100).
MAX_REACHABLE: Final = PER_PAGE * MAX_PAGE
OPENALEX_KEY_NEEDED: Final = (
    "citation discovery uses OpenAlex, which requires an API key (free): create one at "
    "https://openalex.org/settings/api and set LITDESK_OPENALEX_API_KEY; nothing was sent"
)
INCOMPLETE_NOTICE: Final = (
    "OpenAlex citation records can be incomplete; an empty result does not show that no "
    "relevant papers exist."
)


class CitationArgumentError(InputError):
    """Wrong number of seeds, a repeated seed, or a page outside 1..100."""

    default_code = "citation_arguments"


class CitationFetchFailed(ExternalError):
    """OpenAlex answered with an error or an unreadable body."""

    default_code = "citation_fetch"


@dataclass(frozen=True, slots=True)
class Seed:
    """One resolved seed work."""

    query: str
    work: str
    title: str
    referenced: tuple[str, ...]
    related: tuple[str, ...]
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "work": self.work, "title": self.title}


@dataclass(slots=True)
class CitationResult:
    mode: Mode
    seeds: list[dict[str, Any]]
    page: int
    per_page: int
    total: int
    has_more: bool
    truncated: bool
    papers: list[Paper]
    shared_counts: dict[str, int]
    retrieved_at: str
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "seeds": self.seeds,
            "page": self.page,
            "per_page": self.per_page,
            "total": self.total,
            "has_more": self.has_more,
            "truncated": self.truncated,
            "papers": [p.to_dict() for p in self.papers],
            "shared_counts": dict(self.shared_counts),
            "retrieved_at": self.retrieved_at,
            "notices": list(self.notices),
        }


def rank_shared(lists: Sequence[Sequence[str]]) -> list[tuple[str, int]]:
    """Ids referenced by at least two of ``lists`` with their counts, by count (high
    first) and then first appearance (seed order, then list order)."""
    counts: dict[str, int] = {}
    for ids in lists:
        for w in dict.fromkeys(ids):  # a seed counts each id once
            counts[w] = counts.get(w, 0) + 1
    order = {w: i for i, w in enumerate(counts)}
    kept = [(w, n) for w, n in counts.items() if n >= 2]
    kept.sort(key=lambda item: (-item[1], order[item[0]]))
    return kept


class CitationService:
    def __init__(
        self,
        fetcher: Fetcher,
        *,
        parse: ParseFn = parse_response,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._fetcher = fetcher
        self._parse = parse
        self._now = now or (lambda: datetime.now(UTC))

    async def _send(self, request: CompiledRequest) -> tuple[int, bytes]:
        reply = await self._fetcher.fetch(request)
        return reply.status, reply.body

    # -- seeds ----------------------------------------------------------------------

    async def resolve_seed(self, text: str) -> Seed:
        _kind, key = seed_key(text)
        request = work_request(key)
        status, body = await self._send(request)
        if status == 404:
            raise NotFoundError(f"OpenAlex has no work for {text[:80]!r}", code="seed_not_found")
        if status != 200:
            raise CitationFetchFailed(f"OpenAlex lookup of {key[:80]} failed (HTTP {status})")
        try:
            links = parse_openalex_links(body, max_ids=MAX_IDS_PER_SEED)
        except ProviderParseError as exc:
            raise CitationFetchFailed(f"OpenAlex answered {key[:80]} with {exc.reason}") from None
        if _kind == "work" and links.work != key:
            raise CitationFetchFailed(f"OpenAlex answered {key} with another work ({links.work})")
        return Seed(
            query=text,
            work=links.work,
            title=links.title,
            referenced=links.referenced,
            related=links.related,
            truncated=links.truncated,
        )

    # -- discovery --------------------------------------------------------------------

    async def discover(self, mode: Mode, seeds: Sequence[str], *, page: int = 1) -> CitationResult:
        if mode not in MODES:
            raise CitationArgumentError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= MAX_PAGE:
            raise CitationArgumentError(f"page must be an integer from 1 to {MAX_PAGE}")
        distinct = list(dict.fromkeys(s.strip() for s in seeds if s and s.strip()))
        if mode == "shared":
            if not 2 <= len(distinct) <= 5 or len(distinct) != len(seeds):
                raise CitationArgumentError("shared references need 2 to 5 distinct papers")
        elif len(seeds) != 1 or len(distinct) != 1:
            raise CitationArgumentError(f"{mode} takes exactly one paper")
        if mode == "citing":
            return await self._citing(distinct[0], page)
        resolved: list[Seed] = []
        for text in distinct:  # sequential: each is one metered call
            resolved.append(await self.resolve_seed(text))
        works = [s.work for s in resolved]
        if len(set(works)) != len(works):
            raise CitationArgumentError("two of the seeds are the same OpenAlex work")
        counts: dict[str, int] = {}
        if mode == "shared":
            ranked = rank_shared([s.referenced for s in resolved])
            ids = [w for w, _ in ranked]
            counts = dict(ranked)
        elif mode == "references":
            ids = list(resolved[0].referenced)
        else:
            ids = list(resolved[0].related)
        truncated = any(s.truncated for s in resolved) or len(ids) > MAX_REACHABLE
        start = (page - 1) * PER_PAGE
        chunk = ids[start : start + PER_PAGE]
        notices = [INCOMPLETE_NOTICE]
        papers: list[Paper] = []
        if chunk:
            papers, missing = await self._works(chunk)
            if missing:
                notices.append(
                    f"{len(missing)} of {len(chunk)} works on this page were not returned "
                    f"by OpenAlex: {', '.join(missing[:5])}" + ("…" if len(missing) > 5 else "")
                )
        return CitationResult(
            mode=mode,
            seeds=[s.to_dict() for s in resolved],
            page=page,
            per_page=PER_PAGE,
            total=len(ids),
            has_more=page < MAX_PAGE and start + PER_PAGE < len(ids),
            truncated=truncated,
            papers=papers,
            shared_counts={p.openalex_id: counts[p.openalex_id] for p in papers if p.openalex_id}
            if mode == "shared"
            else {},
            retrieved_at=self._now().isoformat(timespec="seconds"),
            notices=notices,
        )

    async def _works(self, chunk: list[str]) -> tuple[list[Paper], list[str]]:
        request = works_by_id_request(chunk)
        status, body = await self._send(request)
        if status != 200:
            raise CitationFetchFailed(f"OpenAlex works lookup failed (HTTP {status})")
        page = self._parse("openalex", request, status, body)
        by_id = {p.openalex_id: p for p in page.papers if p.openalex_id}
        ordered = [by_id[w] for w in chunk if w in by_id]  # back to the ranked order
        missing = [w for w in chunk if w not in by_id]
        return ordered, missing

    async def _citing(self, text: str, page: int) -> CitationResult:
        kind, key = seed_key(text)
        if kind == "work":
            seed: dict[str, Any] = {"query": text, "work": key, "title": ""}
            work = key
        else:
            resolved = await self.resolve_seed(text)
            seed, work = resolved.to_dict(), resolved.work
        request = citing_request(work, page)
        status, body = await self._send(request)
        if status != 200:
            raise CitationFetchFailed(f"OpenAlex citing works failed (HTTP {status})")
        parsed = self._parse("openalex", request, status, body)
        total = parsed.total if parsed.total is not None else len(parsed.papers)
        notices = [INCOMPLETE_NOTICE, *parsed.warnings]
        return CitationResult(
            mode="citing",
            seeds=[seed],
            page=page,
            per_page=PER_PAGE,
            total=total,
            has_more=page < MAX_PAGE and page * PER_PAGE < total,
            truncated=total > MAX_REACHABLE,
            papers=list(parsed.papers),
            shared_counts={},
            retrieved_at=self._now().isoformat(timespec="seconds"),
            notices=notices,
        )
