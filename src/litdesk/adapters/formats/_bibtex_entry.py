"""BibTeX entries as read, their expansion limits and crossref inheritance.

The scanner (``_bibtex``) reads raw entries; this module holds the entry shape, the limits
of expansion (``@string`` macros and crossref inheritance: depth, value size and a per-file
budget) and the resolution of crossref chains, refusing a file whose expansion is over a
limit with an error naming the entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from litdesk.core.imports import ImportRefused, Notice

__all__ = [
    "MAX_CROSSREF_DEPTH",
    "MAX_EXPANDED_CHARS",
    "MAX_EXPANDED_VALUE",
    "MAX_MACRO_DEPTH",
    "Entry",
    "resolve_crossrefs",
    "too_much",
]

#: Fields never inherited through crossref as themselves (biblatex rules).
_NOT_INHERITED: Final = frozenset(
    ["title", "subtitle", "shorttitle", "titleaddon", "ids", "crossref", "key"]
)
_BOOKISH: Final = frozenset(
    [
        "proceedings",
        "book",
        "collection",
        "mvbook",
        "mvproceedings",
        "mvcollection",
        "reference",
        "periodical",
    ]
)
#: Longest crossref chain followed (an entry, its parent, the parent's parent, …).
MAX_CROSSREF_DEPTH: Final = 32
#: Deepest chain of @string macros built from macros (``s1 = s0 # s0``, ``s2 = s1 # s1``, …).
MAX_MACRO_DEPTH: Final = 16
#: Longest value that macro expansion may build (characters).
MAX_EXPANDED_VALUE: Final = 1024 * 1024
#: Characters that macro expansion and crossref inheritance may add in one file, in all.
MAX_EXPANDED_CHARS: Final = 64 * 1024 * 1024


def too_much(what: str, where: str, limit: str, code: str = "too_large") -> ImportRefused:
    """The refusal of an expansion over ``limit`` in ``where`` (an @string or an entry)."""
    return ImportRefused(
        f"BibTeX expansion over its limit in {where}: {what} (limit {limit}); "
        "nothing is imported from the file",
        code=code,
        entry=where[:200],
    )


@dataclass(slots=True)
class Entry:
    etype: str
    key: str | None
    start: int
    end: int
    first_line: int
    last_line: int
    fields: dict[str, str] = field(default_factory=dict)
    extras: dict[str, list[str]] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)


# -- crossref -------------------------------------------------------------------
def resolve_crossrefs(entries: list[Entry], budget: list[int]) -> None:
    """Inherit every crossref; ``budget`` holds the characters expansion may still add."""
    by_key: dict[str, Entry] = {}
    for e in entries:
        if e.key is not None:
            by_key.setdefault(e.key.lower(), e)
    done: set[int] = set()
    for e in entries:
        if "crossref" in e.fields:
            _resolve(e, [(e.key or "").lower()], by_key, (done, budget))


def _resolve(
    e: Entry,
    chain: list[str],
    by_key: dict[str, Entry],
    state: tuple[set[int], list[int]],
) -> None:
    """Inherit ``e``'s crossref parent's fields (the parent's own first).

    A module function, not a closure: a recursive closure refers to itself, a reference
    cycle that kept ``by_key`` (every entry) alive until the cyclic collector ran — never
    while the CLI pauses it. A chain longer than :data:`MAX_CROSSREF_DEPTH`, or
    inheritance beyond the file's expansion budget, refuses the file naming the entry.
    """
    done, budget = state
    if id(e) in done:
        return
    ref = e.fields.get("crossref")
    if ref is None:
        done.add(id(e))
        return
    target = ref.strip().strip("{}").strip().lower()
    parent = by_key.get(target)
    if parent is None:
        e.notices.append(
            Notice(
                "inherited",
                f"crossref {ref[:60]!r} names no entry in this file",
                line=e.first_line,
                field="crossref",
            )
        )
        done.add(id(e))
        return
    where = f"entry {(e.key or '')[:60]!r} on line {e.first_line}"
    if target not in chain and len(chain) > MAX_CROSSREF_DEPTH:
        raise too_much(
            f"its crossref chain is over {MAX_CROSSREF_DEPTH} entries long",
            where,
            f"{MAX_CROSSREF_DEPTH} deep",
            "too_deep",
        )
    if target in chain:
        e.notices.append(
            Notice(
                "inherited",
                "crossref cycle: " + " -> ".join([*chain, target])[:200] + "; not followed",
                line=e.first_line,
                field="crossref",
            )
        )
        done.add(id(e))
        return
    done.add(id(e))  # mark before recursing so a cycle stops here
    _resolve(parent, [*chain, target], by_key, state)
    got: list[str] = []
    for name, value in parent.fields.items():
        if name in _NOT_INHERITED or name in e.fields:
            continue
        budget[0] -= len(value)
        if budget[0] < 0:
            raise too_much(
                f"crossref inheritance adds over {MAX_EXPANDED_CHARS:,} characters",
                where,
                f"{MAX_EXPANDED_CHARS:,} characters per file",
            )
        e.fields[name] = value
        got.append(name)
    if parent.etype in _BOOKISH:
        for src, dst in (("title", "booktitle"), ("subtitle", "booksubtitle")):
            if src in parent.fields and dst not in e.fields:
                e.fields[dst] = parent.fields[src]
                got.append(dst)
    if got:
        e.notices.append(
            Notice(
                "inherited",
                f"inherited from {parent.key!r}: " + ", ".join(sorted(got)),
                line=e.first_line,
                field="crossref",
            )
        )
