"""Authors for people: a byline in which a reader sees where each name ends.

Records keep their authors as the source wrote them: "Vega, Aurelio" (RIS, BibTeX, EndNote:
family name first), "Aurelio Vega" (OpenAlex, Crossref), "Vega A" (MEDLINE). Joined with
commas as they were, "Vega, Aurelio, Martin-Ferrero, Miguel Angel" reads as four names. A
byline shows each name given name first, as the providers' records already read ("Aurelio
Vega, Miguel Angel Martin-Ferrero"): a "Family, Given" name (one comma; or "Family, Given,
Jr.") is turned round; a name that still holds a comma after that (an institution written
with one) makes the byline join its names with "; " instead, so no comma is ever ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

__all__ = ["author_name", "authors_line"]

#: a name suffix RIS writes third ("Lastname, Firstname, Suffix")
_SUFFIX: Final = re.compile(r"(?:jr|sr|[ivx]{1,4}|\d(?:st|nd|rd|th))\.?", re.IGNORECASE)
#: words a person's name part has at most (an institution's name is longer)
_MAX_WORDS: Final = 5
#: a name part that is no person's (digits, brackets, an "&")
_NOT_A_NAME: Final = re.compile(r"[\d()\[\]{}&@/]")


def _name_part(part: str) -> bool:
    words = part.split()
    return 0 < len(words) <= _MAX_WORDS and _NOT_A_NAME.search(part) is None


def author_name(name: str) -> str:
    """``"Vega, Aurelio"`` → ``"Aurelio Vega"``; ``"King, Martin L., Jr."`` → ``"Martin L.
    King Jr."``; any other name (``"Vega A"``, ``"Aurelio Vega"``, an institution) as it is,
    its spaces tidied."""
    text = " ".join(name.split())
    parts = [p.strip() for p in text.split(",")]
    suffix = ""
    if len(parts) == 3 and _SUFFIX.fullmatch(parts[2]):
        suffix = " " + parts.pop()
    if len(parts) != 2 or not all(_name_part(p) for p in parts):
        return text
    family, given = parts
    return f"{given} {family}{suffix}"


def authors_line(authors: Sequence[str] | None, limit: int | None = None) -> str:
    """The byline of ``authors`` (the first ``limit``, then "and N more"): each name
    :func:`author_name`, joined with ", " — or with "; " when a name keeps a comma."""
    names = [n for a in (authors or ()) if (n := author_name(str(a)))]
    shown = names if limit is None else names[: max(limit, 0)]
    sep = "; " if any("," in n for n in shown) else ", "
    line = sep.join(shown)
    if len(names) > len(shown):
        line += f" and {len(names) - len(shown)} more"
    return line
