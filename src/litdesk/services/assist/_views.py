"""The assist area's views: typed, each with ``to_dict()`` (JSON-ready). The views of
one feature live beside it (re-exported here): the evidence preview, draft, saved
evidence and provenance (:mod:`._extract`), the summary draft and report listing
(:mod:`._summary`), the strategy suggestion and build (:mod:`._strategy`,
:mod:`._strategy_build`), the model check (:mod:`._check`) and the job (:mod:`._jobs`)."""

from __future__ import annotations

from dataclasses import dataclass

from litdesk.core.assist import ConsentNotice
from litdesk.core.summary import Packet

from ._check import ModelCheck
from ._extract import AssistedEvidence, ExtractionPreview, ProvenanceView, SuggestionDraft
from ._jobs import AssistJob
from ._strategy import SuggestionView
from ._strategy_build import StrategyView
from ._summary import ReportListing, SummaryView

__all__ = [
    "AssistJob",
    "AssistedEvidence",
    "ExtractionPreview",
    "ModelCheck",
    "PaperProvenance",
    "ProvenanceView",
    "ReportFile",
    "ReportListing",
    "StrategyView",
    "SuggestionDraft",
    "SuggestionView",
    "SummaryNotice",
    "SummarySources",
    "SummaryView",
]


@dataclass(frozen=True, slots=True)
class PaperProvenance:
    """The assistance provenance of every assisted evidence record of a paper."""

    records: tuple[ProvenanceView, ...]

    def to_dict(self) -> dict[str, object]:
        return {"records": [p.to_dict() for p in self.records]}


@dataclass(frozen=True, slots=True)
class SummarySources:
    """The numbered sources a Study's summary would send, and whether (and where) a
    model is configured (``unavailable``: why not)."""

    packet: Packet
    host: str | None = None
    model: str | None = None
    backend: str | None = None
    unavailable: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = dict(self.packet.to_dict())
        if self.unavailable is not None:
            return out | {"available": False, "unavailable": self.unavailable}
        return out | {
            "available": True,
            "host": self.host,
            "model": self.model,
            "backend": self.backend,
        }


@dataclass(frozen=True, slots=True)
class SummaryNotice:
    """What a Study's summary sends, where, its token, and the packet's size."""

    notice: ConsentNotice
    packet: Packet

    def to_dict(self) -> dict[str, object]:
        return self.notice.to_dict() | {
            "sources": len(self.packet.sources),
            "omissions": list(self.packet.omissions),
        }


@dataclass(frozen=True, slots=True)
class ReportFile:
    """A saved Study report as printable offline HTML, with its file name."""

    filename: str
    html: str

    def to_dict(self) -> dict[str, object]:
        return {"filename": self.filename, "html": self.html}
