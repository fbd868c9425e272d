"""Saved-papers filtering: identifiers exact, then substrings, then fuzzy for long words."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._filter import FUZZY_MIN_WORD, filter_papers, is_fuzzy_query

__all__ = ["FUZZY_MIN_WORD", "filter_papers", "is_fuzzy_query"]

__getattr__ = lazy_exports(__name__, __file__, globals())
