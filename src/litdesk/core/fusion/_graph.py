"""The identity graph: which sightings are the same paper (pure).

Union-find over normalised identifiers (DOI, PMID, PMCID, OpenAlex, arXiv) plus the
primary id. Titles, years and authors never create an edge, so a preprint and its
published version stay apart unless an identifier links them. A component in which a
namespace holds two values is a conflict: it is split recursively by the first
contradictory namespace and every resulting group is flagged. A record whose own
identifiers contradict each other (its primary id names another PMID than its ``pmid``
field) cannot be split and is flagged too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from litdesk.core.records import Paper

__all__ = [
    "DEDUPLICATION_VERSION",
    "NAMESPACES",
    "Group",
    "group_identities",
    "identity_keys",
]

DEDUPLICATION_VERSION: Final = "validated-identifiers-v1"
#: Namespaces in the order conflicts are split by.
NAMESPACES: Final = ("doi", "pmid", "pmcid", "openalex", "arxiv")
_LABEL: Final = {
    "doi": "DOI",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "openalex": "OpenAlex id",
    "arxiv": "arXiv id",
}


def identity_keys(paper: Paper) -> dict[str, set[str]]:
    """The paper's identifier values by namespace, the primary id contributing too.

    Normally each namespace has at most one value; two values mean the record
    contradicts itself.
    """
    keys: dict[str, set[str]] = {}

    def add(ns: str, value: str | None) -> None:
        if value:
            keys.setdefault(ns, set()).add(value)

    add("doi", paper.doi)
    add("pmid", paper.pmid)
    add("pmcid", paper.pmcid)
    add("openalex", paper.openalex_id)
    add("arxiv", paper.arxiv_id)
    source, _, acc = paper.id.partition("-")
    if source == "MED":
        add("pmid", acc)
    elif source == "PMC":
        add("pmcid", acc)
    elif source == "OAX":
        add("openalex", acc)
    add("record", paper.id)
    return keys


@dataclass(frozen=True, slots=True)
class Group:
    """Indices (into the input) of the records judged to be one paper, with flags."""

    members: tuple[int, ...]
    conflicts: tuple[str, ...] = ()


class _UnionFind:
    __slots__ = ("parent",)

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        parent = self.parent
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # the smaller index becomes the root: deterministic whatever the order
            if ra < rb:
                self.parent[rb] = ra
            else:
                self.parent[ra] = rb


def _components(
    members: Sequence[int], keys: Sequence[dict[str, set[str]]], skip: frozenset[str]
) -> list[list[int]]:
    uf = _UnionFind(len(members))
    first: dict[tuple[str, str], int] = {}
    for local, idx in enumerate(members):
        for ns, values in keys[idx].items():
            if ns in skip:
                continue
            for value in values:
                seen = first.setdefault((ns, value), local)
                if seen != local:
                    uf.union(seen, local)
    comps: dict[int, list[int]] = {}
    for local, idx in enumerate(members):
        comps.setdefault(uf.find(local), []).append(idx)
    return list(comps.values())


def _split(
    component: list[int], keys: Sequence[dict[str, set[str]]], depth: int = 0
) -> list[Group]:
    """Split a component until no namespace holds two values (except within one record)."""
    for ns in NAMESPACES:
        values: set[str] = set()
        for idx in component:
            values |= keys[idx].get(ns, set())
        if len(values) <= 1:
            continue
        # self-contradicting records cannot be split: flag them and keep them alone
        own = [idx for idx in component if len(keys[idx].get(ns, ())) > 1]
        if own and len(component) == 1:
            return [
                Group(
                    (component[0],),
                    (
                        f"This record names {len(values)} {_LABEL[ns]} values itself; "
                        "it is kept as one record and flagged.",
                    ),
                )
            ]
        message = (
            f"Conflicting {_LABEL[ns]} values ({', '.join(sorted(values)[:4])}) among "
            "records linked by other identifiers. Records are kept separate."
        )
        by_value: dict[str, list[int]] = {}
        loose: list[int] = []
        selfish: list[int] = []
        for idx in component:
            mine = keys[idx].get(ns, set())
            if len(mine) > 1:
                selfish.append(idx)
            elif mine:
                by_value.setdefault(next(iter(mine)), []).append(idx)
            else:
                loose.append(idx)
        # a record without this namespace joins a value group only when every
        # other identifier it has points into that one group alone
        groups = [sorted(g) for _, g in sorted(by_value.items())]
        where: dict[tuple[str, str], set[int]] = {}
        for gi, g in enumerate(groups):
            for idx in g:
                for kns, kvals in keys[idx].items():
                    for v in kvals:
                        where.setdefault((kns, v), set()).add(gi)
        leftovers: list[int] = []
        for idx in loose:
            targets: set[int] = set()
            for kns, kvals in keys[idx].items():
                for v in kvals:
                    targets |= where.get((kns, v), set())
            if len(targets) == 1:
                groups[next(iter(targets))].append(idx)
            else:
                leftovers.append(idx)
        out: list[Group] = []
        for idx in selfish:
            out.append(
                Group(
                    (idx,),
                    (message, f"This record names several {_LABEL[ns]} values itself."),
                )
            )
        parts = [sorted(g) for g in groups]
        if leftovers:
            parts.extend(_components(leftovers, keys, frozenset()))
        for part in parts:
            for sub_component in _components(part, keys, frozenset()):
                for sub in _split(sorted(sub_component), keys, depth + 1):
                    out.append(Group(sub.members, (message, *sub.conflicts)))
        return out
    return [Group(tuple(component))]


def group_identities(papers: Iterable[Paper]) -> list[Group]:
    """Group records that share any identifier; split and flag conflicts.

    Every input index appears in exactly one group. Groups and their members are in
    ascending index order of their first member, so the result does not depend on
    anything but the records (and their order only through the indices returned).
    """
    keys = [identity_keys(p) for p in papers]
    out: list[Group] = []
    for component in _components(list(range(len(keys))), keys, frozenset()):
        out.extend(_split(sorted(component), keys))
    out = [Group(tuple(sorted(g.members)), _dedupe(g.conflicts)) for g in out]
    out.sort(key=lambda g: g.members[0])
    return out


def _dedupe(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
