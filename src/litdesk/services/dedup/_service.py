"""Deduplicate the records of one or more export files.

Reads the files through the import service (every refusal reported beside the
successes), runs the two-stage deduplication of :mod:`litdesk.core.dedup` and
describes every group and candidate pair by *record references*: the file, the
0-based position of the record in that file and the record's own id there. Reviewer
decisions are keyed by the raw-record digests of the two records, so they survive
re-imports and re-orderings, can be saved to a JSON file and reversed by editing it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.adapters.files import read_bounded, write_output
from litdesk.core.dedup import DEDUP_VERSION, RULES, Decision, DedupResult, Pair, deduplicate
from litdesk.core.fusion import Sighting, canonical_order, merge_records
from litdesk.core.imports import RecordTrace
from litdesk.core.records import Paper
from litdesk.services.imports import ImportBatch, RefusedFile, import_files

from ._suggestions import Suggestion, alt_titles, duplicate_suggestions

__all__ = [
    "DECISIONS_VERSION",
    "DedupReport",
    "MergedRecord",
    "RecordRef",
    "Reviewer",
    "SourceRecord",
    "SuggestedDuplicate",
    "VersionLink",
    "dedup_batch",
    "dedup_files",
    "dedup_records",
    "load_decisions",
    "save_decisions",
]

DECISIONS_VERSION: Final = 1
_VERSION_COLUMNS: Final = (
    "relation",
    "primary_file",
    "primary_index",
    "primary_id",
    "primary_title",
    "version_file",
    "version_index",
    "version_id",
    "version_title",
    "reason",
)
MAX_DECISIONS_BYTES: Final = 20_000_000

#: Asked for each pair in the uncertain band: ``(pair, ref_a, paper_a, ref_b, paper_b)``
#: → ``"merge"``, ``"distinct"`` or ``None`` (skip: stays waiting).
Reviewer = Callable[[Pair, "RecordRef", Paper, "RecordRef", Paper], Decision | None]


@dataclass(frozen=True, slots=True)
class RecordRef:
    """Where a record came from: file, 0-based index in that file, its own id there."""

    file: str
    index: int
    source_id: str | None
    digest: str
    lines: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "index": self.index, "source_id": self.source_id}


@dataclass(frozen=True, slots=True)
class VersionLink:
    """A "version of" link by record references: both records kept, ``primary`` screened
    by default."""

    primary: RecordRef
    version: RecordRef
    #: preprint ↔ published, meeting abstract ↔ full paper, correction notice ↔ article
    relation: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "primary": self.primary.to_dict(),
            "version": self.version.to_dict(),
            "relation": self.relation,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class SuggestedDuplicate:
    """Another tool's duplicate flag on ``record`` (of ``of``, when it names one) with
    litdesk's own verdict on it."""

    record: RecordRef
    of: RecordRef | None
    #: the tool and the field that carried the flag (``EndNote: caption 'Duplicate'``)
    source: str
    value: str
    #: ``same group`` / ``different groups`` (a named record), else ``in a group`` / ``single``
    litdesk: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "record": self.record.to_dict(),
            "of": self.of.to_dict() if self.of is not None else None,
            "source": self.source,
            "value": self.value,
            "litdesk": self.litdesk,
        }


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """One source record of a merged record, with its place in its file."""

    ref: RecordRef

    def to_dict(self) -> dict[str, Any]:
        return {**self.ref.to_dict(), "lines": list(self.ref.lines), "digest": self.ref.digest}


@dataclass(frozen=True, slots=True)
class MergedRecord:
    """One group's merged record with every source record it was merged from."""

    paper: Paper
    sources: tuple[SourceRecord, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"paper": self.paper.to_dict(), "sources": [s.to_dict() for s in self.sources]}


