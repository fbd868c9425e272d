"""Controlled vocabularies (pure): subjects, the suggestion index (prefix, then spelling),
the query's active term and the insertion of a picked subject, and the expansion
provenance a pick leaves in a search definition.

* :class:`SubjectIndex` — ``suggest(text)``: exact/prefix matches (shorter labels first),
  then spelling suggestions for longer letter-only input that is not all upper case.
* :func:`active_term` / :func:`insert_subject` — the span a pick replaces, and the query
  with the label put there (quoted where needed).
* :class:`SubjectRef` / :func:`parse_subject_refs` — the subjects an evidence record links to.
* :class:`Expansion` / :func:`read_expansions` — provenance (vocabulary, id, terms), validated.
* :func:`autocomplete_request` / :func:`parse_autocomplete` — remote suggestions (OpenAlex
  autocomplete): the request for a typed term and its answer read as subjects.
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._active import (
        MAX_ACTIVE_CHARS,
        ActiveTerm,
        active_term,
        controlled_term,
        insert_subject,
        quote_label,
        synonym_group,
    )
    from ._index import (
        EXPANSION_LIMITS,
        MAX_PREFIX,
        MAX_SPELLING,
        Expansion,
        ExpansionInvalid,
        Subject,
        SubjectIndex,
        Suggestion,
        merge_indexes,
        normalise,
        read_expansions,
        spelling_allowed,
    )
    from ._links import (
        MAX_LINKED_SUBJECTS,
        SUBJECT_ID,
        VOCABULARY_NAME,
        SubjectLinkInvalid,
        SubjectRef,
        distinct_links,
        parse_subject_ref,
        parse_subject_refs,
    )
    from ._remote import (
        MAX_REMOTE_LABEL,
        MAX_REMOTE_RESULTS,
        MAX_REMOTE_TERM,
        MIN_REMOTE_TERM,
        REMOTE_ENTITIES,
        REMOTE_VOCABULARY_NAMES,
        RemoteAnswerInvalid,
        RemoteSubject,
        autocomplete_request,
        is_remote_vocabulary,
        parse_autocomplete,
        remote_key,
        remote_vocabulary_name,
    )

__all__ = [
    "EXPANSION_LIMITS",
    "MAX_ACTIVE_CHARS",
    "MAX_LINKED_SUBJECTS",
    "SUBJECT_ID",
    "VOCABULARY_NAME",
    "MAX_PREFIX",
    "MAX_REMOTE_LABEL",
    "MAX_REMOTE_RESULTS",
    "MAX_REMOTE_TERM",
    "MIN_REMOTE_TERM",
    "REMOTE_ENTITIES",
    "REMOTE_VOCABULARY_NAMES",
    "RemoteAnswerInvalid",
    "RemoteSubject",
    "autocomplete_request",
    "is_remote_vocabulary",
    "parse_autocomplete",
    "remote_key",
    "remote_vocabulary_name",
    "MAX_SPELLING",
    "ActiveTerm",
    "Expansion",
    "ExpansionInvalid",
    "Subject",
    "SubjectIndex",
    "SubjectLinkInvalid",
    "SubjectRef",
    "Suggestion",
    "active_term",
    "controlled_term",
    "distinct_links",
    "insert_subject",
    "merge_indexes",
    "normalise",
    "parse_subject_ref",
    "parse_subject_refs",
    "quote_label",
    "read_expansions",
    "spelling_allowed",
    "synonym_group",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
