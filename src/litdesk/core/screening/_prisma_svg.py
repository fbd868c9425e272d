"""The PRISMA 2020 flow diagram as a self-contained SVG whose boxes fit their text.

No font is embedded or fetched: text is set in the reader's sans-serif, and each line is
measured with a width table that errs wide (per-character advance widths of Helvetica/Arial
for common characters, the width of a wide glyph for anything else, plus a safety margin), so
that the text stays inside its box in DejaVu Sans, Liberation Sans, Arial or Helvetica.
Lines wrap at spaces; a word longer than a line is broken inside. Each box grows to its text;
each row of the diagram takes the height of its tallest box, so arrows stay straight.

Layout (PRISMA 2020 for new systematic reviews): identification → screening → retrieval →
eligibility → included on the left, the removed / excluded / not retrieved boxes on the
right; the records identified via databases and registers (each database and register by
name) in the first box and, when there are any, those identified via other methods
(citation searching, websites…) in a box of their own in a third column, whose records join
the records screened (litdesk screens one working set). With several rounds each box lists
the count per round under the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from xml.sax.saxutils import escape

from ._prisma import PrismaFlow, PrismaRound

__all__ = ["prisma_svg", "text_width", "wrap"]

FONT_SIZE = 12.0
LINE = FONT_SIZE * 1.35
PAD = 8.0
MAIN_W = 300.0
SIDE_W = 300.0
GAP_X = 50.0
GAP_Y = 28.0
STAGE_W = 26.0
MARGIN = 10.0
#: multiply every measured width by this (fonts other than Helvetica run wider)
SAFETY = 1.12

# advance widths in 1/1000 em (Helvetica), grouped
_WIDTHS: dict[str, int] = {}
for _chars, _w in (
    (" !'Iijl|.,:;", 278),
    ('"', 355),
    ("()[]{}f/\\t-r`", 333),
    ("*", 389),
    ("^", 469),
    ("cksvxyzJ", 500),
    ("0123456789abdeghnopqu$#?_Lż", 556),
    ("+<=>~FTZ", 584),
    ("&ABEKPSVXY", 667),
    ("CDHNRUw", 722),
    ("GOQ", 778),
    ("mM", 833),
    ("%", 889),
    ("W", 944),
    ("@", 1015),
    ("–", 556),
    ("—", 1000),
    ("−×", 584),
):
    for _c in _chars:
        _WIDTHS[_c] = _w
_WIDE = 1000  # anything not in the table (accented letters take their base letter's width)


def _char_width(c: str) -> int:
    w = _WIDTHS.get(c)
    if w is not None:
        return w
    if c.isascii():
        return 600
    import unicodedata

    base = unicodedata.normalize("NFKD", c)[:1]
    return _WIDTHS.get(base, _WIDE) if base != c else _WIDE


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """An upper estimate of the rendered width of ``text`` at ``size`` px."""
    return sum(_char_width(c) for c in text) * size / 1000 * SAFETY


def wrap(text: str, width: float, size: float = FONT_SIZE) -> list[str]:
    """``text`` in lines no wider than ``width`` (breaking words only when one is too long);
    existing newlines are kept."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, size) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
                line = ""
            while text_width(word, size) > width:  # a word wider than the line: break it
                cut = 1
                while cut < len(word) and text_width(word[: cut + 1], size) <= width:
                    cut += 1
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


@dataclass(slots=True)
class _Box:
    x: float
    width: float
    lines: list[str]
    y: float = 0.0
    height: float = 0.0

    @property
    def text_height(self) -> float:
        return len(self.lines) * LINE + 2 * PAD


def _box(x: float, width: float, paragraphs: list[str]) -> _Box:
    lines: list[str] = []
    for p in paragraphs:
        lines += wrap(p, width - 2 * PAD)
    return _Box(x, width, lines)


def _n(flow: PrismaFlow, value: int, per_round: list[int]) -> str:
    out = f"(n = {value:,})"
    if len(flow.rounds) > 1:
        out += "\n" + "\n".join(
            f"{r.label}: {v:,}" for r, v in zip(flow.rounds, per_round, strict=True)
        )
    return out


