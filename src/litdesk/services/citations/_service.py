"""Citation discovery over OpenAlex: references, citing works, related works and the
references shared by 2–5 papers ("referenced by n of m").

Every OpenAlex call — the singleton seed lookups included (known defect 5 of the
reference system) — goes through the transport, which meters it against the daily
allowance before sending; an optional extra allowance (the store's reservations) is
reserved first and refuses by raising (fail closed). Pages hold 20 works, up to page 100.
OpenAlex citation records can be incomplete: an empty result does not show that no
relevant papers exist.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from litdesk._errors import ExternalError, InputError, NotFoundError
from litdesk.core.records import Paper, normalize_openalex_id
from litdesk.core.search import CompiledRequest
from litdesk.services.fulltext import Allowance, Fetcher, ParseFn

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
MAX_IDS_PER_SEED: Final = 2_000
#: Results reachable by paging (20 per page, up to page 100).
MAX_REACHABLE: Final = PER_PAGE * MAX_PAGE
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


def _default_parse() -> ParseFn:
    from litdesk.adapters.providers import parse_response

    return parse_response


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
        parse: ParseFn | None = None,
        allowance: Allowance | None = None,
        now: Any = None,
    ) -> None:
        self._fetcher = fetcher
        self._parse = parse
        self._allowance = allowance
        self._now = now or (lambda: datetime.now(UTC))

    def _parser(self) -> ParseFn:
        if self._parse is None:
            self._parse = _default_parse()
        return self._parse

    async def _send(self, request: CompiledRequest) -> tuple[int, bytes]:
        if self._allowance is not None:
            self._allowance.reserve(request.provider)  # raises to refuse: nothing is sent
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
            doc = json.loads(body)
        except ValueError:
            raise CitationFetchFailed(f"OpenAlex answered {key[:80]} with invalid JSON") from None
        if not isinstance(doc, dict):
            raise CitationFetchFailed(f"OpenAlex answered {key[:80]} with a non-object")
        work = normalize_openalex_id(doc.get("id"))
        if work is None:
            raise CitationFetchFailed(f"OpenAlex answered {key[:80]} without a work id")
        if _kind == "work" and work != key:
            raise CitationFetchFailed(f"OpenAlex answered {key} with another work ({work})")
        referenced, t1 = _ids(doc.get("referenced_works"))
        related, t2 = _ids(doc.get("related_works"))
        title = doc.get("title") or doc.get("display_name") or ""
        return Seed(
            query=text,
            work=work,
            title=" ".join(str(title).split())[:500],
            referenced=referenced,
            related=related,
            truncated=t1 or t2,
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
        page = self._parser()("openalex", request, status, body)
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
        parsed = self._parser()("openalex", request, status, body)
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


def _ids(value: object) -> tuple[tuple[str, ...], bool]:
    if not isinstance(value, list):
        return (), False
    out: list[str] = []
    for item in value:
        w = normalize_openalex_id(item) if isinstance(item, str) else None
        if w is not None and w not in out:
            out.append(w)
        if len(out) >= MAX_IDS_PER_SEED:
            return tuple(out), len(value) > MAX_IDS_PER_SEED
    return tuple(out), False
