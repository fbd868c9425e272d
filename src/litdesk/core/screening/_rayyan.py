"""Rayyan's screening notes, and its RIS export's records (issue 28).

Rayyan writes each record's screening into the record's notes — the ``notes`` column of its
CSV export, ``N1`` of its RIS export — as sections ``KEY: value`` joined by `` | ``::

    RAYYAN-INCLUSION: {"Kofi"=>"Included", "Ama"=>"Maybe"} | RAYYAN-LABELS: ML,Hospital |
    RAYYAN-EXCLUSION-REASONS: wrong population,foreign language |
    USER-NOTES: {"Kofi"=>["check the dose"]}

``RAYYAN-INCLUSION`` maps each reviewer to ``Included``, ``Excluded`` or ``Maybe`` (a Ruby
hash: quoted strings, ``\\"`` inside a name); labels and exclusion reasons are the record's
(comma-separated); ``USER-NOTES`` maps each reviewer to their notes. Other text (a
database's own note before the sections) is left alone.

:func:`parse_rayyan_notes` reads one notes text; a malformed section (a map not closed, a
name without its ``=>``) is a :class:`RayyanNotesError` naming what is wrong, so that the
caller reports that record and keeps the others; a reviewer's verdict that is not one of
Rayyan's is listed in ``unreadable``, the other reviewers' verdicts of the record kept. :func:`rayyan_ris_records` splits a RIS text into records (tag lines,
untagged continuation lines as Rayyan writes long fields). Both take time linear in the
text: one forward scan, strings read with ``str.find`` bounded by the closing quote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ._decisions import Verdict
from ._errors import DecisionsFileError

__all__ = [
    "RAYYAN_VERDICTS",
    "RayyanNotes",
    "RayyanNotesError",
    "parse_rayyan_notes",
    "rayyan_ris_records",
]

#: Rayyan's words for a reviewer's decision
RAYYAN_VERDICTS: dict[str, Verdict] = {
    "included": "include",
    "excluded": "exclude",
    "maybe": "maybe",
}
#: the sections of a notes text (a literal alternation: linear)
_SECTION = re.compile(r"(RAYYAN-INCLUSION|RAYYAN-LABELS|RAYYAN-EXCLUSION-REASONS|USER-NOTES):")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_EXR = "__EXR__"  # the prefix Rayyan's own API gives exclusion reasons


class RayyanNotesError(DecisionsFileError):
    """A record's Rayyan notes cannot be read: a map not closed or without its quotes,
    ``=>`` or commas, a reviewer given two different decisions."""

    default_code = "bad_rayyan_notes"


@dataclass(frozen=True, slots=True)
class RayyanNotes:
    """What one record's notes say: each reviewer's verdict (file order), the record's
    labels and exclusion reasons, each reviewer's own notes."""

    inclusion: tuple[tuple[str, Verdict], ...] = ()
    labels: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    user_notes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: reviewers whose decision is not one of Rayyan's words, with why (the caller reports
    #: them beside the other reviewers' decisions of the record, which stand)
    unreadable: tuple[tuple[str, str], ...] = ()

    def notes_of(self, reviewer: str) -> tuple[str, ...]:
        return self.user_notes.get(reviewer, ())


def _string(text: str, pos: int, what: str) -> tuple[str, int]:
    """The quoted string at ``pos`` (after its opening quote's position) and the position
    after its closing quote; backslash escapes as Ruby writes them."""
    if pos >= len(text) or text[pos] != '"':
        raise RayyanNotesError(f"{what} is not in double quotes", code="bad_rayyan_notes")
    parts: list[str] = []
    i = pos + 1
    quote = text.find('"', i)
    while True:
        if quote < 0:
            raise RayyanNotesError(f"{what} has no closing quote", code="bad_rayyan_notes")
        slash = text.find("\\", i, quote)
        if slash < 0:
            parts.append(text[i:quote])
            return "".join(parts), quote + 1
        parts.append(text[i:slash])
        if slash + 1 >= len(text):
            raise RayyanNotesError(f"{what} has no closing quote", code="bad_rayyan_notes")
        escaped = text[slash + 1]
        parts.append(_ESCAPES.get(escaped, escaped))
        i = slash + 2
        if i > quote:  # the escape took the quote found: find the next one
            quote = text.find('"', i)