@dataclass(slots=True)
class DedupReport:
    refs: list[RecordRef]
    papers: list[Paper]
    result: DedupResult
    refused: list[RefusedFile]
    decisions: dict[tuple[str, str], Decision] = field(default_factory=dict)
    #: other tools' duplicate flags found in the files: suggestions, never merges
    suggestions: list[Suggestion] = field(default_factory=list)

    def versions(self) -> list[VersionLink]:
        """The "version of" links (preprint ↔ published, meeting abstract ↔ full paper,
        correction notice ↔ article) by record references: both records kept, the
        ``primary`` one screened by default."""
        refs = self.refs
        return [
            VersionLink(refs[v.primary], refs[v.version], v.relation, v.reason)
            for v in self.result.versions
        ]

    def versions_csv(self) -> str:
        """The version links as CSV (one row per link; formula-safe cells): relation, the
        primary record's file, index, id and title, the version's, and the reason."""
        import csv
        import io

        from litdesk.adapters.formats import escape_cell

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow(_VERSION_COLUMNS)
        for v in self.result.versions:
            row: list[str] = [v.relation]
            for i in (v.primary, v.version):
                ref = self.refs[i]
                row += [ref.file, str(ref.index), ref.source_id or "", self.papers[i].title]
            w.writerow([escape_cell(c) for c in [*row, v.reason]])
        return buf.getvalue()

    def suggested(self) -> list[SuggestedDuplicate]:
        """Other tools' duplicate suggestions by record references, each with litdesk's own
        verdict: ``same group``, ``different groups`` (a named record) or, for a flag
        without a named record, ``in a group`` / ``single``."""
        refs = self.refs
        group_of = {i: k for k, g in enumerate(self.result.groups) for i in g}
        sizes = [len(g) for g in self.result.groups]
        out: list[SuggestedDuplicate] = []
        for s in self.suggestions:
            if s.of is not None:
                same = group_of.get(s.record) == group_of.get(s.of)
                verdict = "same group" if same else "different groups"
            else:
                verdict = "in a group" if sizes[group_of[s.record]] > 1 else "single"
            of = refs[s.of] if s.of is not None else None
            out.append(SuggestedDuplicate(refs[s.record], of, s.source, s.value, verdict))
        return out

    def duplicate_groups(self) -> list[list[int]]:
        return [g for g in self.result.groups if len(g) > 1]

    def merged_papers(self) -> list[Paper]:
        """One merged record per group (fields merged as fused search does: first
        non-empty title/journal/year/authors of the canonical order, longest abstract,
        union of types, identifiers)."""
        out: list[Paper] = []
        for g in self.result.groups:
            if len(g) == 1:
                out.append(self.papers[g[0]])
                continue
            sightings = [
                Sighting(lane=self.refs[i].file, provider="import", rank=self.refs[i].index + 1,
                         paper=self.papers[i])
                for i in g
            ]  # fmt: skip
            merged, _ = merge_records(canonical_order(sightings))
            out.append(merged)
        return out

    def merged_records(self) -> list[MergedRecord]:
        """Each group's merged record with every source record and its provenance."""
        papers = self.merged_papers()
        return [
            MergedRecord(papers[k], tuple(SourceRecord(self.refs[i]) for i in g))
            for k, g in enumerate(self.result.groups)
        ]

    def to_dict(self) -> dict[str, Any]:
        refs = self.refs
        return {
            "version": DEDUP_VERSION,
            "rules": dict(RULES),
            "counts": self.result.counts,
            "groups": [[refs[i].to_dict() for i in g] for g in self.result.groups],
            "pairs": [
                {
                    "a": refs[p.a].to_dict(),
                    "b": refs[p.b].to_dict(),
                    "score": round(p.score, 4),
                    "evidence": p.evidence,
                    "decision": p.decision,
                    "reason": p.reason,
                    "stage": p.stage,
                }
                for p in self.result.pairs
            ],
            "conflicts": [
                {**c.to_dict(), "members": [refs[i].to_dict() for i in c.members]}
                for c in self.result.conflicts
            ],
            "merged": [m.to_dict() for m in self.merged_records()],
            "versions": [v.to_dict() for v in self.versions()],
            "suggestions": [s.to_dict() for s in self.suggested()],
            "refused": [r.to_dict() for r in self.refused],
        }


def _extras(batch: ImportBatch) -> tuple[dict[int, list[str]], list[Suggestion]]:
    """The records' other titles (by input index) and other tools' duplicate flags."""
    titles: dict[int, list[str]] = {}
    rows: list[tuple[str, str | None, Mapping[str, Sequence[str]]]] = []
    for trace in batch.imports:
        for rec in trace.records:
            if alts := alt_titles(rec.extras):
                titles[len(rows)] = alts
            rows.append((trace.source.path, rec.source_id, rec.extras))
    return titles, duplicate_suggestions(rows)


def _refs(batch: ImportBatch) -> tuple[list[RecordRef], list[Paper]]:
    refs: list[RecordRef] = []
    papers: list[Paper] = []
    for trace in batch.imports:
        rec: RecordTrace
        for i, rec in enumerate(trace.records):
            refs.append(
                RecordRef(
                    trace.source.path,
                    i,
                    rec.source_id,
                    rec.digest,
                    (rec.first_line, rec.last_line),
                )
            )
            papers.append(rec.paper)
    return refs, papers


def _key(a: RecordRef, b: RecordRef) -> tuple[str, str]:
    return (a.digest, b.digest) if a.digest <= b.digest else (b.digest, a.digest)


def dedup_batch(
    batch: ImportBatch,
    *,
    auto_only: bool = False,
    decisions: Mapping[tuple[str, str], Decision] | None = None,
    reviewer: Reviewer | None = None,
    merge_corrections: bool | None = None,
) -> DedupReport:
    """Deduplicate the records of an import batch (see :func:`dedup_files`)."""
    refs, papers = _refs(batch)
    titles, suggestions = _extras(batch)
    return dedup_records(
        refs, papers, titles=titles, suggestions=suggestions, refused=batch.refused,
        auto_only=auto_only, decisions=decisions, reviewer=reviewer,
        merge_corrections=merge_corrections,
    )  # fmt: skip


