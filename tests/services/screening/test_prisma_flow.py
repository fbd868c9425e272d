"""PRISMA 2020 computed from a Study's trace and screening decisions (issue 28): rounds of a
living review as their own column, duplicates removed per round, the full-text exclusions
one line per reason, decisions that no longer fit left out and said so, and the flow's
arithmetic on every test Study."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from litdesk.adapters.store import StudyRecordRow, whole_searches
from litdesk.core.screening import ConflictPolicy, DecisionHistory, Stage
from litdesk.services.dedup import WorkingGroup
from litdesk.services.screening._prisma import compute_flow, round_labels

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SINGLE: dict[Stage, ConflictPolicy] = {s: ConflictPolicy() for s in ("title_abstract", "full_text")}


def _row(key: str, kind: str, source: str, database: str, at: str = "2026-01-01") -> StudyRecordRow:
    return StudyRecordRow(key, kind, source, 0, "sha256:" + key, database, None, None,
                          {"paper": {"title": key}}, at)  # fmt: skip


def _group(*rows: StudyRecordRow) -> WorkingGroup:
    return WorkingGroup(rows[0].key, rows, False)


def assert_arithmetic(flow: object) -> None:
    from litdesk.core.screening import PrismaFlow

    assert isinstance(flow, PrismaFlow)
    for r in flow.rounds:
        d = r.to_dict()
        assert all(c["ok"] for c in d["checks"]), d["checks"]  # type: ignore[index]
        assert r.identified - r.removed_duplicates == len(r.to_screen)
        assert len(r.screened) - len(r.excluded_screening) == len(r.sought)
        assert len(r.sought) - len(r.not_retrieved) == len(r.assessed) + len(r.awaiting_full_text)
        assert len(r.assessed) - r.excluded_reports_total == len(r.included)


def test_rounds_are_columns_and_reasons_are_lines() -> None:
    rounds = [
        whole_searches.RoundRow("s", "run0", 0, "search", 100, None, "a", "2026-01-01", None),
        whole_searches.RoundRow("s", "run1", 1, "update", 100, None, "a", "2026-03-01", None),
    ]
    plan = round_labels(rounds)
    assert plan.labels == ["Initial search", "Update 1 (1 Mar 2026)"]
    groups = [
        _group(_row("a", "run", "run0", "PubMed"), _row("a2", "run", "run0", "OpenAlex"),
               _row("a3", "run", "run1", "PubMed")),  # a duplicate found again in round 1
        _group(_row("b", "import", "imp", "Import: x.ris (ris)")),
        _group(_row("c", "paper", "p1", "Added to the Study by hand")),
        _group(_row("d", "run", "run0", "ClinicalTrials.gov")),
        _group(_row("e", "run", "run1", "PubMed")),
        _group(_row("f", "run", "run1", "OpenAlex"), _row("f2", "run", "run1", "PubMed")),
    ]  # fmt: skip
    h = DecisionHistory()
    for n, (rec, verdict) in enumerate(
        [
            ("a", "include"),
            ("b", "include"),
            ("c", "maybe"),
            ("d", "exclude"),
            ("e", "include"),
            ("f", "include"),
        ]  # fmt: skip
    ):
        h.decide(rec, "ann", verdict, at=T0 + timedelta(minutes=n))  # type: ignore[arg-type]
    h.decide("a", "ann", "exclude", stage="full_text", at=T0, reason="wrong population")
    h.decide("b", "ann", "include", stage="full_text", at=T0)
    h.decide("e", "ann", "exclude", stage="full_text", at=T0, reason="wrong outcome")
    h.decide("f", "ann", "exclude", stage="full_text", at=T0, reason="wrong population")
    result = compute_flow(groups, history=h, policies=SINGLE, not_retrieved={"c"},
                          rounds=plan)  # fmt: skip
    flow = result.flow
    assert_arithmetic(flow)
    first, update = flow.rounds
    assert first.identified == 5 and first.removed_duplicates == 1
    assert update.identified == 4 and update.removed_duplicates == 2  # a3 and f2
    assert {s.kind for s in first.sources} == {"database", "register", "other"}
    assert first.identified_by("register") == 1 and first.identified_by("other") == 1
    assert first.not_retrieved == ("c",) and first.excluded_screening == ("d",)
    assert dict(first.excluded_reports) == {"wrong population": ("a",)}
    assert first.included == ("b",)
    assert dict(update.excluded_reports) == {"wrong outcome": ("e",), "wrong population": ("f",)}
    rows = dict(flow.rows())
    assert rows["  wrong population"] == [1, 1, 2]  # one line per reason, per round + total
    assert rows["Records identified"] == [5, 4, 9]
    assert "Update 1 (1 Mar 2026)" in flow.to_csv().splitlines()[0]
    assert not result.notes


def test_sources_joining_after_an_update_are_in_its_column() -> None:
    """An import, a kept run, a paper added by hand and a whole search added (an edited
    query) after the first update count in that update's column, not in the initial one
    (before: every source but an update run was the initial search's, so an earlier,
    possibly published, column grew after the update)."""
    rounds = [
        whole_searches.RoundRow("s", "run0", 0, "search", 100, None, "a", "2026-01-01T09:00:00+00:00", None),
        whole_searches.RoundRow("s", "run1", 1, "update", 100, None, "a", "2026-03-01T09:00:00.25+00:00", None),
        whole_searches.RoundRow("s", "edit", 1, "search", 100, None, "a", "2026-03-02T09:00:00+00:00", None),
    ]  # fmt: skip
    plan = round_labels(rounds)
    assert plan.labels == ["Initial search", "Update 1 (1 Mar 2026)"]
    before, after = "2026-02-01T10:00:00+00:00", "2026-03-05T10:00:00"  # naive: UTC
    same_second = "2026-03-01T09:00:00+00:00"  # an import's time (whole seconds) as it began
    groups = [
        _group(_row("a", "run", "run0", "PubMed", before)),
        _group(_row("b", "import", "imp0", "Import: x.ris (ris)", before)),
        _group(_row("c", "import", "imp1", "Import: y.ris (ris)", same_second)),
        _group(_row("d", "run", "kept", "OpenAlex", after)),  # a kept run, in no round
        _group(_row("e", "paper", "p1", "Added to the Study by hand", after)),
        _group(_row("f", "run", "edit", "Europe PMC", before)),  # its round says where
        _group(_row("g", "run", "run1", "PubMed", after), _row("g2", "import", "imp1", "Y", after)),
    ]  # fmt: skip
    flow = compute_flow(groups, history=DecisionHistory(), policies=SINGLE, rounds=plan).flow
    assert_arithmetic(flow)
    first, update = flow.rounds
    assert sorted(first.to_screen) == ["a", "b"] and first.identified == 2
    assert sorted(update.to_screen) == ["c", "d", "e", "f", "g"] and update.identified == 6


def test_decisions_that_no_longer_fit_are_left_out_and_said() -> None:
    groups = [_group(_row(k, "import", "imp", "Import: x.ris (ris)")) for k in "abc"]
    h = DecisionHistory()
    h.decide("a", "ann", "include", at=T0)
    h.decide("a", "ann", "exclude", stage="full_text", at=T0, reason="wrong comparator")
    h.decide("a", "ann", "exclude", at=T0 + timedelta(minutes=1))  # changed its mind
    h.decide("b", "ann", "include", at=T0)
    h.decide("gone", "ann", "include", at=T0)  # a record no longer in the working set
    result = compute_flow(groups, history=h, policies=SINGLE, not_retrieved={"c"})
    assert_arithmetic(result.flow)
    (r,) = result.flow.rounds
    assert r.excluded_reports == () and r.excluded_screening == ("a",)
    assert r.awaiting_full_text == ("b",) and r.awaiting_screening == ("c",)
    assert len(result.notes) == 3


def test_dual_review_counts_only_settled_records() -> None:
    groups = [_group(_row(k, "import", "imp", "Import: x.ris (ris)")) for k in "abc"]
    h = DecisionHistory()
    h.decide("a", "ann", "include", at=T0)
    h.decide("a", "bob", "exclude", at=T0)  # conflict: not screened yet
    h.decide("b", "ann", "include", at=T0)  # one of two: pending
    h.decide("c", "ann", "exclude", at=T0)
    h.decide("c", "bob", "exclude", at=T0)
    dual = {**SINGLE, "title_abstract": ConflictPolicy(reviewers_required=2)}
    (r,) = compute_flow(groups, history=h, policies=dual).flow.rounds
    assert r.screened == ("c",) and r.excluded_screening == ("c",)
    h.resolve("a", "owner", "include", at=T0)
    (r,) = compute_flow(groups, history=h, policies=dual).flow.rounds
    assert set(r.screened) == {"a", "c"} and r.sought == ("a",)


def test_the_record_kept_is_the_one_added_first_in_its_round() -> None:
    # the working set may list an import's record first; the search run added before it
    # keeps its record, and the import's is the duplicate (times as the store writes them:
    # imports in whole seconds, runs with microseconds)
    run = _row("r", "run", "run0", "PubMed", at="2026-01-01T10:00:00.500000+00:00")
    imp = _row("i", "import", "imp", "Import: x.ris (ris)", at="2026-01-01T10:05:00+00:00")
    late_run = _row("q", "run", "run0", "PubMed", at="2026-01-01T10:05:00.250000+00:00")
    early_imp = _row("j", "import", "imp", "Import: x.ris (ris)", at="2026-01-01T10:05:00+00:00")
    result = compute_flow(
        [_group(imp, run), _group(late_run, early_imp)], history=DecisionHistory(), policies=SINGLE
    )
    (found,) = result.identified
    dup = {f.row.key: f.duplicate_of for f in found}
    assert dup == {"r": None, "i": "r", "j": None, "q": "j"}
    assert_arithmetic(result.flow)
