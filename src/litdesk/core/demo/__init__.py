"""The offline demo sample (pure): bundled records searched with the litdesk query
language — :class:`SampleIndex` (the records and their inverted index) and
:func:`search_sample` (a parsed query → ranked hits)."""

from ._sample import SampleHits, SampleIndex, SampleRecord, fold_words, search_sample

__all__ = ["SampleHits", "SampleIndex", "SampleRecord", "fold_words", "search_sample"]
