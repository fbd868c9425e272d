"""Europe PMC full text for a paper id: resolve the PMCID, fetch the JATS through the
transport, parse it with the licence gate and cache the parsed result on disk.

Paper ids: ``PMC-PMC…``/``PMC…`` (a PMCID), ``MED-…``/a PMID (a Europe PMC lookup
``EXT_ID:<pmid> AND SRC:MED`` supplies the PMCID), a DOI (Europe PMC ``DOI:"…"``
lookup) and ``OAX-W…``/``W…`` (one OpenAlex work lookup; its PMCID, else its PMID).
Every call goes through the transport, which checks the host and reserves it once in
the store's daily allowance before sending (the one meter).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from litdesk._errors import ExternalError, IntegrityError, NotFoundError, RefusedError
from litdesk.adapters.providers import MAX_FULLTEXT_BYTES, parse_response
from litdesk.core.fulltext import Block, FullText, FullTextMalformed, parse_fulltext
from litdesk.core.query import (
    EUROPE_PMC_REST,
    PaperIdError,
    doi_lookup_request,
    fulltext_request,
    openalex_work_request,
    pmid_lookup_request,
)
from litdesk.core.records import (
    Paper,
    detect_identifier,
    normalize_openalex_id,
    normalize_pmid,
    normalize_source_id,
)
from litdesk.core.search import CompiledRequest, ParseFn

from ._seams import Fetcher

__all__ = [
    "CACHE_MAX_AGE",
    "EUROPE_PMC_REST",
    "MAX_FULLTEXT_BYTES",
    "FullTextFetchFailed",
    "FullTextResult",
    "FullTextService",
    "NoFullText",
    "PaperIdError",
    "fulltext_request",
    "pmid_lookup_request",
]

CACHE_MAX_AGE: Final = timedelta(days=30)
CACHE_VERSION: Final = 1


class NoFullText(NotFoundError):
    """The paper has no PMCID, or Europe PMC has no full text for it."""

    default_code = "no_fulltext"


class FullTextFetchFailed(ExternalError):
    """Europe PMC or OpenAlex answered with an error."""

    default_code = "fulltext_fetch"


@dataclass(frozen=True, slots=True)
class FullTextResult:
    """A parsed full text with where and when it came from."""

    paper_id: str
    fulltext: FullText
    retrieved_at: str
    cached: bool

    def to_dict(self) -> dict[str, Any]:
        out = self.fulltext.to_dict()
        out["source_url"] = self.fulltext.source_url
        out["paper_id"] = self.paper_id
        out["retrieved_at"] = self.retrieved_at
        out["cached"] = self.cached
        return out


class FullTextService:
    """Resolve, fetch, parse and cache Europe PMC full text (async)."""

    def __init__(
        self,
        fetcher: Fetcher,
        *,
        cache_dir: Path | None,
        parse: ParseFn = parse_response,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._fetcher = fetcher
        self._cache_dir = cache_dir
        self._parse = parse
        self._now = now or (lambda: datetime.now(UTC))

    # -- sending ------------------------------------------------------------------

    async def _send(self, request: CompiledRequest) -> tuple[int, bytes]:
        reply = await self._fetcher.fetch(request)  # reserved once, in the transport
        return reply.status, reply.body

    # -- resolving ----------------------------------------------------------------

    async def resolve_pmcid(self, paper_id: str) -> str:
        """The PMCID of ``paper_id`` (looked up when the id is a PMID, DOI or OpenAlex id)."""
        kind, value = _classify(paper_id)
        if kind == "pmcid":
            return value
        if kind == "pmid":
            return await self._pmcid_for_pmid(value)
        if kind == "doi":
            return await self._pmcid_from_europepmc(
                doi_lookup_request(value), f"DOI {value}", lambda p: p.doi == value
            )
        return await self._pmcid_for_openalex(value)

    async def _pmcid_for_pmid(self, pmid: str) -> str:
        return await self._pmcid_from_europepmc(
            pmid_lookup_request(pmid), f"PMID {pmid}", lambda p: p.pmid == pmid
        )

    async def _pmcid_from_europepmc(
        self, request: CompiledRequest, label: str, match: Callable[[Paper], bool]
    ) -> str:
        status, body = await self._send(request)
        if status not in (200, 404):
            raise FullTextFetchFailed(f"Europe PMC lookup for {label} failed (HTTP {status})")
        page = self._parse("europepmc", request, status, body)
        same = [p for p in page.papers if match(p)]  # never another paper's PMCID
        for paper in same:
            if paper.pmcid:
                return paper.pmcid
        if not same:
            raise NoFullText(f"Europe PMC has no record for {label}")
        raise NoFullText(
            f"{label} has no PMCID at Europe PMC, so no licensed full text; "
            "its abstract and original link remain available"
        )

    async def _pmcid_for_openalex(self, work: str) -> str:
        request = openalex_work_request(work)
        status, body = await self._send(request)
        if status == 404:
            raise NoFullText(f"OpenAlex has no work {work}")
        if status != 200:
            raise FullTextFetchFailed(f"OpenAlex lookup for {work} failed (HTTP {status})")
        page = self._parse("openalex", request, status, body)
        same = [p for p in page.papers if p.openalex_id == work]
        if not same:
            raise NoFullText(f"OpenAlex has no work {work}")
        paper = same[0]
        if paper.pmcid:
            return paper.pmcid
        if paper.pmid:
            return await self._pmcid_for_pmid(paper.pmid)
        raise NoFullText(
            f"OpenAlex work {work} has no PMID or PMCID, so no Europe PMC full text; "
            "its abstract and original link remain available"
        )

    # -- fetching -----------------------------------------------------------------

    async def get(self, paper_id: str, *, refresh: bool = False) -> FullTextResult:
        """The full text of ``paper_id``, from the cache when fresh (unless ``refresh``)."""
        pmcid = await self.resolve_pmcid(paper_id)
        if not refresh:
            hit = self._cache_read(pmcid)
            if hit is not None:
                return FullTextResult(
                    paper_id=paper_id, fulltext=hit[0], retrieved_at=hit[1], cached=True
                )
        request = fulltext_request(pmcid)
        status, body = await self._send(request)
        if status == 404:
            raise NoFullText(
                f"Europe PMC has no full text for {pmcid}; read it at "
                f"https://europepmc.org/articles/{pmcid}"
            )
        if status != 200:
            hint = " (the service refused the Accept header)" if status == 406 else ""
            raise FullTextFetchFailed(
                f"Europe PMC full text for {pmcid} failed (HTTP {status}){hint}"
            )
        if len(body) > MAX_FULLTEXT_BYTES:
            raise RefusedError(
                f"the full text of {pmcid} is over {MAX_FULLTEXT_BYTES:,} bytes; not read",
                code="too_large",
            )
        try:
            ft = parse_fulltext(body, expected_pmcid=pmcid)
        except FullTextMalformed as exc:  # not the user's input: Europe PMC's answer
            raise FullTextFetchFailed(
                f"Europe PMC answered {pmcid} with a document that is not JATS: {exc.message}",
                code="bad_fulltext",
            ) from None
        retrieved_at = self._now().isoformat(timespec="seconds")
        self._cache_write(ft, retrieved_at)
        return FullTextResult(
            paper_id=paper_id, fulltext=ft, retrieved_at=retrieved_at, cached=False
        )

    # -- cache ----------------------------------------------------------------------

    def _cache_path(self, pmcid: str) -> Path | None:
        if self._cache_dir is None:
            return None
        return self._cache_dir / f"{pmcid}.json"

    def _cache_read(self, pmcid: str) -> tuple[FullText, str] | None:
        path = self._cache_path(pmcid)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            ft, when = _from_cache(data, pmcid)
        except (OSError, ValueError, IntegrityError):
            return None  # an unreadable or tampered entry is a miss; it is overwritten
        try:
            age = self._now() - datetime.fromisoformat(when)
        except (TypeError, ValueError):
            return None
        if age > CACHE_MAX_AGE or age < timedelta(0):
            return None
        return ft, when

    def _cache_write(self, ft: FullText, retrieved_at: str) -> None:
        path = self._cache_path(ft.pmcid or "")
        if path is None or not ft.pmcid:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": CACHE_VERSION, "retrieved_at": retrieved_at, **ft.to_dict()}
        data["source_url"] = ft.source_url
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".ft-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
        os.replace(tmp, path)


def _from_cache(data: object, pmcid: str) -> tuple[FullText, str]:
    def bad(why: str) -> IntegrityError:
        return IntegrityError(f"cached full text for {pmcid} is invalid: {why}", code="cache")

    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        raise bad("not a version-1 entry")
    if data.get("pmcid") != pmcid:
        raise bad("PMCID does not match")
    when = data.get("retrieved_at")
    title = data.get("title")
    readable = data.get("readable")
    truncated = data.get("truncated")
    blocks_raw = data.get("blocks")
    if not isinstance(when, str) or not isinstance(title, str):
        raise bad("retrieved_at/title")
    if not isinstance(readable, bool) or not isinstance(truncated, bool):
        raise bad("readable/truncated")
    if not isinstance(blocks_raw, list):
        raise bad("blocks")
    blocks: list[Block] = []
    for i, b in enumerate(blocks_raw, 1):
        if not isinstance(b, dict) or b.get("id") != f"p{i}":
            raise bad("block ids")
        section, text = b.get("section"), b.get("text")
        if not isinstance(section, str) or not isinstance(text, str) or not text:
            raise bad("block text")
        blocks.append(Block(id=f"p{i}", section=section, text=text))
    if blocks and not readable:
        raise bad("blocks for an unreadable article")

    def opt(name: str) -> str | None:
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise bad(name)
        return value

    source_url = opt("source_url")
    if source_url != f"https://europepmc.org/articles/{pmcid}":
        raise bad("source_url")
    ft = FullText(
        pmcid=pmcid,
        title=title,
        licence=opt("licence"),
        licence_url=opt("licence_url"),
        readable=readable,
        reason=opt("reason"),
        source_url=source_url,
        blocks=tuple(blocks),
        truncated=truncated,
    )
    return ft, when


def _classify(paper_id: str) -> tuple[str, str]:
    text = (paper_id or "").strip()
    if not text:
        raise PaperIdError("give a paper id (MED-…, PMC-…, a PMCID, PMID, DOI or OAX-W…)")
    source = normalize_source_id(text)
    if source is not None:
        prefix, acc = source.split("-", 1)
        if prefix == "PMC":
            return "pmcid", acc
        if prefix == "MED":
            return "pmid", acc
        if prefix == "OAX":
            return "openalex", acc
        raise PaperIdError(
            f"{source} is not a PubMed, PMC or OpenAlex record; full text needs a PMCID"
        )
    found = detect_identifier(text)
    if found is not None:
        kind, value = found
        if kind == "pmcid":
            return "pmcid", value
        if kind == "pmid" and (p := normalize_pmid(value)):
            return "pmid", p
        if kind == "doi":
            return "doi", value
        if kind == "openalex" and (w := normalize_openalex_id(value)):
            return "openalex", w
    raise PaperIdError(
        f"cannot read full text for {text[:80]!r}: give MED-…, PMC-…, a PMCID, PMID, DOI or OAX-W…"
    )
