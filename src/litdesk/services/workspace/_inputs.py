"""Typed inputs of workspace use cases that a face builds from its arguments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.core.records import Paper, detect_identifier, make_paper

__all__ = ["FieldsRefused", "PaperFields"]


class FieldsRefused(InputError):
    """The identifier and fields given for a paper do not make a paper."""

    default_code = "arguments"


_ID_KEYS: Final = ("id", "doi", "pmid", "pmcid", "openalex_id", "arxiv_id")


@dataclass(frozen=True, slots=True)
class PaperFields:
    """A paper typed in by hand: an identifier in any notation and/or fields."""

    identifier: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    title: str | None = None
    abstract: str | None = None
    journal: str | None = None
    year: int | None = None
    authors: tuple[str, ...] = ()

    def to_paper(self) -> Paper:
        """The paper (refused when no identifier is given or the identifier is unknown)."""
        given: dict[str, Any] = {
            "doi": self.doi,
            "pmid": self.pmid,
            "pmcid": self.pmcid,
            "title": self.title,
            "abstract": self.abstract,
            "journal": self.journal,
            "year": self.year,
            "authors": tuple(self.authors),
        }
        data = {k: v for k, v in given.items() if v not in (None, "", ())}
        if self.identifier:
            found = detect_identifier(self.identifier)
            if found is None:
                raise FieldsRefused(f"not a recognised identifier: {self.identifier[:80]!r}")
            ns, value = found
            key = {"openalex": "openalex_id", "arxiv": "arxiv_id", "source": "id"}.get(ns, ns)
            data[key] = value
        if not any(k in data for k in _ID_KEYS):
            raise FieldsRefused(
                "give --file, an identifier (--id) or at least one of --doi/--pmid/--pmcid"
            )
        return make_paper(**data)
