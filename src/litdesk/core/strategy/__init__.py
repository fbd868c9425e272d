"""Search strategy (pure): the concept-group builder and the strict parser of a model's
suggested concept groups.

* :func:`build_query` — literal terms in up to 6 groups → one litdesk query (quoted
  literals, OR inside a group, AND across included groups, ≤ 2,000 characters).
* :func:`parse_suggestion` — a model's answer text → :class:`Suggestion` or
  :class:`SuggestionRefused` (exact shape, lengths, no query syntax in terms).
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._builder import (
        MAX_GROUPS,
        MAX_LABEL_CHARS,
        MAX_QUERY_CHARS,
        MAX_TERM_CHARS,
        MAX_TERMS,
        BuiltQuery,
        ConceptGroup,
        StrategyInputError,
        build_query,
        clean_text,
        dedupe_key,
        group_terms,
        parse_group_option,
    )
    from ._suggest import (
        MAX_ANSWER_CHARS,
        MAX_QUESTION_CHARS,
        SUGGESTION_SCHEMA,
        SUGGESTION_SYSTEM,
        UNVERIFIED,
        Suggestion,
        SuggestionRefused,
        check_question,
        parse_suggestion,
        suggestion_prompt,
    )

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_GROUPS",
    "MAX_LABEL_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_QUESTION_CHARS",
    "MAX_TERMS",
    "MAX_TERM_CHARS",
    "SUGGESTION_SCHEMA",
    "SUGGESTION_SYSTEM",
    "UNVERIFIED",
    "BuiltQuery",
    "ConceptGroup",
    "StrategyInputError",
    "Suggestion",
    "SuggestionRefused",
    "build_query",
    "check_question",
    "clean_text",
    "dedupe_key",
    "group_terms",
    "parse_group_option",
    "parse_suggestion",
    "suggestion_prompt",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
