"""The Study summary use cases: the packet and its consent notice, one guarded model call,
the verified draft kept in the store for review, and the reviewed draft saved as a Study
report (listed, re-checked on read, printable offline).

Drafts and reports are stored as assistance drafts (``assist_drafts``: feature
``summary`` for a draft, ``study_report`` for a saved report, always with their owner);
a report keeps the snapshots of the sources it cites, so every citation is re-checked on
read against exactly the text that was sent.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from litdesk._errors import IntegrityError, NotFoundError, RefusedError
from litdesk.adapters.store import (
    LOCAL_OWNER,
    Store,
    assist_get_draft,
    assist_insert_draft,
    assist_list_drafts,
    assist_mark_draft_saved,
    repo,
)
from litdesk.adapters.store import accounts as access
from litdesk.core.assist import ConsentNotice
from litdesk.core.summary import (
    SECTIONS,
    SUMMARY_SCHEMA,
    SUMMARY_SYSTEM,
    Focus,
    Packet,
    StudyReport,
    SummaryDraft,
    SummaryInputError,
    parse_summary,
    read_report,
    report_html,
)
from litdesk.core.words import plural

from ._call import Assistant, CallRecord, ModelCall
from ._packet import study_packet

__all__ = [
    "DRAFT_FEATURE",
    "FEATURE",
    "REPORT_FEATURE",
    "ReportListing",
    "SummaryView",
    "report_file",
    "save_report",
    "study_reports",
    "summarise_study",
    "summary_call",
    "summary_notice",
]

FEATURE: Final = "summary"
DRAFT_FEATURE: Final = "summary"
REPORT_FEATURE: Final = "study_report"
MAX_TOKENS: Final = 5_500
MAX_ANSWER_CHARS: Final = 100_000
MAX_REPORTS_LISTED: Final = 200


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def summary_call(packet: Packet, focus: Focus) -> ModelCall:
    return ModelCall(
        feature=FEATURE,
        system=SUMMARY_SYSTEM,
        user=packet.prompt(focus),
        schema=SUMMARY_SCHEMA,
        schema_name="study_summary",
        max_tokens=MAX_TOKENS,
        max_answer_chars=MAX_ANSWER_CHARS,
    )


def _packet(store: Store, study: str, deselected: Sequence[str], owner: str) -> Packet:
    return study_packet(store, study, owner=owner).select(list(deselected))


def summary_notice(
    assistant: Assistant,
    study: str,
    *,
    focus: Focus,
    deselected: Sequence[str] = (),
    owner: str = LOCAL_OWNER,
) -> tuple[Packet, ConsentNotice]:
    """The packet to be sent (after deselection, as ``owner`` sees the Study) and its
    consent notice."""
    packet = _packet(assistant.store, study, deselected, owner)
    return packet, assistant.notice(summary_call(packet, focus).user)


@dataclass(frozen=True, slots=True)
class SummaryView:
    """The verified draft awaiting review (stored under ``draft_id``)."""

    draft_id: str
    packet: Packet
    focus: Focus
    draft: SummaryDraft
    record: CallRecord

    def to_dict(self) -> dict[str, Any]:
        return self.draft.to_dict() | {
            "draft_id": self.draft_id,
            "study_id": self.packet.study_id,
            "focus": self.focus,
            "sources": [s.to_dict() for s in self.packet.sources],
            "omissions": list(self.packet.omissions),
            "record": self.record.to_dict(),
        }


async def summarise_study(
    assistant: Assistant,
    study: str,
    *,
    focus: Focus,
    deselected: Sequence[str] = (),
    owner: str,
    consent: str | None,
    key: str | None = None,
    draft_id: str | None = None,
) -> SummaryView:
    """One model call for the Study's packet after ``consent`` (the notice's token); the
    verified draft is stored for review (nothing is saved as a report yet). Raises
    :class:`~litdesk.core.summary.SummaryRefused` when no point survives. ``key``: the
    call's allowance key (a job's id); ``draft_id``: the draft's id (a job's own)."""
    packet = await asyncio.to_thread(_packet, assistant.store, study, deselected, owner)
    answer = await assistant.call(
        summary_call(packet, focus), owner=owner, consent=consent, key=key
    )
    draft = parse_summary(answer.text, packet)
    draft_id = draft_id or "sd_" + secrets.token_hex(12)
    data = {
        "study_id": packet.study_id,
        "title": packet.title,
        "focus": focus,
        "sources": [s.to_dict() for s in packet.sources],
        "omissions": list(packet.omissions),
        "draft": draft.to_dict(),
        "record": answer.record.to_dict(),
    }

    def keep() -> None:
        with assistant.store.write() as conn:
            assist_insert_draft(
                conn,
                draft_id,
                owner=owner,
                feature=DRAFT_FEATURE,
                paper_id=None,
                data=data,
                created_at=_now(),
            )

    await asyncio.to_thread(keep)
    return SummaryView(draft_id, packet, focus, draft, answer.record)


def _drop_refs(drop: Sequence[str]) -> set[tuple[str, int]]:
    out: set[tuple[str, int]] = set()
    for ref in drop:
        section, _, index = ref.partition(":")
        if section not in SECTIONS or not index.isdigit() or len(index) > 3:
            raise SummaryInputError(f"not a point reference: {ref[:40]!r}", code="point")
        out.add((section, int(index)))
    return out


def save_report(
    store: Store,
    study: str,
    draft_id: str,
    *,
    owner: str,
    reviewed: bool,
    drop: Sequence[str] = (),
) -> StudyReport:
    """Save the owner's reviewed draft (without the points named in ``drop``, e.g.
    ``"findings:2"``) as a Study report; every kept citation is checked again."""
    if not reviewed:
        raise RefusedError(
            "confirm that you reviewed the summary before saving it", code="not_reviewed"
        )
    dropped = _drop_refs(drop)
    report_id = "rep_" + secrets.token_hex(10)
    with store.write() as conn:
        row = assist_get_draft(conn, draft_id, owner=owner)
        if row.feature != DRAFT_FEATURE:
            raise NotFoundError(f"no summary draft {draft_id[:80]!r}", code="draft_not_found")
        if row.saved_as is not None:
            raise RefusedError(
                f"this draft was already saved as report {row.saved_as}", code="already_saved"
            )
        data = row.data
        study_row, _ = repo.study_with_role(conn, study, account=owner, need="write")
        if not isinstance(data, dict) or data.get("study_id") != study_row.id:
            raise NotFoundError(
                f"no summary draft {draft_id[:80]!r} in this Study", code="draft_not_found"
            )
        drafted = data["draft"]["sections"]
        for name, index in dropped:
            if index >= len(drafted[name]):
                raise SummaryInputError(f"the draft has no point {name}:{index}", code="point")
        sections: dict[str, list[dict[str, Any]]] = {
            name: [p for i, p in enumerate(drafted[name]) if (name, i) not in dropped]
            for name in SECTIONS
        }
        if not any(sections.values()):
            raise SummaryInputError("every point is left out: keep at least one", code="empty")
        cited = {c["source"] for pts in sections.values() for p in pts for c in p["citations"]}
        record = data["record"]
        stored = {
            "version": 1,
            "id": report_id,
            "study_id": study_row.id,
            "study_name": study_row.name,
            "focus": data["focus"],
            "created_at": _now(),
            "backend": record["backend"],
            "model": record["model"],
            "sections": sections,
            "sources": [s for s in data["sources"] if s["id"] in cited],
            "omissions": data["omissions"],
            "warnings": data["draft"]["warnings"]
            + [f"{plural(len(dropped), 'point')} left out by the reviewer"] * bool(dropped),
        }
        report = read_report(stored)  # validated and every citation re-checked
        assist_insert_draft(
            conn,
            report_id,
            owner=owner,
            feature=REPORT_FEATURE,
            paper_id=None,
            data=report.to_dict(),
            created_at=report.created_at,
        )
        if not assist_mark_draft_saved(conn, draft_id, report_id):  # a concurrent save
            raise RefusedError("this draft was already saved", code="already_saved")
        access.add_history(conn, study_row.id, owner, "report_saved", report_id, report.created_at)
    return report


@dataclass(frozen=True, slots=True)
class ReportListing:
    reports: tuple[StudyReport, ...]
    problems: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "reports": [
                {
                    "id": r.id,
                    "focus": r.focus,
                    "created_at": r.created_at,
                    "model": r.model,
                    "points": sum(len(r.sections[s]) for s in SECTIONS),
                }
                for r in self.reports
            ],
            "problems": list(self.problems),
        }


def study_reports(store: Store, study: str, *, owner: str) -> ReportListing:
    """The owner's saved reports of ``study``, each validated and re-checked on read."""
    out: list[StudyReport] = []
    problems: list[str] = []
    with store.read() as conn:
        study_row, _ = repo.study_with_role(conn, study, account=owner, need="read")
        study_id = study_row.id
        rows = assist_list_drafts(
            conn, owner=owner, feature=REPORT_FEATURE, limit=MAX_REPORTS_LISTED
        )
    for row in rows:
        if not isinstance(row.data, dict) or row.data.get("study_id") != study_id:
            continue
        try:
            out.append(read_report(row.data))
        except IntegrityError as exc:
            problems.append(f"report {row.id}: {exc.message}")
    return ReportListing(tuple(out), tuple(problems))


def report_file(store: Store, study: str, report_id: str, *, owner: str) -> tuple[str, str]:
    """``(filename, html)`` of one saved report of ``study`` (re-checked on read)."""
    with store.read() as conn:
        study_row, _ = repo.study_with_role(conn, study, account=owner, need="read")
        study_id = study_row.id
        row = assist_get_draft(conn, report_id, owner=owner)
    if row.feature != REPORT_FEATURE or not isinstance(row.data, dict):
        raise NotFoundError(f"no Study report {report_id[:80]!r}", code="report_not_found")
    if row.data.get("study_id") != study_id:
        raise NotFoundError(
            f"no Study report {report_id[:80]!r} in this Study", code="report_not_found"
        )
    report = read_report(row.data)
    return f"study-report-{report.id}.html", report_html(report)
