"""The screening pages' pure helpers: keyword highlight segments (text only, bounded) and
the chart geometry of the recall curve and of agreement over time."""

from __future__ import annotations

import time

from litdesk.faces.web.routes._screen_view import (
    MAX_TERMS,
    agreement_chart,
    highlight,
    recall_chart,
    segments_of,
)


def test_highlight_marks_word_starts_case_insensitively() -> None:
    text = "Children with ASTHMA; grandchildren <b>asthma</b> in a Randomised Trial"
    segs = highlight(text, ["child", "asthma"], ["randomised trial", "asthma"])
    assert "".join(s["text"] or "" for s in segs) == text  # nothing lost or added
    marked = [(s["text"], s["mark"]) for s in segs if s["mark"]]
    # "grandchildren" does not start with "child"; exclude wins for a term in both lists
    assert marked == [
        ("Child", "include"),
        ("ASTHMA", "exclude"),
        ("asthma", "exclude"),
        ("Randomised Trial", "exclude"),
    ]
    assert highlight(None, ["a"], []) == [] and highlight("x", [], []) == [
        {"text": "x", "mark": None}
    ]


def test_highlight_prefers_the_longest_term_and_escapes_patterns() -> None:
    segs = highlight("a.b* c++ trial trials", ["trial", "trials", "a.b*", "c++"], [])
    assert [s["text"] for s in segs if s["mark"]] == ["a.b*", "c++", "trial", "trials"]
    assert highlight("axb", ["a.b"], [])[0]["mark"] is None  # a dot is a dot


def test_highlight_is_bounded_on_hostile_input() -> None:
    terms = [f"term{i}" for i in range(5 * MAX_TERMS)] + ["a" * 5_000]
    text = ("aaaa " * 40_000) + "term1"
    started = time.perf_counter()
    segs = highlight(text, terms, ["a" * 99 + "b"])
    assert time.perf_counter() - started < 2.0
    assert "".join(s["text"] or "" for s in segs) == text
    # only the first MAX_TERMS distinct terms are used, the text past MAX_TEXT is plain
    assert segs[-1]["mark"] is None


def test_segments_of_adds_title_and_abstract_segments() -> None:
    card = {
        "title": "Asthma in mice",
        "abstract": None,
        "highlight": {"include": ["asthma"], "exclude": ["mice"]},
    }
    out = segments_of(card)
    assert out["title_segments"][0] == {"text": "Asthma", "mark": "include"}
    assert out["abstract_segments"] == [] and out["marks"] == {"include": 1, "exclude": 1}


def test_recall_chart_keeps_the_steps_and_fits_its_box() -> None:
    found = 0
    curve = []
    for i in range(1, 2001):
        found += i % 97 == 0
        curve.append([i, found])
    chart = recall_chart(curve, 2072)
    points = [tuple(map(float, p.split(","))) for p in chart.lines[0][1].split()]
    assert len(points) <= 2 * found + 3  # corners only, not 2,000 points
    assert points[0] == (chart.left, chart.bottom)  # starts at (0, 0)
    assert all(chart.left <= x <= chart.right and chart.top <= y <= chart.bottom for x, y in points)
    assert points[-1][1] == chart.top  # the most includes at the top
    assert points[-1][0] < chart.right  # 2,000 of 2,072 decided: not at the right edge
    assert [label for _, label in chart.x_ticks] == ["0", "1,000", "2,000"]  # 1, 2 or 5 x 10^k
    assert recall_chart([], 10).lines == ()


def test_agreement_chart_one_line_per_pair_on_minus_one_to_one() -> None:
    chart = agreement_chart(
        {
            "ana and ben": [
                {"n": 10, "kappa": -1.0},
                {"n": 20, "kappa": None},
                {"n": 40, "kappa": 1.0},
            ],
            "ana and cy": [{"n": 5, "kappa": None}],
        }
    )
    assert [label for label, _ in chart.lines] == ["ana and ben"]
    (x1, y1), (x2, y2) = (tuple(map(float, p.split(","))) for p in chart.lines[0][1].split())
    assert (y1, y2) == (chart.bottom, chart.top) and x2 == chart.right and x1 < x2
    assert chart.to_dict()["y_ticks"][0] == {"at": chart.bottom, "label": "-1.0"}
