"""PRISMA 2020 counts computed from sources, removals and decisions: the arithmetic invariants
on every flow (Hypothesis), the records behind each number, update rounds as columns,
Markdown/CSV, and an SVG whose boxes hold their text whatever its length."""

from __future__ import annotations

import csv
import io
import re
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.screening import (
    PrismaFlow,
    PrismaInputError,
    SourceCount,
    prisma_round,
    prisma_svg,
    text_width,
    wrap,
)
from litdesk.core.screening._prisma_svg import FONT_SIZE, PAD


def small_round(label: str = "2026 search"):
    return prisma_round(
        label=label,
        sources=[
            SourceCount("PubMed", "database", 8),
            SourceCount("Embase", "database", 4),
            SourceCount("ClinicalTrials.gov", "register", 2),
            SourceCount("citation search", "other", 1),
        ],  # fmt: skip
        removed_duplicates=5,
        to_screen=[f"r{i}" for i in range(10)],
        title_abstract={
            "r0": "include",
            "r1": "maybe",
            "r2": "include",
            "r3": "exclude",
            "r4": "exclude",
            "r5": "include",
            "r6": "include",
            "r7": "exclude",
        },  # fmt: skip
        not_retrieved={"r6"},
        full_text={
            "r0": ("include", ""),
            "r1": ("exclude", "wrong population"),
            "r2": ("exclude", "wrong population"),
            "r5": ("maybe", ""),
        },  # fmt: skip
    )


def test_counts_records_behind_them_and_checks():
    r = small_round()
    assert r.identified == 15 and r.identified_by("database") == 12
    assert r.count("to_screen") == 10
    assert r.records("screened") == tuple(f"r{i}" for i in range(8))
    assert r.records("awaiting_screening") == ("r8", "r9")
    assert r.records("excluded_screening") == ("r3", "r4", "r7")
    assert r.records("sought") == ("r0", "r1", "r2", "r5", "r6")
    assert r.records("not_retrieved") == ("r6",)
    assert r.records("assessed") == ("r0", "r1", "r2")
    assert r.records("awaiting_full_text") == ("r5",)
    assert r.excluded_reports == (("wrong population", ("r1", "r2")),)
    assert r.records("excluded_reports") == ("r1", "r2")
    assert r.records("included") == ("r0",)
    assert all(c.ok for c in r.checks())
    d = r.to_dict()
    assert d["identified"]["registers"] == 2  # type: ignore[index]
    assert d["excluded_reasons"] == {"wrong population": 2}
    with pytest.raises(PrismaInputError):
        r.records("removed_duplicates")


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"removed_duplicates": 4}, "arithmetic"),  # identified − removed ≠ records to screen
        ({"not_retrieved": {"r3"}}, "not_sought"),  # excluded at screening, never sought
        ({"not_retrieved": {"r0"}}, "not_assessable"),  # a decision on a report not retrieved
        ({"title_abstract": {"zz": "include"}}, "unknown_record"),
        ({"full_text": {"r0": ("exclude", " ")}}, "reason_required"),
        ({"to_screen": ["r1", "r1"]}, "twice"),
        ({"removed_other": -1}, "bad_count"),
    ],
)
def test_inputs_that_break_the_flow_are_refused(change, code):
    args = dict(
        label="x",
        sources=[SourceCount("PubMed", "database", 12)],
        removed_duplicates=2,
        to_screen=[f"r{i}" for i in range(10)],
        title_abstract={"r0": "include", "r3": "exclude"},
        full_text={"r0": ("include", "")},
        not_retrieved=set(),
    )
    args.update(change)
    with pytest.raises(PrismaInputError) as err:
        prisma_round(**args)  # type: ignore[arg-type]
    assert err.value.code == code


# the strategies flows draws from, made once (one made inside the composite is made,
# validated and measured again on every draw); the values drawn are the same
_N, _FIVE, _DUPES, _OTHER = (
    st.integers(0, 40),
    st.integers(0, 4),
    st.integers(0, 30),
    st.integers(0, 3),
)
_VERDICT = st.sampled_from(["include", "exclude", "maybe"])
_REASONS = st.sampled_from(["wrong population", "wrong outcome", "no full text in English"])


@st.composite
def flows(draw):
    n = draw(_N)
    records = [f"r{i}" for i in range(n)]
    ta = {r: draw(_VERDICT) for r in records if draw(st.booleans())}
    sought = [r for r in records if r in ta and ta[r] != "exclude"]
    missing = {r for r in sought if draw(_FIVE) == 0}
    ft = {}
    for r in sought:
        if r not in missing and draw(st.booleans()):
            v = draw(_VERDICT)
            ft[r] = (v, draw(_REASONS) if v == "exclude" else "")
    dupes = draw(_DUPES)
    other = draw(_OTHER)
    split = draw(st.integers(0, n + dupes + other))
    return prisma_round(
        label="round",
        sources=[
            SourceCount("A", "database", split),
            SourceCount("B", "other", n + dupes + other - split),
        ],
        removed_duplicates=dupes,
        removed_other=other,
        to_screen=records,
        title_abstract=ta,  # type: ignore[arg-type]
        full_text=ft,  # type: ignore[arg-type]
        not_retrieved=missing,
    )