def dedup_records(
    refs: list[RecordRef],
    papers: list[Paper],
    *,
    titles: Mapping[int, Sequence[str]] | None = None,
    suggestions: Sequence[Suggestion] = (),
    refused: Sequence[RefusedFile] = (),
    auto_only: bool = False,
    decisions: Mapping[tuple[str, str], Decision] | None = None,
    reviewer: Reviewer | None = None,
    merge_corrections: bool | None = None,
) -> DedupReport:
    """Deduplicate records given by reference (files' records, a Study's records): the
    reviewer decisions keyed by the records' digests apply, ``reviewer`` is asked about
    each pair still waiting (unless ``auto_only``)."""
    known: dict[tuple[str, str], Decision] = dict(decisions or {})

    def by_index() -> dict[tuple[int, int], Decision]:
        out: dict[tuple[int, int], Decision] = {}
        index: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for p in result.pairs:
            index.setdefault(_key(refs[p.a], refs[p.b]), []).append((p.a, p.b))
        for k, decision in known.items():
            for pair in index.get(k, []):
                out[pair] = decision
        return out

    def run(reviewed: dict[tuple[int, int], Decision] | None = None) -> DedupResult:
        return deduplicate(
            papers,
            auto_only=reviewed is None,
            reviewed=reviewed,
            merge_corrections=merge_corrections,
            alt_titles=titles or {},
        )

    result = run()
    if not auto_only:
        if known:
            result = run(by_index())
        if reviewer is not None:
            asked = False
            for p in list(result.pairs):
                k = _key(refs[p.a], refs[p.b])
                if p.decision != "review" or k in known:
                    continue
                answer = reviewer(p, refs[p.a], papers[p.a], refs[p.b], papers[p.b])
                if answer is not None:
                    known[k] = answer
                    asked = True
            if asked:
                result = run(by_index())
    result.counts["suggested_duplicates"] = len(suggestions)
    return DedupReport(refs, papers, result, list(refused), known, list(suggestions))


def dedup_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    format: str | None = None,
    auto_only: bool = False,
    decisions: Mapping[tuple[str, str], Decision] | None = None,
    reviewer: Reviewer | None = None,
    merge_corrections: bool | None = None,
) -> DedupReport:
    """Import ``paths`` and deduplicate all their records together.

    ``decisions`` are earlier reviewer decisions keyed by the two records' digests;
    ``reviewer`` is asked about every pair still waiting in the uncertain band. With
    ``auto_only`` only automatic decisions apply. ``merge_corrections`` merges correction
    notices with the article they correct (default: ``RULES["merge_corrections"]``).
    """
    batch = import_files(paths, format=format)
    return dedup_batch(
        batch,
        auto_only=auto_only,
        decisions=decisions,
        reviewer=reviewer,
        merge_corrections=merge_corrections,
    )


def load_decisions(path: str | os.PathLike[str]) -> dict[tuple[str, str], Decision]:
    """Read reviewer decisions saved by :func:`save_decisions` (validated)."""
    p = Path(path)
    if not os.path.lexists(p):
        return {}
    raw = read_bounded(p, limit=MAX_DECISIONS_BYTES, label="the decisions file")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError(f"{p}: not a decisions file ({exc})", code="malformed") from None
    if not isinstance(data, dict) or data.get("version") != DECISIONS_VERSION:
        raise InputError(f"{p}: not a version-{DECISIONS_VERSION} decisions file", code="malformed")
    out: dict[tuple[str, str], Decision] = {}
    for item in data.get("decisions", []):
        if not isinstance(item, dict):
            raise InputError(f"{p}: a decision must be an object", code="malformed")
        a, b, d = item.get("a"), item.get("b"), item.get("decision")
        if not (isinstance(a, str) and isinstance(b, str) and d in ("merge", "distinct")):
            raise InputError(f"{p}: malformed decision {item!r:.120}", code="malformed")
        out[(a, b) if a <= b else (b, a)] = d
    return out


def save_decisions(
    path: str | os.PathLike[str], decisions: Mapping[tuple[str, str], Decision]
) -> None:
    """Write reviewer decisions (atomically) so a later run reuses or reverses them."""
    p = Path(path)
    doc = {
        "version": DECISIONS_VERSION,
        "decisions": [{"a": a, "b": b, "decision": d} for (a, b), d in sorted(decisions.items())],
    }
    # the decisions file is updated in place (force); never a FIFO, device or folder
    write_output(p, json.dumps(doc, indent=2) + "\n", force=True)
