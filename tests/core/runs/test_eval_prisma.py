"""Evaluation metrics against hand-computed values; freezing; PRISMA-S numbers and
escaping."""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from runs_helpers import discovery_run, paper

from litdesk._errors import InputError
from litdesk.core.runs import (
    EvalInputError,
    FrozenHit,
    FrozenRun,
    ImportSource,
    Judgment,
    build_prisma,
    evaluate,
    freeze_run,
    prisma_html,
    prisma_markdown,
    read_frozen_runs,
    read_judgments,
    score_run,
)


def _run(ids, conflicted=()):
    return FrozenRun(
        "case1",
        "discovery",
        "bounded-discovery",
        (("europepmc-keyword", "ok"),),
        tuple(FrozenHit(i, (f"doi:10.1/{i}",), i in conflicted) for i in ids),
    )


def test_precision_and_ndcg_hand_computed():
    run = _run(["a", "b", "c"])
    j = Judgment({"a": 3, "b": 0, "c": 1, "d": 2})
    s = score_run(run, j, 3)
    assert s.precision == pytest.approx(2 / 3)
    dcg = (2**3 - 1) / math.log2(2) + 0 + (2**1 - 1) / math.log2(4)  # 7 + 0 + 0.5
    idcg = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert s.ndcg == pytest.approx(dcg / idcg)
    assert s.ndcg == pytest.approx(7.5 / (7 + 3 / math.log2(3) + 0.5))


def test_ungraded_window_is_unjudged_never_zero():
    run = _run(["a", "x", "c"])
    s = score_run(run, Judgment({"a": 0, "c": 0}), 3)
    assert s.precision is None and s.ndcg is None and not s.judged
    assert s.to_dict()["precision_at_k"] == "unjudged"
    # without judgments at all
    assert score_run(run, None, 3).to_dict()["ndcg_at_k"] == "unjudged"
    # graded by identity key instead of id
    keyed = score_run(run, Judgment({"a": 0, "doi:10.1/x": 2, "c": 0}), 3)
    assert keyed.precision == pytest.approx(1 / 3)


def test_known_item_recall_duplicates_conflicts():
    run = FrozenRun(
        "c",
        "keyword",
        "provider-order",
        (),
        (
            FrozenHit("a", ("doi:1",), False),
            FrozenHit("b", ("doi:1",), False),  # shares a key with a: a duplicate
            FrozenHit("c", (), True),
            FrozenHit("d", (), False),
        ),
    )
    s = score_run(run, Judgment({}, ("a", "d", "zz")), 3)
    assert s.recall == pytest.approx(1 / 3)  # d is outside the window of 3
    assert s.duplicate_rate == pytest.approx(1 / 3)
    assert s.conflict_rate == pytest.approx(1 / 3)


def test_evaluate_summary_counts_coverage():
    runs = [_run(["a"]), FrozenRun("case2", "", "", (), (FrozenHit("q", (), False),))]
    report = evaluate(runs, {"case1": Judgment({"a": 2})}, k=1)
    assert report.unjudged_runs == 1 and [s.case for s in report.scores] == ["case1", "case2"]
    doc = report.to_dict()
    assert doc["summary"]["precision_at_k"] == {"mean": 1.0, "covered": 1, "of": 2}
    assert doc["summary"]["unjudged_runs"] == 1
    assert [r["case"] for r in doc["runs"]] == ["case1", "case2"] and doc["k"] == 1


def test_freeze_has_no_query_text_and_reads_back():
    run = discovery_run()
    frozen = freeze_run(run).to_dict()
    text = json.dumps(frozen)
    assert "malaria" not in text  # neither the query nor the executed expressions
    assert [h["id"] for h in frozen["hits"]] == [h.paper.id for h in run.hits]
    back = read_frozen_runs({"runs": [frozen]})
    assert back[0].hits[0].keys and back[0].case == "run1"


def test_bad_eval_inputs_are_typed_errors():
    for bad in ({"runs": "x"}, [{"kind": "other"}], [{"kind": "litdesk-frozen-run", "version": 1}]):
        with pytest.raises(EvalInputError):
            read_frozen_runs(bad)
    for bad in (
        {},
        {"judgments": {"c": {"grades": {"a": -1}}}},
        {"judgments": {"c": {"grades": {"a": True}}}},
    ):
        with pytest.raises(EvalInputError):
            read_judgments(bad)