@settings(max_examples=80, deadline=None)
@given(flows())
def test_prisma_arithmetic_holds_on_every_flow(r):
    removed = r.removed_duplicates + r.removed_automation + r.removed_other
    assert r.identified - removed == r.count("to_screen")
    assert r.count("screened") - r.count("excluded_screening") == r.count("sought")
    assert r.count("sought") - r.count("not_retrieved") == r.count("assessed") + r.count(
        "awaiting_full_text"
    )
    assert r.count("assessed") - r.count("excluded_reports") == r.count("included")
    assert all(c.ok for c in r.checks())
    flow = PrismaFlow((r,))
    ElementTree.fromstring(prisma_svg(flow))  # well-formed whatever the counts


def test_update_rounds_are_columns_in_markdown_and_csv():
    flow = PrismaFlow((small_round("2025 search"), small_round("2026 update")))
    md = flow.to_markdown()
    head = md.splitlines()[0]
    assert "2025 search" in head and "2026 update" in head and "Total" in head
    # indented rows by no-break spaces: "&nbsp;&nbsp;&nbsp;&nbsp;from databases" was what
    # `litdesk study prisma` printed in a terminal
    assert "&nbsp;" not in md
    assert "| \u00a0\u00a0\u00a0\u00a0from databases | " in md
    rows = list(csv.reader(io.StringIO(flow.to_csv())))
    assert rows[0] == ["box", "level", "2025 search", "2026 update", "total"]
    by_box = {row[0]: row for row in rows[1:]}
    assert by_box["Records identified"][2:] == ["15", "15", "30"]
    assert by_box["wrong population"][1:] == ["1", "2", "2", "4"]
    assert by_box["Studies included in review"][2:] == ["1", "1", "2"]
    assert flow.to_dict()["total"]["Reports not retrieved"] == 2  # type: ignore[index]
    with pytest.raises(PrismaInputError):
        PrismaFlow((small_round("a"), small_round("a")))
    with pytest.raises(PrismaInputError):
        PrismaFlow(())


def test_csv_cells_are_not_formulas():
    r = prisma_round(
        label="=HYPERLINK(1)",
        sources=[SourceCount("=cmd", "database", 1)],
        to_screen=["r1"],
        title_abstract={"r1": "include"},
        full_text={"r1": ("exclude", "@SUM(1)")},
    )
    text = PrismaFlow((r,)).to_csv()
    assert "\n=" not in text and ",=" not in text and "\n@" not in text


def test_wrap_fits_width_and_breaks_long_words():
    lines = wrap("Records excluded because " + "z" * 200 + " and more", 150)
    assert all(text_width(line) <= 150 for line in lines)
    assert "".join(lines).count("z") == 200
    assert wrap("", 100) == [""]
    assert text_width("W") > text_width("i")
    assert text_width("é") == text_width("e")  # accented letters measure as their base


_BOX = re.compile(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#fff"')
_TEXT = re.compile(r'<text x="([\d.]+)" y="([\d.]+)">([^<]*)</text>')


def test_svg_boxes_hold_their_text_whatever_its_length():
    long_reason = "Reports in a language none of the reviewers reads (" + "ünïcödé " * 30 + ")"
    r = prisma_round(
        label="round",
        sources=[SourceCount("A database with an extraordinarily long name " * 4, "database", 3)],
        to_screen=["a", "b", "c"],
        title_abstract={"a": "include", "b": "include", "c": "include"},
        full_text={
            "a": ("exclude", long_reason),
            "b": ("exclude", "x" * 300),
            "c": ("include", ""),
        },
    )
    svg = prisma_svg(PrismaFlow((r,)), title="Flow <&> test")
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    boxes = [tuple(map(float, m.groups())) for m in _BOX.finditer(svg)]
    texts = [(float(x), float(y), t) for x, y, t in _TEXT.findall(svg)]
    assert len(boxes) == 9
    for x, y, t in texts:
        inside = [b for b in boxes if b[0] <= x <= b[0] + b[2] and b[1] <= y <= b[1] + b[3]]
        assert len(inside) == 1, t
        bx, by, bw, bh = inside[0]
        unescaped = t.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        assert x + text_width(unescaped) <= bx + bw - PAD + 0.01
        assert y + FONT_SIZE * 0.3 <= by + bh and y - FONT_SIZE >= by
    # boxes of one row share a height; rows do not overlap
    ys = sorted({(b[1], b[3]) for b in boxes})
    for (y1, h1), (y2, _) in zip(ys, ys[1:], strict=False):
        assert y1 + h1 < y2
    assert "@import" not in svg and "font-face" not in svg and "http://www.w3.org/2000/svg" in svg


def test_each_source_line_sits_under_its_own_kind():
    labels = [label for label, _ in PrismaFlow((small_round(),)).rows()][:8]
    assert labels == [
        "Records identified",
        "  from databases",
        "    Embase",
        "    PubMed",
        "  from registers",
        "    ClinicalTrials.gov",
        "  from other methods",
        "    citation search",
    ]
