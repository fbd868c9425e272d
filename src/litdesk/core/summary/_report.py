"""A saved Study report (pure): its stored shape, the re-check on read, and the printable
offline HTML (its own ``default-src 'none'`` policy; every value escaped)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any, Final

from litdesk._errors import IntegrityError

from ._parse import SECTIONS, Citation, Point, Section, SummaryDraft, _check_citation
from ._sources import FOCUSES, Focus, Packet, Source, SourceKind

__all__ = ["REPORT_VERSION", "ReportInvalid", "StudyReport", "read_report", "report_html"]

REPORT_VERSION: Final = 1
_TITLES: Final[dict[Section, str]] = {
    "overview": "Overview",
    "findings": "Findings",
    "gaps": "Gaps",
    "next_steps": "Next steps",
}
_STYLE: Final = (
    "body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;"
    "color:#111}h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:1.6rem}"
    "blockquote{margin:.3rem 0 .3rem 1rem;color:#333;border-left:3px solid #999;"
    "padding-left:.6rem}.meta,.warn{color:#444;font-size:.9rem}"
    "pre{white-space:pre-wrap;font:inherit}@media print{body{margin:0}}"
)


class ReportInvalid(IntegrityError):
    """A stored Study report failed validation on read."""

    default_code = "report_invalid"


@dataclass(frozen=True, slots=True)
class StudyReport:
    """A reviewed summary as saved in a Study, with the sources it cites (snapshots)."""

    id: str
    study_id: str
    study_name: str
    focus: Focus
    created_at: str
    backend: str
    model: str
    sections: Mapping[Section, tuple[Point, ...]]
    sources: tuple[Source, ...]
    omissions: tuple[str, ...]
    warnings: tuple[str, ...]

    @classmethod
    def from_draft(
        cls,
        report_id: str,
        packet: Packet,
        draft: SummaryDraft,
        *,
        study_name: str,
        focus: Focus,
        created_at: str,
        backend: str,
        model: str,
    ) -> StudyReport:
        cited = {
            c.source for points in draft.sections.values() for p in points for c in p.citations
        }
        return cls(
            report_id,
            packet.study_id,
            study_name,
            focus,
            created_at,
            backend,
            model,
            draft.sections,
            tuple(s for s in packet.sources if s.id in cited),
            packet.omissions,
            draft.warnings,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "id": self.id,
            "study_id": self.study_id,
            "study_name": self.study_name,
            "focus": self.focus,
            "created_at": self.created_at,
            "backend": self.backend,
            "model": self.model,
            "sections": {k: [p.to_dict() for p in self.sections[k]] for k in SECTIONS},
            "sources": [s.to_dict() for s in self.sources],
            "omissions": list(self.omissions),
            "warnings": list(self.warnings),
        }


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ReportInvalid(f"stored Study report: {key} is not text")
    return value


_KINDS: Final = ("study", "paper", "note", "evidence", "search_run")


def _kind(data: Mapping[str, Any]) -> SourceKind:
    value = data.get("kind")
    for kind in _KINDS:
        if value == kind:
            return kind
    raise ReportInvalid("stored Study report: unknown source kind")


def read_report(data: object) -> StudyReport:
    """A stored report, validated, with every citation re-checked against the stored
    source snapshot (a failing one makes the whole record invalid)."""
    if not isinstance(data, dict) or data.get("version") != REPORT_VERSION:
        raise ReportInvalid("stored Study report has an unknown shape or version")
    try:
        sources = tuple(
            Source(
                _str(s, "id"),
                _kind(s),
                _str(s, "ref"),
                _str(s, "label"),
                _str(s, "text"),
                bool(s.get("shortened", False)),
            )
            for s in data["sources"]
        )
        sections: dict[Section, tuple[Point, ...]] = {}
        for name in SECTIONS:
            sections[name] = tuple(
                Point(
                    _str(p, "text"),
                    tuple(Citation(_str(c, "source"), _str(c, "quote")) for c in p["citations"]),
                )
                for p in data["sections"][name]
            )
        focus = _str(data, "focus")
        if focus not in FOCUSES:
            raise ReportInvalid("stored Study report: unknown focus")
        report = StudyReport(
            _str(data, "id"),
            _str(data, "study_id"),
            _str(data, "study_name"),
            focus,
            _str(data, "created_at"),
            _str(data, "backend"),
            _str(data, "model"),
            sections,
            sources,
            tuple(str(x) for x in data["omissions"]),
            tuple(str(x) for x in data["warnings"]),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ReportInvalid(f"stored Study report is malformed ({type(exc).__name__})") from exc
    by_id = {s.id: s for s in sources}
    for points in sections.values():
        for point in points:
            if not point.citations:
                raise ReportInvalid("stored Study report has a point without citations")
            for c in point.citations:
                why = _check_citation(c, by_id)
                if why is not None:
                    raise ReportInvalid(f"stored Study report: a point {why}")
    return report


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'"


def report_html(report: StudyReport) -> str:
    """The printable, self-contained report: no script, nothing fetched, every value
    escaped; its CSP is ``default-src 'none'`` plus the hash of its own style."""
    e = escape
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{e(_csp())}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>Study report · {e(report.study_name)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>Study report · {e(report.study_name)}</h1>",
        f'<p class="meta">Focus {e(report.focus)} · made {e(report.created_at)} by '
        f"{e(report.model)} ({e(report.backend)}). Model-written; every point below cites "
        "sources whose quotes litdesk found in them. Reviewed by the Study's owner before "
        "saving.</p>",
    ]
    for name in SECTIONS:
        out.append(f"<h2>{_TITLES[name]}</h2>")
        points = report.sections[name]
        if not points:
            out.append('<p class="meta">No verified point.</p>')
            continue
        out.append("<ol>")
        for p in points:
            out.append(f"<li><p>{e(p.text)}</p>")
            for c in p.citations:
                out.append(f"<blockquote>[{e(c.source)}] “{e(c.quote)}”</blockquote>")
            out.append("</li>")
        out.append("</ol>")
    out.append("<h2>Sources cited</h2><dl>")
    for s in report.sources:
        out.append(f"<dt>{e(s.id)} · {e(s.label)}</dt><dd><pre>{e(s.text)}</pre></dd>")
    out.append("</dl>")
    if report.omissions or report.warnings:
        out.append("<h2>Coverage</h2><ul>")
        out.extend(f'<li class="warn">{e(w)}</li>' for w in report.omissions + report.warnings)
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
