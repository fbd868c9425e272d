"""The PRISMA-S search report and PRISMA 2020 identification numbers (pure).

Per database: the strategy exactly as run (the executed expression of each lane), the
filters and limits, the date and the records retrieved. Identification numbers come
from the runs and imports of a Study: records per source, duplicates removed (the
automatic decisions of ``litdesk.core.dedup`` over every retrieved and imported record,
with the Study's reviewer decisions in force on imported records applied over them),
records after deduplication. Rendered as Markdown and as one self-contained HTML page
(inline CSS, no scripts, a CSP meta tag, every value escaped) with an SVG flow diagram.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from litdesk._errors import InputError
from litdesk.core.providers import display_name, lane_label, provider_spec
from litdesk.core.records import Paper
from litdesk.core.words import dates, day, num, plural

from ._run import SearchRun

if TYPE_CHECKING:  # the deduplication (numpy) is imported when a report is built
    from litdesk.core.dedup import Decision

__all__ = [
    "DatabaseSearch",
    "Identification",
    "ImportSource",
    "PrismaReport",
    "SearchRound",
    "build_prisma",
    "round_label",
    "prisma_html",
    "prisma_markdown",
    "prisma_svg",
]


@dataclass(frozen=True, slots=True)
class DatabaseSearch:
    run_id: str
    database: str
    lane: str
    strategy: str
    filters: dict[str, Any]
    limit: int
    date: str
    status: str
    records: int
    provider_total: int | None
    #: the Study's search round the run belongs to: 0 its first whole searches, N its
    #: N-th update round; ``None`` for a saved run that is not a whole search
    round: int | None = None


#: a kind of source as the identification names it beside the source
_KIND_SHOWN: Final = {"register": "register", "other": "other method"}


def round_label(number: int | None) -> str:
    """A search round named for people: "first search", "update round 2", "saved run"."""
    if number is None:
        return "saved run"
    return "first search" if number == 0 else f"update round {number}"


@dataclass(frozen=True, slots=True)
class SearchRound:
    """One search round of a Study (a living review's first searches or an update round):
    when it ran, how many searches, the records they retrieved, and how many of those were
    new to the Study, already in it, changed or retracted since (as the round recorded)."""

    round: int
    date: str
    searches: int
    records: int
    new: int
    already_known: int
    changed: int = 0
    retracted_since: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "label": round_label(self.round),
            "date": self.date,
            "searches": self.searches,
            "records": self.records,
            "new": self.new,
            "already_known": self.already_known,
            "changed": self.changed,
            "retracted_since": self.retracted_since,
        }


@dataclass(frozen=True, slots=True)
class ImportSource:
    """An imported file: its label (file name and format), date, records and the source
    digest (``sha256:…`` of the file's bytes; the same file imported again is one source).
    ``record_digests`` (the raw records' digests, in the order of ``papers``; empty when not
    known) are what the Study's reviewer decisions are keyed by. ``source``: the source
    its records count under when the import names one ("Embase"; issue 28), else ``None``
    (counted as "Import: <label>")."""

    id: str
    label: str
    date: str
    papers: tuple[Paper, ...]
    digest: str | None = None
    record_digests: tuple[str, ...] = ()
    source: str | None = None

    @property
    def counted_as(self) -> str:
        """The source line its records are counted on."""
        return self.source or f"Import: {self.label}"

    @property
    def shown(self) -> str:
        """The import as its row names it: the source it counts under and its file."""
        return f"{self.source}: {self.label}" if self.source else self.label


@dataclass(frozen=True, slots=True)
class Identification:
    """A Study's identification counts from its records and working set (what the Study
    itself shows): records per source, in all, and studies after duplicates removed."""

    per_source: dict[str, int]
    identified: int
    after_dedup: int
    pending: int = 0  # records not deduplicated yet (each counted as its own study)


@dataclass(frozen=True, slots=True)
class PrismaReport:
    study: str
    searches: tuple[DatabaseSearch, ...]
    imports: tuple[tuple[str, str, str, int], ...]  # (id, label, date, records)
    per_source: dict[str, int]
    identified: int
    duplicates_removed: int
    after_dedup: int
    notes: tuple[str, ...]
    screened: int | None = None  # records screened: the working set's studies
    #: the Study's search rounds, each on its own (empty without whole searches)
    rounds: tuple[SearchRound, ...] = ()
    #: import id → the search round it joined the Study in (with ``rounds`` only)
    import_rounds: dict[str, int] = field(default_factory=dict)
    #: source → where PRISMA 2020 counts it (database, register, other; issue 28): a
    #: source not here is a database
    source_kinds: dict[str, str] = field(default_factory=dict)

    def source_line(self, name: str) -> str:
        """A source as the identification lists it: a register or another method says so."""
        kind = self.source_kinds.get(name, "database")
        return name if kind == "database" else f"{name} ({_KIND_SHOWN.get(kind, kind)})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "rounds": [r.to_dict() for r in self.rounds],
            "searches": [
                {
                    "round": s.round,
                    "round_label": round_label(s.round),
                    "run_id": s.run_id,
                    "database": s.database,
                    "lane": s.lane,
                    # the lane named for people ("Europe PMC, keyword search")
                    "lane_label": lane_label(s.lane),
                    "strategy": s.strategy,
                    "filters": s.filters,
                    "limit": s.limit,
                    "date": s.date,
                    "status": s.status,
                    "records": s.records,
                    "provider_total": s.provider_total,
                }
                for s in self.searches
            ],
            "imports": [
                {"id": i, "label": label, "date": d, "records": n}
                | (
                    {
                        "round": self.import_rounds[i],
                        "round_label": round_label(self.import_rounds[i]),
                    }
                    if i in self.import_rounds
                    else {}
                )
                for i, label, d, n in self.imports
            ],
            "identification": {
                "records_per_source": dict(self.per_source),
                "source_kinds": {k: self.source_kinds.get(k, "database") for k in self.per_source},
                "records_identified": self.identified,
                "duplicates_removed": self.duplicates_removed,
                "records_after_deduplication": self.after_dedup,
                "records_screened": self.after_dedup if self.screened is None else self.screened,
            },
            "notes": list(self.notes),
        }


def _lane_limit(run: SearchRun) -> int:
    """The records each database of ``run`` was asked for at most (a row's *Limit*): the
    run's candidate limit is the sum over its lanes (providers × ``--limit``, lanes × 50,
    a whole search's lanes × its cap), so one lane's is its share — before, every row of a
    six-database whole search capped at 50 said 300."""
    return run.candidate_limit // max(1, len(run.lanes))


def build_prisma(
    study: str,
    runs: Sequence[SearchRun],
    imports: Sequence[ImportSource],
    *,
    decisions: Mapping[tuple[str, str], Decision] | None = None,
    working_set: Identification | None = None,
    rounds: Mapping[str, int] | None = None,
) -> PrismaReport:
    """Count records per source and deduplicate everything the Study identified.

    ``decisions`` (the Study's reviewer decisions in force, keyed by the two raw records'
    digests, sorted) apply to imported records whose digests are known: a pair a reviewer
    merged counts as a duplicate removed, one kept separate does not; identifier rules are
    never overridden (that is :func:`litdesk.core.dedup.deduplicate`'s rule). The report
    notes how many reviewer decisions it applied.

    A run contributes the hits it kept (its lanes' records after identifier fusion are
    counted per lane as retrieved; cross-lane duplicates inside a run count as removed).
    An import of a file imported before (the same source digest) is listed but its records
    are not identified again; a note names it and the import it repeats.

    ``working_set`` (a Study's records and working set) gives the identification counts
    instead: the per-source and total records and the studies after duplicates removed
    are then the Study's own numbers (the sources are still listed from the runs and
    imports).

    ``rounds`` (run or import id → the Study's search round, as
    :meth:`litdesk.core.runs.StudyRounds.round_of` places it) tags each search and import
    with its round, so that a living review's rounds are reported each on its own (PRISMA-S
    item 13: every search with its own date).
    """
    searches: list[DatabaseSearch] = []
    per_source: dict[str, int] = {}
    papers: list[Paper] = []
    digests: list[str | None] = []
    notes: list[str] = []
    for run in runs:
        for lane in run.lanes:
            name = display_name(lane.provider)
            searches.append(
                DatabaseSearch(
                    run.id,
                    name,
                    lane.lane,
                    lane.executed_query,
                    run.definition.filters.to_dict(),
                    _lane_limit(run),
                    run.retrieved_at,
                    lane.status,
                    lane.returned if lane.status == "ok" else 0,
                    lane.total,
                    (rounds or {}).get(run.id),
                )
            )
            if lane.status == "ok":
                per_source[name] = per_source.get(name, 0) + lane.returned
        papers.extend(h.paper for h in run.hits)
        digests.extend(None for _ in run.hits)
        for expansion in run.definition.expansions:
            notes.append(
                f"run {run.id}: subject picked into the query from {expansion.vocabulary} "
                f"{expansion.id} ({'; '.join(expansion.terms)}); provenance only, "
                "each database ran the query shown"
            )
        if run.definition.filters.synonyms is not None:
            notes.append(
                f"run {run.id}: Europe PMC vocabulary expansion (synonyms) "
                f"{'on' if run.definition.filters.synonyms else 'off'} (synonym="
                f"{'TRUE' if run.definition.filters.synonyms else 'FALSE'})"
            )
        if run.reused_from:
            notes.append(f"run {run.id} reused the results of run {run.reused_from}")
    for provider in dict.fromkeys(lane.provider for run in runs for lane in run.lanes):
        terms = provider_spec(provider).terms
        if terms is not None:  # each database searched, with the terms its data came under
            notes.append(
                f"{display_name(provider)}: terms {terms.url} (read {day(terms.read)}); "
                f"data: {terms.data_licence}"
            )
    run_records = sum(per_source.values())
    fused_away = run_records - len(papers)
    rows: list[tuple[str, str, str, int]] = []
    first_of: dict[str, str] = {}
    for imp in imports:
        if imp.digest is not None:
            first = first_of.setdefault(imp.digest, imp.id)
            if first != imp.id:
                rows.append((imp.id, imp.shown, imp.date, 0))
                notes.append(
                    f"import {imp.id} ({imp.label}) is the same file as import {first}; "
                    f"not counted again: its {plural(len(imp.papers), 'record')}"
                )
                continue
        label = imp.counted_as  # several files of one source add up on its line
        per_source[label] = per_source.get(label, 0) + len(imp.papers)
        rows.append((imp.id, imp.shown, imp.date, len(imp.papers)))
        papers.extend(imp.papers)
        known = len(imp.record_digests) == len(imp.papers)
        digests.extend(imp.record_digests if known else (None for _ in imp.papers))
    identified = sum(per_source.values())
    import_rounds = {i: (rounds or {})[i] for i, *_ in rows if i in (rounds or {})}
    reviewed = _reviewed(digests, decisions or {})
    if reviewed:
        notes.append(
            f"{plural(len(reviewed), 'reviewer decision')} on imported records applied "
            f"({sum(1 for d in reviewed.values() if d == 'merge')} merged, "
            f"{sum(1 for d in reviewed.values() if d == 'distinct')} kept separate)"
        )
    if working_set is not None:
        if working_set.pending:
            notes.append(
                f"counted as studies of their own: {plural(working_set.pending, 'record')} "
                "not deduplicated yet"
            )
        return PrismaReport(
            study=study,
            searches=tuple(searches),
            imports=tuple(rows),
            per_source=dict(working_set.per_source),
            identified=working_set.identified,
            duplicates_removed=working_set.identified - working_set.after_dedup,
            after_dedup=working_set.after_dedup,
            notes=tuple(notes),
            screened=working_set.after_dedup,
            import_rounds=import_rounds,
        )
    from litdesk.core.dedup import deduplicate

    groups = deduplicate(papers, reviewed=reviewed).groups
    after = len(papers) - sum(len(g) - 1 for g in groups)
    if fused_away < 0:
        notes.append("some runs keep fewer lane records than they retrieved (older runs)")
    return PrismaReport(
        study=study,
        searches=tuple(searches),
        imports=tuple(rows),
        per_source=per_source,
        identified=identified,
        duplicates_removed=identified - after,
        after_dedup=after,
        notes=tuple(notes),
        import_rounds=import_rounds,
    )


def _reviewed(
    digests: Sequence[str | None], decisions: Mapping[tuple[str, str], Decision]
) -> dict[tuple[int, int], Decision]:
    """The reviewer decisions as pairs of positions (``a < b``) among the identified records."""
    if not decisions:
        return {}
    at: dict[str, list[int]] = {}
    for i, d in enumerate(digests):
        if d is not None:
            at.setdefault(d, []).append(i)
    out: dict[tuple[int, int], Decision] = {}
    for (a, b), decision in decisions.items():
        for i in at.get(a, ()):
            for j in at.get(b, ()):
                if i != j:
                    out[(min(i, j), max(i, j))] = decision
    return out


def _md(value: object) -> str:
    text = str(value).replace("\r", " ").replace("\n", " ")
    for ch in "\\`*_[]<>|":
        text = text.replace(ch, "\\" + ch)
    return text


def prisma_markdown(report: PrismaReport, *, flow: str | None = None) -> str:
    """The report as Markdown; ``flow``: the Study's PRISMA 2020 flow as a Markdown table
    (screening included), placed after the identification figures."""
    lines = [f"# PRISMA-S search report: {_md(report.study)}", ""]
    if report.rounds:
        lines += ["## Search rounds", "", _ROUNDS_NOTE, ""]
        lines += [
            "| Round | Date | Searches | Records retrieved | New to the Study "
            "| Already in the Study | Changed | Retracted since |",
            "|---|---|---|---|---|---|---|---|",
        ]
        shown = dates([r.date for r in report.rounds])
        lines += [
            "| " + " | ".join(_md(x) for x in _round_cells(r, d)) + " |"
            for r, d in zip(report.rounds, shown, strict=True)
        ]
        lines.append("")
    lines += ["## Database searches", ""]
    if report.searches:  # a header with no rows reads as a broken table
        lines.append(
            "| Round | Database | Lane | Strategy as run | Filters | Limit | Date | Status "
            "| Records |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|")
    else:
        lines.append("None.")
    searched = dates([s.date for s in report.searches])
    for s, when in zip(report.searches, searched, strict=True):
        filters = ", ".join(f"{k}={v}" for k, v in s.filters.items() if v not in (None, False))
        lines.append(
            "| "
            + " | ".join(
                _md(x)
                for x in (
                    round_label(s.round),
                    s.database,
                    lane_label(s.lane),
                    s.strategy or "(none)",
                    filters,
                    num(s.limit),
                    when,
                    s.status,
                    num(s.records),
                )
            )
            + " |"
        )
    lines += ["", "## Imported records", ""]
    if report.imports:
        head = ["Round"] * bool(report.rounds) + ["Import", "Source", "Date", "Records"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += [
            "| " + " | ".join(_md(x) for x in cells) + " |" for cells in _import_cells(report)
        ]
    else:
        lines.append("None.")
    lines += ["", "## PRISMA 2020 identification", ""]
    lines += [f"- {_md(report.source_line(k))}: {v}" for k, v in report.per_source.items()]
    lines += [
        f"- Records identified{_all_rounds(report)}: {report.identified}",
        f"- Duplicate records removed: {report.duplicates_removed}",
        f"- Records after deduplication: {report.after_dedup}",
        "",
        "Provider totals are reported per search and never added together.",
    ]
    lines += [f"- Note: {_md(n)}" for n in report.notes]
    if flow is not None:
        lines += ["", "## PRISMA 2020 flow", "", flow.rstrip("\n")]
    return "\n".join(lines) + "\n"


_ROUNDS_NOTE = (
    "Each round of the review is reported on its own: its searches below carry its round "
    "and their own date (PRISMA-S item 13). A round's figures are its whole searches'; a "
    "search run kept into the Study and an import are listed below in the round they joined "
    "(a round begun for imports alone has no whole search: its figures are 0)."
)


def _import_cells(report: PrismaReport) -> list[tuple[object, ...]]:
    """Each import's row: its round (when the report has rounds), id, source, date for
    people and records."""
    imported = dates([d for _, _, d, _ in report.imports])
    return [
        (round_label(report.import_rounds.get(i)),) * bool(report.rounds) + (i, label, d, n)
        for (i, label, _, n), d in zip(report.imports, imported, strict=True)
    ]


def _round_cells(r: SearchRound, date: str) -> tuple[object, ...]:
    """A round's row; ``date``: its date for people (:func:`litdesk.core.words.dates`)."""
    return (
        round_label(r.round),
        date,
        r.searches,
        r.records,
        r.new,
        r.already_known,
        r.changed,
        r.retracted_since,
    )


def _all_rounds(report: PrismaReport) -> str:
    n = len({r.round for r in report.rounds})
    return f" (all {n} rounds together)" if n > 1 else ""


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2rem;color:#111}"
    "table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #999;padding:4px 8px;"
    "vertical-align:top;text-align:left}code{white-space:pre-wrap;word-break:break-all}"
    # a narrow screen scrolls a wide table and scales the diagram, not the whole page
    "table{display:block;max-width:100%;overflow-x:auto}svg{max-width:100%;height:auto}"
    "li,p{overflow-wrap:anywhere}@media (max-width:600px){body{margin:1rem}}"
)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _svg(report: PrismaReport) -> str:
    sources = list(report.per_source.items())
    height = 60 + 18 * max(1, len(sources))
    box1 = [f"Records identified (n = {num(report.identified)})"] + [
        f"{report.source_line(name)}: {num(n)}" for name, n in sources
    ]
    text1 = "".join(
        f'<tspan x="20" dy="{18 if i else 0}">{_e(t)}</tspan>' for i, t in enumerate(box1)
    )
    y2 = height + 60
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="760" height="{y2 + 80}" '
        f'viewBox="0 0 760 {y2 + 80}" '
        'role="img" aria-label="PRISMA 2020 flow diagram, identification">'
        f'<rect x="10" y="10" width="420" height="{height}" fill="#fff" stroke="#000"/>'
        f'<text x="20" y="32" font-size="14">{text1}</text>'
        f'<rect x="480" y="10" width="270" height="60" fill="#fff" stroke="#000"/>'
        f'<text x="490" y="45" font-size="14">Duplicates removed (n = '
        f"{num(report.duplicates_removed)})</text>"
        f'<line x1="430" y1="40" x2="480" y2="40" stroke="#000"/>'
        f'<line x1="220" y1="{height + 10}" x2="220" y2="{y2}" stroke="#000"/>'
        f'<rect x="10" y="{y2}" width="420" height="60" fill="#fff" stroke="#000"/>'
        f'<text x="20" y="{y2 + 35}" font-size="14">Records after deduplication (n = '
        f"{num(report.after_dedup)})</text></svg>"
    )