def test_prisma_numbers_from_runs_and_imports():
    run = discovery_run(3, 3)  # 6 lane records, 3 distinct after fusion
    imported = ImportSource(
        "imp1",
        "scopus.ris (ris)",
        "2026-11-30",
        (
            paper(doi="10.1000/p0", title="Paper 0"),  # duplicate of a run hit
            paper(doi="10.1000/new", title="Entirely different work on mosquitoes"),
        ),
    )
    report = build_prisma("Malaria review", [run], [imported])
    assert report.per_source == {"Europe PMC": 3, "OpenAlex": 3, "Import: scopus.ris (ris)": 2}
    assert report.identified == 8
    assert report.after_dedup == 4
    assert report.duplicates_removed == 4
    md = prisma_markdown(report)
    assert "Records after deduplication: 4" in md and '"malaria"' in md
    assert "| Europe PMC | Europe PMC, keyword search |" in md


def test_prisma_html_is_self_contained_and_escaped():
    run = discovery_run()
    report = build_prisma('<script>alert("x")</script>', [run], [])
    page = prisma_html(report)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<svg" in page and "Records after deduplication (n = 3)" in page
    assert not re.search(r"(src|href)=\"https?:", page)


def test_the_report_carries_the_whole_flow_and_refuses_an_active_drawing():
    report = build_prisma("Review", [discovery_run()], [])
    flow = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><text>Included (n = 2)</text></svg>'
    page = prisma_html(report, flow_svg=flow)
    assert "<h2>PRISMA 2020 flow diagram</h2><svg" in page and "<?xml" not in page
    assert "PRISMA 2020 identification" not in page  # the whole flow replaces it
    md = prisma_markdown(report, flow="| PRISMA 2020 | Total |\n|---|---:|\n")
    assert md.rstrip().endswith("## PRISMA 2020 flow\n\n| PRISMA 2020 | Total |\n|---|---:|")
    for active in (
        '<svg onload="alert(1)"></svg>',
        "<svg><script>alert(1)</script></svg>",
        '<svg><a href="https://example.org"><text>x</text></a></svg>',
        "<svg><foreignObject><p>x</p></foreignObject></svg>",
        "not a drawing",
    ):
        with pytest.raises(InputError):
            prisma_html(report, flow_svg=active)


@settings(max_examples=150, deadline=None)
@given(
    ids=st.lists(st.sampled_from("abcdefgh"), min_size=0, max_size=8, unique=True),
    grades=st.dictionaries(st.sampled_from("abcdefghij"), st.integers(0, 4), max_size=10),
    k=st.integers(1, 10),
)
def test_metric_bounds_property(ids, grades, k):
    s = score_run(_run(ids), Judgment(grades, tuple(grades)[:2]), k)
    window = ids[:k]
    if window and all(i in grades for i in window):
        assert s.judged and 0 <= s.precision <= 1
        assert s.ndcg is None or 0 <= s.ndcg <= 1 + 1e-9
    else:
        assert s.precision is None and s.ndcg is None  # unjudged, never 0
    if s.recall is not None:
        assert 0 <= s.recall <= 1


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    """Dates are read in the machine's local time: UTC here, so the words are known."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_prisma_report_dates_read_as_dates_with_the_time_where_a_day_has_two(utc):
    """PRISMA-S Markdown and HTML show "30 Nov 2026", not the stored ISO timestamp; two
    searches of one day carry their time so that they can be told apart (the lanes of
    one run are one search: one moment)."""
    morning = discovery_run(run_id="run1")
    afternoon = replace(discovery_run(run_id="run2"), retrieved_at="2026-11-30T15:30:09Z")
    later = replace(discovery_run(run_id="run3"), retrieved_at="2026-12-02T08:00:00+00:00")
    imported = ImportSource("imp1", "scopus.ris (ris)", "2026-12-01T09:12:44+00:00", ())
    report = build_prisma("Malaria review", [morning, afternoon, later], [imported])
    md = prisma_markdown(report)
    rows = [line for line in md.splitlines() if "| Europe PMC, keyword search |" in line]
    assert [r.split(" | ")[6] for r in rows] == [
        "30 Nov 2026, 10:00",
        "30 Nov 2026, 15:30",
        "2 Dec 2026",
    ], rows
    assert "| imp1 | scopus.ris (ris) | 1 Dec 2026 | 0 |" in md
    page = prisma_html(report)
    for text in (md, page):
        assert not re.search(r"\d{4}-\d\d-\d\dT", text), text  # no ISO timestamp left
    assert "<td>30 Nov 2026, 15:30</td>" in page and "<td>2 Dec 2026</td>" in page
    assert "<td>1 Dec 2026</td>" in page


def test_prisma_report_of_imports_only_says_no_database_searches():
    """A Study made of imports only: "Database searches" says None. in Markdown, as its
    imports section does when empty, not a table header with no rows (walk12)."""
    imported = ImportSource("imp1", "medline.ris (ris)", "2026-12-01T09:12:44+00:00", ())
    md = prisma_markdown(build_prisma("Imports only", [], [imported]))
    searches = md.split("## Database searches")[1].split("## Imported records")[0]
    assert searches.strip() == "None.", searches
    assert "| Round | Database |" not in md
