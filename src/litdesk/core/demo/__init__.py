"""The offline demo sample (pure): bundled records searched with the litdesk query
language — :class:`SampleIndex` (the records and their inverted index) and
:func:`search_sample` (a parsed query → ranked hits)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._sample import MIN_STEM, SampleHits, SampleIndex, SampleRecord, fold_words, search_sample

__all__ = ["MIN_STEM", "SampleHits", "SampleIndex", "SampleRecord", "fold_words", "search_sample"]

__getattr__ = lazy_exports(__name__, __file__, globals())