def _sum(flow: PrismaFlow, key: str) -> tuple[int, list[int]]:
    values = [r.count(key) for r in flow.rounds]
    return sum(values), values


#: a kind of source as the identification box heads its sources
_HEADING: Final = {"database": "Databases", "register": "Registers", "other": "Other methods"}


def prisma_svg(flow: PrismaFlow, *, title: str = "PRISMA 2020 flow diagram") -> str:
    """The diagram of ``flow`` as an SVG document (UTF-8 text)."""
    rounds: tuple[PrismaRound, ...] = flow.rounds
    left_x = MARGIN + STAGE_W + 10
    right_x = left_x + MAIN_W + GAP_X

    totals: dict[tuple[str, str], int] = {}
    for r in rounds:
        for src in r.sources:
            key = (src.kind, src.name)
            totals[key] = totals.get(key, 0) + src.records

    def listed(kinds: tuple[str, ...]) -> list[str]:
        """Each kind's records (with a heading when the box holds two kinds), then each
        source of it: "Embase (n = 412)"."""
        out: list[str] = []
        for kind in kinds:
            names = [(n, c) for (k, n), c in totals.items() if k == kind]
            indent = ""
            if len(kinds) > 1 and names:
                out.append(f"{_HEADING[kind]} (n = {sum(c for _, c in names):,}):")
                indent = "\u00a0" * 3  # under its heading (a space would collapse)
            out += [f"{indent}{n} (n = {c:,})" for n, c in names]
        return out

    total, per = _sum(flow, "identified")
    other = [r.identified_by("other") for r in rounds]
    main_total, main_per = total - sum(other), [a - b for a, b in zip(per, other, strict=True)]
    head = "Records identified" if not sum(other) else (
        "Records identified from databases and registers"
    )  # fmt: skip
    identified = _box(
        left_x,
        MAIN_W,
        [f"{head} {_n(flow, main_total, main_per)}", *listed(("database", "register"))],
    )
    # other methods (citation searching, websites, organisations…): their own box, in a
    # column of their own, their records joining the records screened
    third_x = right_x + SIDE_W + GAP_X
    others = (
        _box(
            third_x,
            SIDE_W,
            [
                "Identification via other methods",
                f"Records identified {_n(flow, sum(other), other)}",
                *listed(("other",)),
            ],
        )
        if sum(other)
        else None
    )
    removed = _box(
        right_x,
        SIDE_W,
        [
            "Records removed before screening:",
            "Duplicate records removed " + _n(flow, *_sum(flow, "removed_duplicates")),
            "Records marked as ineligible by automation tools "
            + _n(flow, *_sum(flow, "removed_automation")),
            "Records removed for other reasons " + _n(flow, *_sum(flow, "removed_other")),
        ],
    )

    def main(label: str, key: str) -> _Box:
        return _box(left_x, MAIN_W, [f"{label} " + _n(flow, *_sum(flow, key))])

    def side(label: str, key: str, extra: list[str] | None = None) -> _Box:
        return _box(right_x, SIDE_W, [f"{label} " + _n(flow, *_sum(flow, key)), *(extra or [])])

    screened = main("Records screened", "screened")
    awaiting = _sum(flow, "awaiting_screening")[0]
    excluded = side(
        "Records excluded",
        "excluded_screening",
        [f"Records awaiting screening (n = {awaiting:,})"] if awaiting else None,
    )
    sought = main("Reports sought for retrieval", "sought")
    not_retrieved = side("Reports not retrieved", "not_retrieved")
    assessed = main("Reports assessed for eligibility", "assessed")
    reasons = []
    for reason in flow.reasons():
        per_round = [len(dict(r.excluded_reports).get(reason, ())) for r in rounds]
        reasons.append(f"{reason} (n = {sum(per_round):,})")
    awaiting_ft = _sum(flow, "awaiting_full_text")[0]
    if awaiting_ft:
        reasons.append(f"Reports awaiting assessment (n = {awaiting_ft:,})")
    reports_excluded = side("Reports excluded", "excluded_reports", reasons)
    included = main("Studies included in review", "included")

    rows: list[tuple[str, _Box, _Box | None]] = [
        ("Identification", identified, removed),
        ("Screening", screened, excluded),
        ("Screening", sought, not_retrieved),
        ("Screening", assessed, reports_excluded),
        ("Included", included, None),
    ]
    title_h = LINE + 2 * PAD
    y = MARGIN + title_h
    per_stage: dict[str, int] = {}
    for name, _, _ in rows:
        per_stage[name] = per_stage.get(name, 0) + 1
    for name, a, b in rows:
        k = per_stage[name]  # the stage band must hold its rotated name (bold: +10%)
        band = (text_width(name) * 1.1 + 2 * PAD - (k - 1) * GAP_Y) / k
        height = max(a.text_height, b.text_height if b else 0.0, band)
        if others is not None and a is identified:
            height = max(height, others.text_height)
        for box in (a, b, others if a is identified else None):
            if box is not None:
                box.y, box.height = y, height
        y += height + GAP_Y
    width = (third_x if others is not None else right_x) + SIDE_W + MARGIN
    height = y - GAP_Y + MARGIN

    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        f"font-family=\"Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif\" "
        f'font-size="{FONT_SIZE:g}" role="img" aria-label="{escape(title, {chr(34): "&quot;"})}">',
        f"<title>{escape(title)}</title>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/>'
        "</marker></defs>",
        f'<text x="{MARGIN:g}" y="{MARGIN + LINE:.1f}" font-weight="bold">{escape(title)}</text>',
    ]
    # stage bands: one per run of rows with the same stage name
    stages: list[tuple[str, float, float]] = []
    for name, a, _ in rows:
        if stages and stages[-1][0] == name:
            stages[-1] = (name, stages[-1][1], a.y + a.height)
        else:
            stages.append((name, a.y, a.y + a.height))
    for name, top, bottom in stages:
        cx, cy = MARGIN + STAGE_W / 2, (top + bottom) / 2
        out.append(
            f'<rect x="{MARGIN:g}" y="{top:.1f}" width="{STAGE_W:g}" height="{bottom - top:.1f}" '
            'rx="4" fill="#cfe2f3" stroke="#4a6f8a"/>'
            f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" dominant-baseline="central" '
            f'font-weight="bold" transform="rotate(-90 {cx:.1f} {cy:.1f})">{escape(name)}</text>'
        )
    for _, a, b in rows:
        for box in (a, b):
            if box is not None:
                out.append(_draw(box))
        if b is not None:
            mid = a.y + a.height / 2
            out.append(_arrow(a.x + a.width, mid, b.x, mid))
    for (_, a, _), (_, c, _) in zip(rows, rows[1:], strict=False):
        cx = a.x + a.width / 2
        out.append(_arrow(cx, a.y + a.height, cx, c.y))
    if others is not None:  # down from the other methods, over, into the records screened
        out.append(_draw(others))
        ox, turn = others.x + others.width / 2, screened.y - GAP_Y / 2
        sx = screened.x + screened.width / 2
        out.append(
            f'<polyline points="{ox:.1f},{others.y + others.height:.1f} {ox:.1f},{turn:.1f} '
            f'{sx:.1f},{turn:.1f} {sx:.1f},{screened.y:.1f}" fill="none" stroke="#000" '
            'marker-end="url(#arrow)"/>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _draw(box: _Box) -> str:
    parts = [
        f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
        f'height="{box.height:.1f}" fill="#fff" stroke="#000"/>'
    ]
    for i, line in enumerate(box.lines):
        y = box.y + PAD + (i + 1) * LINE - (LINE - FONT_SIZE)
        parts.append(f'<text x="{box.x + PAD:.1f}" y="{y:.1f}">{escape(line)}</text>')
    return "".join(parts)


def _arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#000" '
        'marker-end="url(#arrow)"/>'
    )
