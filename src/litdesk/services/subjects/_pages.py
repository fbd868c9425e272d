"""A subject as an object (``app.subjects.subject``): its page's data — the subject as
its vocabulary names it, the searches it seeds (filled into the search form, run only
when the user asks) and the evidence linked to it that the account may see."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import NotFoundError
from litdesk.adapters.vocab import VOCABULARIES
from litdesk.core.vocab import (
    SUBJECT_ID,
    VOCABULARY_NAME,
    Subject,
    SubjectLinkInvalid,
    SubjectRef,
    controlled_term,
    quote_label,
    remote_vocabulary_name,
    synonym_group,
)

__all__ = [
    "MAX_ALIAS_TERM",
    "AliasesRequest",
    "AliasesView",
    "SubjectLink",
    "SubjectPageView",
    "SubjectRequest",
    "not_found",
    "seeds_of",
    "subject_link",
    "vocabulary_name",
]

#: Longest alternative a concept group's aliases are looked up for (the builder's limit).
MAX_ALIAS_TERM: Final = 180

_VOCABULARY: Final = re.compile(VOCABULARY_NAME)
_ID: Final = re.compile(SUBJECT_ID)


@dataclass(frozen=True, slots=True)
class SubjectRequest:
    """One subject: its vocabulary (``mesh``) and its id there (``D003920``)."""

    vocabulary: str
    id: str

    def __post_init__(self) -> None:
        if _VOCABULARY.fullmatch(self.vocabulary) is None or _ID.fullmatch(self.id) is None:
            raise SubjectLinkInvalid(
                "a subject is named by its vocabulary and id, as in mesh/D003920",
                code="subject_ref",
            )


def vocabulary_name(vocabulary: str) -> str:
    """A vocabulary as people know it: ``MeSH`` for ``mesh``, ``OpenAlex topic`` for
    ``openalex_topic`` (the key itself for a vocabulary litdesk does not know)."""
    package = VOCABULARIES.get(vocabulary)
    if package is not None:
        return package.display
    return remote_vocabulary_name(vocabulary) or vocabulary


@dataclass(frozen=True, slots=True)
class SubjectLink:
    """A subject as pages show it: its label, its vocabulary's display name, its page and
    its address at the vocabulary."""

    vocabulary: str
    id: str
    label: str
    #: ``MeSH`` for ``mesh`` (see :func:`vocabulary_name`)
    vocabulary_name: str
    #: its address at the vocabulary (``None`` for a vocabulary litdesk does not ship)
    url: str | None

    @property
    def key(self) -> str:
        """``mesh:D003920``: the subject as evidence and the search form name it."""
        return f"{self.vocabulary}:{self.id}"

    @property
    def page(self) -> str:
        """The subject's page in the web workspace."""
        return f"/subject/{self.vocabulary}/{self.id}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "vocabulary": self.vocabulary,
            "id": self.id,
            "label": self.label,
            "key": self.key,
            "vocabulary_name": self.vocabulary_name,
            "page": self.page,
            "url": self.url,
        }


def subject_link(subject: Subject | SubjectRef) -> SubjectLink:
    """A subject as pages show it (see :class:`SubjectLink`)."""
    package = VOCABULARIES.get(subject.vocabulary)
    return SubjectLink(
        vocabulary=subject.vocabulary,
        id=subject.id,
        label=subject.label,
        vocabulary_name=vocabulary_name(subject.vocabulary),
        url=package.id_url.format(id=subject.id) if package else None,
    )


def seeds_of(subject: Subject) -> dict[str, str | None]:
    """The queries a subject seeds: its label as keywords, as a controlled term (where
    its vocabulary has a query field) and with its synonyms (where it has any)."""
    package = VOCABULARIES.get(subject.vocabulary)
    prefix = package.query_prefix if package else None
    return {
        "keywords": quote_label(subject.label),
        "controlled": controlled_term(subject.label, prefix) if prefix else None,
        "synonyms": synonym_group(subject.label, subject.synonyms) if subject.synonyms else None,
    }


@dataclass(frozen=True, slots=True)
class AliasesRequest:
    """A concept group's first alternative, as typed."""

    term: str

    def __post_init__(self) -> None:
        if not self.term.strip() or len(self.term) > MAX_ALIAS_TERM:
            raise SubjectLinkInvalid(
                f"an alternative is 1 to {MAX_ALIAS_TERM} characters", code="alias_term"
            )


@dataclass(frozen=True, slots=True)
class AliasesView:
    """The subject a concept group's first alternative names exactly (its label or one
    of its synonyms; ``None``: none does), and its other names — the vocabulary's synonyms
    (entry terms), and its label when the alternative was a synonym — to offer."""

    subject: Subject | None
    aliases: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        s = self.subject
        return {
            "subject": (subject_link(s).to_dict() | {"synonyms": list(s.synonyms)}) if s else None,
            "aliases": list(self.aliases),
        }


@dataclass(frozen=True, slots=True)
class SubjectPageView:
    """A subject's page: the subject (``installed``: found in the installed vocabulary;
    else known only from the links evidence keeps), its seeds, and its evidence rows."""

    subject: Subject
    installed: bool
    evidence: Sequence[Mapping[str, Any]] = ()
    problems: Sequence[str] = ()
    attribution: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": subject_link(self.subject).to_dict()
            | {"synonyms": list(self.subject.synonyms)},
            "installed": self.installed,
            "seeds": seeds_of(self.subject),
            "evidence": [dict(e) for e in self.evidence],
            "problems": list(self.problems),
            "attribution": self.attribution,
        }


def not_found(request: SubjectRequest) -> NotFoundError:
    name = VOCABULARIES[request.vocabulary].display if request.vocabulary in VOCABULARIES else ""
    where = f"in {name}" if name else "in any vocabulary litdesk has"
    return NotFoundError(
        f"there is no subject {request.id} {where}, and no evidence is linked to it",
        code="subject_not_found",
    )
