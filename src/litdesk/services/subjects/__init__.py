"""The subjects area (``app.subjects``): suggestions from offline controlled vocabularies
(MeSH descriptors) for the search form, and the vocabularies' declarations."""

from ._area import (
    MAX_SUGGEST_QUERY,
    VOCABULARY_NAMES,
    SubjectsArea,
    SuggestInputError,
    SuggestRequest,
    SuggestView,
    VocabulariesView,
    VocabularyInfo,
)

__all__ = [
    "MAX_SUGGEST_QUERY",
    "SubjectsArea",
    "SuggestInputError",
    "SuggestRequest",
    "SuggestView",
    "VOCABULARY_NAMES",
    "VocabulariesView",
    "VocabularyInfo",
]
