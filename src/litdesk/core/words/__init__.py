"""Words for people (pure): dates (``5 Dec 2026, 01:14``, ``3 minutes ago``), numbers with
thousands separators, plurals that agree, lanes named by database, and the names people
know for imports (``psycinfo_64.ris, 64 records, 5 Dec 2026``) and searches (their query
and date), and bylines whose names are told apart (``Aurelio Vega, Miguel Angel
Martin-Ferrero``). The faces render them (``litdesk.faces._words``: also Jinja filters); views use
them for the ``label`` fields they carry."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._authors import author_name, authors_line
    from ._format import dates, day, lane_label, num, plural, when
    from ._names import file_name, import_label, run_label

__all__ = [
    "author_name",
    "authors_line",
    "dates",
    "day",
    "file_name",
    "import_label",
    "lane_label",
    "num",
    "plural",
    "run_label",
    "when",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
