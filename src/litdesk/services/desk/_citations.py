"""The citation browser of the web workspace: references, citing works (newest first),
related works and the references shared by 2–5 papers, 20 per page, through the
app's citation service (OpenAlex, metered; the key-needed refusal comes from there)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from litdesk.services.citations import CitationResult, Mode

from ._desk import Desk

__all__ = ["CitationView", "citation_browser"]


@dataclass(frozen=True, slots=True)
class CitationView:
    """One page of citation discovery, with what the page needs to link on."""

    result: CitationResult
    ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = self.result.to_dict()
        data["ids"] = list(self.ids)
        data["seed_count"] = len(self.result.seeds)
        for paper in data["papers"]:  # "referenced by n of m" beside each shared reference
            paper["shared_by"] = data["shared_counts"].get(paper.get("openalex_id") or "")
        return data


async def citation_browser(
    desk: Desk, mode: Mode, ids: Sequence[str], *, page: int = 1
) -> CitationView:
    """One page of ``mode`` for ``ids`` (one paper; 2–5 for ``shared``)."""
    wanted = [i.strip() for i in ids if i.strip()]
    result = await desk.providers.citations(mode, wanted, page=page, owner=desk.owner)
    return CitationView(result, wanted)
