"""The subjects area (``app.subjects``): suggestions from offline controlled vocabularies
(MeSH descriptors) for the search form, then remote ones (OpenAlex autocomplete, through
the one provider transport and the account's allowance), the vocabularies' declarations, and subjects as
objects (a subject's page: the searches it seeds, the evidence linked to it)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
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
    from ._pages import (
        MAX_ALIAS_TERM,
        AliasesRequest,
        AliasesView,
        SubjectLink,
        SubjectPageView,
        SubjectRequest,
        seeds_of,
        subject_link,
        vocabulary_name,
    )
    from ._remote import (
        REMOTE_LIMIT,
        REMOTE_TTL_SECONDS,
        RemoteSuggestion,
        RemoteSuggestions,
        RemoteSuggestView,
    )

__all__ = [
    "MAX_ALIAS_TERM",
    "MAX_SUGGEST_QUERY",
    "REMOTE_LIMIT",
    "REMOTE_TTL_SECONDS",
    "RemoteSuggestView",
    "RemoteSuggestion",
    "RemoteSuggestions",
    "AliasesRequest",
    "AliasesView",
    "SubjectLink",
    "SubjectPageView",
    "SubjectRequest",
    "SubjectsArea",
    "SuggestInputError",
    "SuggestRequest",
    "SuggestView",
    "VOCABULARY_NAMES",
    "VocabulariesView",
    "VocabularyInfo",
    "seeds_of",
    "vocabulary_name",
    "subject_link",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
