"""What the screening pages add to the screening area's views, shared by each page and its
``/api/v1`` twin: the text of a record cut into plain and highlighted segments (the Study's
include and exclude keywords; a template or script inserts each segment as text, never as
markup), and the geometry of the small server-rendered charts (the recall curve, agreement
over time) as SVG coordinates. Pure functions of the views' data."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from litdesk.faces._words import authors_line

__all__ = [
    "MAX_TERMS",
    "Chart",
    "agreement_chart",
    "highlight",
    "recall_chart",
    "segments_of",
]

#: keywords highlighted at most (each at most ``MAX_TERM`` characters): a bounded pattern
MAX_TERMS: Final = 200
MAX_TERM: Final = 100
#: text cut into segments at most (a longer abstract is cut whole, unhighlighted past it)
MAX_TEXT: Final = 20_000


def _terms(words: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for word in words:
        term = " ".join(str(word).split())[:MAX_TERM]
        if term and term.casefold() not in seen:
            seen[term.casefold()] = None
        if len(seen) >= MAX_TERMS:
            break
    return sorted(seen, key=len, reverse=True)  # the longest term wins at a position


def highlight(
    text: str | None, include: Iterable[str], exclude: Iterable[str]
) -> list[dict[str, str | None]]:
    """``text`` as segments ``{"text", "mark"}``, ``mark`` being ``"include"``,
    ``"exclude"`` or ``None``: a term matches case-insensitively where a word starts (``child``
    marks ``children``, not ``grandchild``); a term in both lists counts as an exclude term.
    One left-to-right scan of one alternation of escaped literals (no backtracking into the
    text), bounded by :data:`MAX_TERMS` and :data:`MAX_TEXT`."""
    if not text:
        return []
    body, rest = text[:MAX_TEXT], text[MAX_TEXT:]
    inc, exc = _terms(include), _terms(exclude)
    kind = {t: "include" for t in inc} | {t: "exclude" for t in exc}
    terms = sorted(kind, key=len, reverse=True)
    out: list[dict[str, str | None]] = []
    if terms:
        pattern = re.compile(
            r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + ")", re.IGNORECASE
        )
        at = 0
        for found in pattern.finditer(body):
            if found.start() > at:
                out.append({"text": body[at : found.start()], "mark": None})
            out.append(
                {"text": found.group(0), "mark": kind.get(found.group(0).casefold(), "include")}
            )
            at = found.end()
        body = body[at:]
    if body or rest:
        out.append({"text": body + rest, "mark": None})
    return out


def segments_of(card: dict[str, Any]) -> dict[str, Any]:
    """A card (the area's ``CardView.to_dict()``) with its title and abstract as highlight
    segments (``title_segments``, ``abstract_segments``), the counts of each kind and its
    authors' ``byline`` (the page's, :func:`~litdesk.core.words.authors_line`)."""
    terms = card.get("highlight") or {}
    inc = tuple(terms.get("include") or ())
    exc = tuple(terms.get("exclude") or ())
    title = highlight(card.get("title"), inc, exc)
    abstract = highlight(card.get("abstract"), inc, exc)
    marks = [s["mark"] for s in (*title, *abstract) if s["mark"]]
    card["title_segments"] = title
    card["abstract_segments"] = abstract
    card["marks"] = {"include": marks.count("include"), "exclude": marks.count("exclude")}
    card["byline"] = authors_line(card.get("authors"))  # as the page shows it (one helper)
    return card


@dataclass(frozen=True, slots=True)
class Chart:
    """A line chart's SVG geometry in a ``width`` × ``height`` view box: the plot area
    (``left``, ``top``, ``right``, ``bottom``), ``lines`` as ``(label, points)`` where
    points is an SVG ``points`` attribute, and axis ticks as ``(position, label)``."""

    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    lines: tuple[tuple[str, str], ...]
    x_ticks: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "left": self.left,
            "top": self.top,
            "right": self.right,
            "bottom": self.bottom,
            "lines": [{"label": label, "points": pts} for label, pts in self.lines],
            "x_ticks": [{"at": at, "label": label} for at, label in self.x_ticks],
            "y_ticks": [{"at": at, "label": label} for at, label in self.y_ticks],
        }


_W, _H, _L, _T, _R, _B = 480, 240, 56, 12, 468, 200


def _nice_ticks(top: float, count: int = 4) -> list[float]:
    """Ticks from 0 to at most ``top`` at a step of 1, 2 or 5 times a power of ten."""
    if top <= 0:
        return [0.0]
    raw, magnitude = top / count, 1.0
    while magnitude * 10 <= raw:
        magnitude *= 10
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(int(top // step) + 1)]


def _fmt(n: float) -> str:
    return f"{int(n):,}" if float(n).is_integer() else f"{n:.2f}"


def _points(
    xs: Sequence[float], ys: Sequence[float], x_max: float, y_lo: float, y_hi: float
) -> str:
    span_x = x_max or 1.0
    span_y = (y_hi - y_lo) or 1.0
    return " ".join(
        f"{_L + (x / span_x) * (_R - _L):.1f},{_B - ((y - y_lo) / span_y) * (_B - _T):.1f}"
        for x, y in zip(xs, ys, strict=True)
    )


def _step_points(curve: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The corners of a step curve (where the includes found change) and its ends: at most
    two points per include, whatever the number of decisions."""
    if not curve:
        return []
    kept = [curve[0]]
    for prev, point in zip(curve, curve[1:], strict=False):
        if point[1] != prev[1]:
            kept += [prev, point] if kept[-1] != prev else [point]
    if kept[-1] != curve[-1]:
        kept.append(curve[-1])
    return kept