def _skip(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _map(
    text: str, pos: int, section: str, *, lists: bool
) -> tuple[list[tuple[str, tuple[str, ...]]], int]:
    """A Ruby hash ``{"k"=>"v", …}`` (``lists``: values ``["a", "b"]`` or strings) from
    ``pos``: its pairs in order and the position after its ``}``."""
    pos = _skip(text, pos)
    if pos >= len(text) or text[pos] != "{":
        raise RayyanNotesError(f"{section} is not a {{…}} map", code="bad_rayyan_notes")
    pairs: list[tuple[str, tuple[str, ...]]] = []
    pos = _skip(text, pos + 1)
    if pos < len(text) and text[pos] == "}":
        return pairs, pos + 1
    while True:
        key, pos = _string(text, _skip(text, pos), f"a reviewer's name in {section}")
        pos = _skip(text, pos)
        if not text.startswith("=>", pos):
            raise RayyanNotesError(
                f"{section}: {key[:60]!r} is not followed by =>", code="bad_rayyan_notes"
            )
        pos = _skip(text, pos + 2)
        what = f"{section}'s value for {key[:60]!r}"
        if lists and pos < len(text) and text[pos] == "[":
            values: list[str] = []
            pos = _skip(text, pos + 1)
            if pos < len(text) and text[pos] == "]":
                pos += 1
            else:
                while True:
                    value, pos = _string(text, pos, what)
                    values.append(value)
                    pos = _skip(text, pos)
                    if pos < len(text) and text[pos] == ",":
                        pos = _skip(text, pos + 1)
                        continue
                    if pos < len(text) and text[pos] == "]":
                        pos += 1
                        break
                    raise RayyanNotesError(f"{what} is a list not closed by ]",
                                           code="bad_rayyan_notes")  # fmt: skip
            pairs.append((key, tuple(values)))
        else:
            value, pos = _string(text, pos, what)
            pairs.append((key, (value,)))
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1
            continue
        if pos < len(text) and text[pos] == "}":
            return pairs, pos + 1
        raise RayyanNotesError(f"{section} is a map not closed by }}", code="bad_rayyan_notes")


def _listed(value: str) -> tuple[str, ...]:
    """A comma-separated section's items (each trimmed; Rayyan's ``__EXR__`` prefix off)."""
    items = (" ".join(v.split()).removeprefix(_EXR).strip() for v in value.split(","))
    return tuple(dict.fromkeys(v for v in items if v))


def parse_rayyan_notes(text: str) -> RayyanNotes:
    """The Rayyan sections of one record's notes (empty when it has none)."""
    inclusion: dict[str, Verdict] = {}
    names: dict[str, str] = {}  # casefolded → as first written
    labels: list[str] = []
    reasons: list[str] = []
    user_notes: dict[str, tuple[str, ...]] = {}
    unreadable: list[tuple[str, str]] = []
    pos = 0
    found = _SECTION.search(text, pos)
    while found is not None:
        section, start = found.group(1), found.end()
        if section in ("RAYYAN-INCLUSION", "USER-NOTES"):
            pairs, pos = _map(text, start, section, lists=section == "USER-NOTES")
            for key, values in pairs:
                name = " ".join(key.split())
                if not name:
                    raise RayyanNotesError(f"{section} has an empty reviewer name",
                                           code="bad_rayyan_notes")  # fmt: skip
                name = names.setdefault(name.casefold(), name)
                if section == "USER-NOTES":
                    user_notes[name] = user_notes.get(name, ()) + values
                    continue
                verdict = RAYYAN_VERDICTS.get(values[0].strip().casefold())
                if verdict is None:  # this reviewer's only: the others' decisions stand
                    unreadable.append(
                        (
                            name,
                            f"reviewer {name[:60]}: decision {values[0][:40]!r} is not "
                            "Included, Excluded or Maybe",
                        )
                    )
                    continue
                if inclusion.setdefault(name, verdict) != verdict:
                    raise RayyanNotesError(
                        f"reviewer {name[:60]} has two different decisions",
                        code="bad_rayyan_notes",
                    )
            found = _SECTION.search(text, pos)
            continue
        found = _SECTION.search(text, start)
        value = text[start : found.start() if found is not None else len(text)]
        value = value.strip().removesuffix("|")
        (labels if section == "RAYYAN-LABELS" else reasons).extend(_listed(value))
    return RayyanNotes(
        tuple(inclusion.items()),
        tuple(dict.fromkeys(labels)),
        tuple(dict.fromkeys(reasons)),
        user_notes,
        tuple(unreadable),
    )


def rayyan_ris_records(text: str) -> Iterator[tuple[int, dict[str, list[str]]]]:
    """Each record of a RIS text: the line of its first tag and its tags' values in order
    (an untagged line continues the value before it: a new value for ``KW``, the same value
    on a new line for the others). A record ends at ``ER``; one left open at the end of the
    text is a record too."""
    record: dict[str, list[str]] = {}
    start = 0
    last = ""
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        tag = line[:2]
        if (
            len(line) >= 5
            and tag.isascii()
            and tag[0].isupper()
            and (tag[1].isupper() or tag[1].isdigit())
            and line[2:5] == "  -"
        ):
            value = line[6:] if line[5:6] == " " else line[5:]
            if tag == "ER":
                if record:
                    yield start, record
                record, last = {}, ""
                continue
            if not record:
                start = number
            record.setdefault(tag, []).append(value.strip())
            last = tag
        elif line.strip() and last:
            values = record[last]
            if last == "KW":
                values.append(line.strip())
            else:
                values[-1] = f"{values[-1]}\n{line.strip()}"
    if record:
        yield start, record
