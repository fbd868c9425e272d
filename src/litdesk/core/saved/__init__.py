"""Saved-papers filtering: identifiers exact, then substrings, then fuzzy for long words."""

from ._filter import FUZZY_MIN_WORD, filter_papers, is_fuzzy_query

__all__ = ["FUZZY_MIN_WORD", "filter_papers", "is_fuzzy_query"]