def _inline(svg: str) -> str:
    """An SVG document as an element of the page (its XML declaration, if any, dropped);
    refused if it holds anything a page would run or fetch."""
    body = svg[svg.index("<svg") :] if "<svg" in svg else ""
    if not body or _ACTIVE.search(body):
        raise InputError("the flow diagram is not a plain SVG drawing", code="bad_svg")
    return body


#: what a page would run or fetch in an SVG: scripts, foreign HTML, event attributes, links
_ACTIVE: Final = re.compile(
    r"<\s*(?:script|foreignobject|a|image|use|iframe)\b|\son[a-z]+\s*=|javascript:|href\s*=",
    re.IGNORECASE,
)


def prisma_svg(report: PrismaReport) -> str:
    """The PRISMA 2020 identification flow diagram alone: one SVG document (every value
    escaped, no scripts, no links)."""
    return _svg(report)


def prisma_html(report: PrismaReport, *, flow_svg: str | None = None) -> str:
    """One self-contained page: inline CSS, no scripts, strict escaping, a CSP meta tag.
    ``flow_svg``: the Study's whole PRISMA 2020 flow diagram (litdesk's own SVG, every
    value escaped), shown instead of the identification-only diagram."""
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{x}</td>"
            for x in (
                _e(round_label(s.round)),
                _e(s.database),
                _e(lane_label(s.lane)),
                f"<code>{_e(s.strategy)}</code>",
                _e(", ".join(f"{k}={v}" for k, v in s.filters.items() if v not in (None, False))),
                _e(num(s.limit)),
                _e(when),
                _e(s.status),
                _e(num(s.records)),
            )
        )
        + "</tr>"
        for s, when in zip(report.searches, dates([s.date for s in report.searches]), strict=True)
    )
    imports = "".join(
        "<tr>" + "".join(f"<td>{_e(x)}</td>" for x in cells) + "</tr>"
        for cells in _import_cells(report)
    )
    notes = "".join(f"<li>{_e(n)}</li>" for n in report.notes)
    round_rows = "".join(
        "<tr>" + "".join(f"<td>{_e(x)}</td>" for x in _round_cells(r, d)) + "</tr>"
        for r, d in zip(report.rounds, dates([r.date for r in report.rounds]), strict=True)
    )
    rounds = (
        f"<h2>Search rounds</h2><p>{_e(_ROUNDS_NOTE)}</p><table><tr><th>Round</th>"
        "<th>Date</th><th>Searches</th><th>Records retrieved</th><th>New to the Study</th>"
        "<th>Already in the Study</th><th>Changed</th><th>Retracted since</th></tr>"
        f"{round_rows}</table>"
        if report.rounds
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>PRISMA-S search report: {_e(report.study)}</title><style>{_CSS}</style>"
        f"</head><body><h1>PRISMA-S search report: {_e(report.study)}</h1>{rounds}"
        "<h2>Database searches</h2><table><tr><th>Round</th><th>Database</th><th>Lane</th>"
        "<th>Strategy as run</th><th>Filters</th><th>Limit</th><th>Date</th><th>Status</th>"
        f"<th>Records</th></tr>{rows}</table>"
        "<h2>Imported records</h2><table><tr>"
        + "<th>Round</th>"
        * bool(report.rounds)
        + "<th>Import</th><th>Source</th><th>Date</th>"
        f"<th>Records</th></tr>{imports}</table>"
        + (
            f"<h2>PRISMA 2020 flow diagram</h2>{_inline(flow_svg)}"
            if flow_svg is not None
            else f"<h2>PRISMA 2020 identification</h2>{_svg(report)}"
        )
        + "<p>Provider totals are reported per search and never added together.</p>"
        f"<ul>{notes}</ul></body></html>\n"
    )
