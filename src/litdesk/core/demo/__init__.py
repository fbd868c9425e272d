"""The offline demo sample (pure): bundled records searched with the litdesk query
language — :class:`SampleIndex` (the records and their inverted index) and
:func:`search_sample` (a parsed query → ranked hits)."""

from ._sample import MIN_STEM, SampleHits, SampleIndex, SampleRecord, fold_words, search_sample

__all__ = ["MIN_STEM", "SampleHits", "SampleIndex", "SampleRecord", "fold_words", "search_sample"]
