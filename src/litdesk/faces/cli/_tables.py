"""Tables that fit the terminal: every column keeps its words, or the rows become cards.

rich shrinks a table to the terminal's width by wrapping its cells, and when a column gets
narrower than its longest word it cuts that word ("hepatocellu" / "lar") or ends it with
"…" — at 80 columns a six-column table ends up one syllable per line. So a command prints
its table only when the table fits with every column at least as wide as its longest word
(rich's own minimum measurement), and only from a width where the table reads well;
otherwise the same rows are printed as *cards*: a key (a rank, a number) and a few short
lines per row that wrap at spaces in the terminal's whole width (only a word longer than a
whole line, such as a long DOI or file name, is folded).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Sequence

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

__all__ = ["cards", "fits", "line", "print_fitting", "print_rows", "wrap_keeping_dates"]

Part = Text | str | None

_UNBOUNDED = 100_000

#: the least width a list's last cell (a title) gets beside the short cells
_TITLE_ROOM = 32


def _ranges(console: Console, table: Table) -> list[tuple[int, int]]:
    """Each column's (longest word, longest line), header included, without padding."""
    options = console.options.update_width(_UNBOUNDED)
    out = []
    for column in table.columns:
        parts = [*([column.header] if table.show_header else []), *column.cells]
        measured = [Measurement.get(console, options, part) for part in parts]
        out.append(
            (
                max((m.minimum for m in measured), default=0),
                max((m.maximum for m in measured), default=0),
            )
        )
    return out


def fits(console: Console, table: Table) -> bool:
    """Whether ``table`` fits the console's width with every column at least as wide as its
    longest word. When it fits only by wrapping, each column's width is set here: its longest
    word plus a share of the room left, in proportion to how much more it could use (rich's
    own shrinking narrows the widest columns first, below their longest word)."""
    # measured without the console's limit: rich caps a measurement at the width it is given
    whole = Measurement.get(console, console.options.update_width(_UNBOUNDED), table)
    width = console.width
    if whole.maximum <= width:
        return True
    ranges = _ranges(console, table)
    least = sum(lo for lo, _ in ranges)
    room = width - (whole.minimum - least)  # less padding and rules
    if least > room:
        return False
    slack = [hi - lo for lo, hi in ranges]
    spare, total = room - least, sum(slack)
    for column, (lo, _), more in zip(table.columns, ranges, slack, strict=True):
        column.width = lo + (spare * more // total if total else 0)
    return True


def print_fitting(
    console: Console,
    table: Table,
    cards: Callable[[], RenderableType],
    *,
    wide: int = 0,
) -> None:
    """Print ``table`` when the console is at least ``wide`` columns and the table fits
    (:func:`fits`); else print what ``cards()`` builds from the same rows."""
    if console.width >= wide and fits(console, table):
        console.print(table)
        return
    shown = cards()
    if isinstance(shown, Table) and shown.title is None:
        shown.title = table.title  # the table's title heads its cards too
    console.print(shown)


#: a date as litdesk writes it (``6 Dec 2026``, ``6 Dec 2026, 01:14``): never broken
_DATE = re.compile(
    r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}(?:, \d\d:\d\d)?\b"
)
#: stands for a space inside a date while the line is wrapped (not whitespace to the wrap)
_HELD = "\ue000"


def wrap_keeping_dates(text: str, width: int, *, indent: str = "") -> Text:
    """``text`` wrapped at spaces to ``width`` columns, continuation lines under ``indent``,
    never inside a date (rich's own wrap breaks ``6 Dec 2026`` after the 6, and treats a
    no-break space as a space); a word longer than a line is folded."""
    held = _DATE.sub(lambda m: m.group(0).replace(" ", _HELD), text)
    lines = textwrap.wrap(
        held,
        max(width, len(indent) + 12),
        subsequent_indent=indent,
        break_on_hyphens=False,
        drop_whitespace=True,
    ) or [""]
    return Text("\n".join(lines).replace(_HELD, " "))


def line(*parts: Part, sep: str = " · ") -> Text:
    """One line of a card: the non-empty parts joined by ``sep`` (plain text, no markup)."""
    out = Text()
    for part in parts:
        if part is None or not str(part):
            continue
        if out:
            out.append(sep)
        out.append(part if isinstance(part, Text) else Text(str(part)))
    return out


def cards(rows: Iterable[tuple[str, Sequence[Text]]], *, title: str | None = None) -> Table:
    """Rows as cards: the key right-aligned in its own narrow column, the lines beside it,
    each wrapping at spaces; a blank line between cards."""
    grid = Table.grid(padding=(0, 1))
    if title:
        grid.title = title
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(overflow="fold")
    for n, (key, lines) in enumerate(rows):
        if n:
            grid.add_row("", "")
        body = Text("\n").join(ln for ln in lines if ln)
        grid.add_row(Text(key, style="bold"), body)
    return grid


def print_rows(console: Console, rows: Iterable[Sequence[Part]], *, indent: int = 0) -> None:
    """A plain list, one row per item: short cells (ids, states) kept whole side by side and
    the last cell (a title) wrapping at spaces under itself, so no line is wider than the
    terminal and no title is cut. When the short cells leave the title less than
    ``_TITLE_ROOM`` columns, each title goes on its own lines under its row's short cells."""
    shown = [
        [c if isinstance(c, Text) else Text("" if c is None else str(c)) for c in r] for r in rows
    ]
    if not shown:
        return
    short = [max(cell.cell_len for cell in column) for column in zip(*shown, strict=True)][:-1]
    left = console.width - indent - sum(short) - 2 * len(short)
    out: RenderableType
    if left < _TITLE_ROOM:
        out = Group(
            *(
                part
                for cells in shown
                for part in (Text("  ").join(cells[:-1]), Padding(cells[-1], (0, 0, 0, 4)))
            )
        )
    else:
        grid = Table.grid(padding=(0, 2))
        for _ in short:
            grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for cells in shown:
            grid.add_row(*cells)
        out = grid
    console.print(Padding(out, (0, 0, 0, indent)) if indent else out)