def recall_chart(curve: Sequence[Sequence[int]], total: int) -> Chart:
    """The recall curve: records decided (x, up to ``total``) against includes found (y),
    from its points ``[decided, found]`` in the order decided."""
    pts = _step_points([(int(x), int(y)) for x, y in curve])
    if pts and pts[0] != (0, 0):
        pts.insert(0, (0, 0))
    x_max = float(max(total, pts[-1][0] if pts else 0, 1))
    y_max = float(max((y for _, y in pts), default=0) or 1)
    xs = [float(x) for x, _ in pts]
    ys = [float(y) for _, y in pts]
    line = _points(xs, ys, x_max, 0.0, y_max) if pts else ""
    return Chart(
        _W,
        _H,
        _L,
        _T,
        _R,
        _B,
        (("includes found", line),) if line else (),
        tuple((_L + t / x_max * (_R - _L), _fmt(t)) for t in _nice_ticks(x_max)),
        tuple((_B - t / y_max * (_B - _T), _fmt(t)) for t in _nice_ticks(y_max)),
    )


def agreement_chart(series: Mapping[str, Sequence[Mapping[str, Any]]]) -> Chart:
    """Cohen's kappa over time, one line per pair: ``series`` maps a pair's label to its
    points ``{"n": decisions compared, "kappa": value or None}`` (points without a kappa
    are left out). The y axis runs from −1 to 1."""
    x_max = float(
        max((float(p.get("n") or 0) for pts in series.values() for p in pts), default=0) or 1
    )
    lines: list[tuple[str, str]] = []
    for label, pts in series.items():
        usable = [p for p in pts if p.get("kappa") is not None]
        if usable:
            xs = [float(p.get("n") or 0) for p in usable]
            ys = [float(p["kappa"]) for p in usable]
            lines.append((label, _points(xs, ys, x_max, -1.0, 1.0)))
    return Chart(
        _W,
        _H,
        _L,
        _T,
        _R,
        _B,
        tuple(lines),
        tuple((_L + t / x_max * (_R - _L), _fmt(t)) for t in _nice_ticks(x_max)),
        tuple((_B - (t + 1) / 2 * (_B - _T), f"{t:.1f}") for t in (-1.0, -0.5, 0.0, 0.5, 1.0)),
    )
