"""Decisions in and out (issue 28), on a Study made from a real labelled set: rows matched to
the working set by DOI, PMID, key and title (a shared title matches nothing), unmatched rows
named by line, and the RIS export read back by litdesk's own RIS reader with its labels."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from litdesk import Settings
from litdesk.adapters.formats import loads
from litdesk.core.screening import DecisionHistory, parse_decisions
from litdesk.services.app import App, open_app
from litdesk.services.dedup import working_groups
from litdesk.services.screening._exchange import (
    RecordIndex,
    decisions_csv,
    decisions_ris,
    match_decisions,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest

OUD = "screening/synergy_Oud_2018/synergy_Oud_2018.csv"


def on_app(settings: Settings, body: Callable[[App], Any]) -> Any:
    async def go() -> Any:
        async with open_app(settings) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def subset(fixtures_dir: Path, tmp_path: Path, n: int) -> tuple[Path, list[dict[str, str]]]:
    """The first ``n`` rows of a labelled set as a file to import (written to tmp)."""
    with (fixtures_dir / OUD).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))[:n]
    path = tmp_path / "oud_subset.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["title", "abstract", "doi", "pmid", "year"])
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in ("title", "abstract", "doi", "pmid", "year")})
    return path, rows


def study_with(app: App, path: Path) -> str:
    sid = app.studies.create_study(CreateStudyRequest("Oud subset", None), owner=app.owner).id
    app.studies.import_files(ImportRequest(study=sid, paths=(str(path),)), owner=app.owner)
    return sid


def test_decisions_match_the_working_set_and_export_reads_back(
    tmp_settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> None:
    path, rows = subset(fixtures_dir, tmp_path, 60)

    def body(app: App) -> None:
        sid = study_with(app, path)
        groups = working_groups(app.store, sid)
        assert len(groups) >= 50
        index = RecordIndex(groups)
        # a decisions file in the labelled set's own columns, plus a row matching nothing
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["doi", "pmid", "title", "label_included"])
        for r in rows:
            w.writerow([r["doi"], r["pmid"], r["title"], r["label_included"]])
        w.writerow(["10.9999/not.in.study", "", "A title nobody wrote", "1"])
        parsed = parse_decisions(buf.getvalue())
        matched, unmatched = match_decisions(parsed, index)
        assert [u.line for u in unmatched] == [len(rows) + 2]  # header is line 1
        assert "10.9999/not.in.study" in unmatched[0].reason
        assert len(matched) == len(parsed.decisions) - 1
        keys = {g.key for g in groups}
        assert all(m.group in keys for m in matched)
        by_doi = sum(1 for m in matched if m.by == "doi")
        assert by_doi == sum(1 for r in rows if r["doi"].strip())  # DOI first when given
        # the same rows identified by the record key alone
        key_rows = "record_id,decision\n" + "".join(f"{g.key},exclude\n" for g in groups[:5])
        m2, u2 = match_decisions(parse_decisions(key_rows), index)
        assert [m.group for m in m2] == [g.key for g in groups[:5]] and not u2

        # outcomes from the matched decisions; the exports carry them
        from datetime import UTC, datetime

        h = DecisionHistory()
        for m in matched:
            h.decide(m.group, "ann", m.decision.verdict, at=datetime.now(UTC))
        outcomes = {o.record: o for o in h.outcomes("title_abstract", _single())}
        text = decisions_csv(groups, outcomes)
        back = parse_decisions(text)
        assert len(back.decisions) == len(outcomes)
        m3, u3 = match_decisions(back, index)
        assert not u3 and {m.group: m.decision.verdict for m in m3} == {
            k: o.verdict for k, o in outcomes.items()
        }
        ris = decisions_ris(groups, outcomes, "title_abstract")
        trace = loads(ris.encode("utf-8"), format="ris")
        assert len(trace.records) == len(groups)
        labels = []
        for rec in trace.records:
            notes = " ".join((rec.extras or {}).get("N1", []))
            labels.append(
                "include" if "ASReview_relevant" in notes
                else "exclude" if "ASReview_irrelevant" in notes else None
            )  # fmt: skip
        expected = [outcomes[g.key].verdict if g.key in outcomes else None for g in groups]
        assert labels == [v if v != "maybe" else None for v in expected]
        assert any(v == "include" for v in labels) and any(v == "exclude" for v in labels)
        # litdesk reads its own RIS export back: every decision, to the same record
        again = parse_decisions(ris)
        m4, u4 = match_decisions(again, index)
        assert again.format == "asreview" and not u4 and not again.problems
        assert {m.group: m.decision.verdict for m in m4} == {
            k: o.verdict for k, o in outcomes.items()
        }
        assert {m.by for m in m4} >= {"doi"}  # identifiers in the matcher's precedence

    on_app(tmp_settings, body)


def _single() -> Any:
    from litdesk.core.screening import ConflictPolicy

    return ConflictPolicy()


def test_a_title_shared_by_two_studies_matches_neither(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "two.csv"
    path.write_text(
        "title,doi,year\nEditorial,10.1000/a1,2001\nEditorial,10.1000/b2,2002\n"
        "Beta blockers in heart failure,,2003\n",
        encoding="utf-8",
    )

    def body(app: App) -> None:
        sid = study_with(app, path)
        index = RecordIndex(working_groups(app.store, sid))
        parsed = parse_decisions(
            "title,decision\nEditorial,include\nbeta-blockers in heart failure.,exclude\n"
        )
        matched, unmatched = match_decisions(parsed, index)
        assert [u.line for u in unmatched] == [2] and "shared" in unmatched[0].reason
        assert [m.by for m in matched] == ["title"]

    on_app(tmp_settings, body)
