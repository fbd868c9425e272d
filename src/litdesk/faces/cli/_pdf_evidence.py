"""``litdesk evidence add --source pdf --page N``: evidence from a page of the paper's PDF,
through the reader's one service method (the web form and the JSON API call it too),
which checks the passage on that page of the paper's PDF in the library."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litdesk.services.app import App
    from litdesk.services.workspace import EvidenceView

__all__ = ["pdf_evidence"]


def pdf_evidence(
    paper: str,
    *,
    finding: str | None,
    passage: str,
    source: str,
    location: str | None,
    page: int | None,
    pdf: str | None,
    study: str | None,
    six: dict[str, str | None],
    values: Mapping[str, object],
    subjects: list[str],
) -> EvidenceView:
    """The record made (validated by :class:`EvidenceRequest`, then checked and kept by
    ``app.reader.record_evidence`` on one event loop)."""
    from litdesk.services.reader import EvidenceRequest

    from ._context import run_with_app

    request = EvidenceRequest(
        paper, finding=finding, passage=passage, source=source, location=location,
        study=study, values=values, subjects=tuple(subjects), page=page, pdf=pdf,
        question=six["question"], population=six["population"], method=six["method"],
        intervention=six["intervention"], limitations=six["limitations"],
    )  # fmt: skip

    async def work(app: App) -> EvidenceView:
        return (await app.reader.record_evidence(request, owner=app.owner)).record

    return run_with_app(work)
