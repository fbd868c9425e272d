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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from litdesk.core.records import Paper

if TYPE_CHECKING:  # numpy is imported by the grouping itself (not by identity_keys' users)
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "DEDUPLICATION_VERSION",
    "NAMESPACES",
    "NAMESPACE_LABELS",
    "Conflict",
    "ConflictKind",
    "Group",
    "component_labels",
    "group_identities",
    "group_keys",
    "identity_keys",
]

DEDUPLICATION_VERSION: Final = "validated-identifiers-v1"
#: Namespaces in the order conflicts are split by.
NAMESPACES: Final = ("doi", "pmid", "pmcid", "openalex", "arxiv")
NAMESPACE_LABELS: Final = {
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


#: ``values`` — one namespace holds several values among linked records (kept apart);
#: ``self`` — one record names several values itself; ``shared`` — records share an
#: identifier although their titles, pages or authors clearly disagree (deduplication of
#: imported records: a supplement's or a book's DOI; never an automatic merge).
ConflictKind = Literal["values", "self", "shared"]


@dataclass(frozen=True, slots=True)
class Conflict:
    """One identifier conflict, as the identity graph and deduplication both report it.

    ``members`` are input indices of the records concerned, ``values`` the identifier
    values at stake in ``namespace``; ``evidence`` says what disagrees (JSON-ready) and
    ``message`` is the sentence shown to people (also kept in :attr:`Group.conflicts`).
    """

    kind: ConflictKind
    namespace: str
    values: tuple[str, ...]
    members: tuple[int, ...]
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "namespace": self.namespace,
            "values": list(self.values),
            "members": list(self.members),
            "message": self.message,
            "evidence": self.evidence,
        }


@dataclass(frozen=True, slots=True)
class Group:
    """Indices (into the input) of the records judged to be one paper, with flags.

    ``conflicts`` are the messages (what runs store and faces show); ``details`` the
    same conflicts in their structured shape (:class:`Conflict`).
    """

    members: tuple[int, ...]
    conflicts: tuple[str, ...] = ()
    details: tuple[Conflict, ...] = ()


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
        shown = tuple(sorted(values))
        if own and len(component) == 1:
            text = (
                f"This record names {len(values)} {NAMESPACE_LABELS[ns]} values itself; "
                "it is kept as one record and flagged."
            )
            only = Conflict("self", ns, shown, (component[0],), text)
            return [Group((component[0],), (text,), (only,))]
        message = (
            f"Conflicting {NAMESPACE_LABELS[ns]} values ({', '.join(shown[:4])}) among "
            "records linked by other identifiers. Records are kept separate."
        )
        conflict = Conflict("values", ns, shown, tuple(sorted(component)), message)
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
            text = f"This record names several {NAMESPACE_LABELS[ns]} values itself."
            mine_values = tuple(sorted(keys[idx].get(ns, set())))
            out.append(
                Group(
                    (idx,),
                    (message, text),
                    (conflict, Conflict("self", ns, mine_values, (idx,), text)),
                )
            )
        parts = [sorted(g) for g in groups]
        if leftovers:
            parts.extend(_components(leftovers, keys, frozenset()))
        for part in parts:
            for sub_component in _components(part, keys, frozenset()):
                for sub in _split(sorted(sub_component), keys, depth + 1):
                    out.append(
                        Group(sub.members, (message, *sub.conflicts), (conflict, *sub.details))
                    )
        return out
    return [Group(tuple(component))]


def component_labels(
    n_records: int, record_index: npt.NDArray[np.int64], key_index: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Connected components of the record–key incidence (vectorised).

    ``record_index[i]`` has key ``key_index[i]``; two records are connected when they
    share a key, transitively. Returns each record's label: the smallest record index in
    its component. Min-label propagation through the keys with pointer jumping; each
    round at least halves the distance to the root, so a handful of rounds suffice.
    """
    import numpy as np

    labels = np.arange(n_records, dtype=np.int64)
    if record_index.size == 0:
        return labels
    n_keys = int(key_index.max()) + 1
    sentinel = np.int64(n_records)
    while True:
        key_min = np.full(n_keys, sentinel, dtype=np.int64)
        np.minimum.at(key_min, key_index, labels[record_index])
        new = labels.copy()
        np.minimum.at(new, record_index, key_min[key_index])
        # pointer jumping: follow labels to their own labels until stable
        while True:
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, labels):
            return labels
        labels = new


def group_keys(keys: Sequence[dict[str, set[str]]]) -> list[Group]:
    """Group records given as identifier keys by namespace; split and flag conflicts.

    Every input index appears in exactly one group; groups are ordered by their first
    member and members ascend, so the partition depends only on the records.
    """
    n = len(keys)
    if n == 0:
        return []
    ns_code = {ns: i for i, ns in enumerate(NAMESPACES)}
    other = len(NAMESPACES)
    rec: list[int] = []
    flat: list[tuple[str, str]] = []
    for idx, by_ns in enumerate(keys):
        for ns, values in by_ns.items():
            for value in values:
                rec.append(idx)
                flat.append((ns, value))
    key_ids: dict[tuple[str, str], int] = {}
    kid = [key_ids.setdefault(k, len(key_ids)) for k in flat]
    key_ns = [ns_code.get(ns, other) for ns, _ in key_ids]
    import numpy as np

    rec_a = np.asarray(rec, dtype=np.int64)
    kid_a = np.asarray(kid, dtype=np.int64)
    labels = component_labels(n, rec_a, kid_a)
    conflicted = _conflicted_labels(labels, rec_a, kid_a, np.asarray(key_ns, dtype=np.int64))
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    bounds = np.flatnonzero(np.diff(sorted_labels)) + 1
    starts = np.concatenate(([0], bounds)).tolist()
    ends = np.concatenate((bounds, [n])).tolist()
    members_all = order.tolist()
    firsts = sorted_labels[np.asarray(starts, dtype=np.int64)].tolist()
    out: list[Group] = []
    for first, a, b in zip(firsts, starts, ends, strict=True):
        if first in conflicted:
            for g in _split(members_all[a:b], keys):
                out.append(
                    Group(tuple(sorted(g.members)), _dedupe(g.conflicts), _dedupe(g.details))
                )
        else:
            out.append(Group(tuple(members_all[a:b])))
    if conflicted:
        out.sort(key=lambda g: g.members[0])
    return out


def _conflicted_labels(
    labels: npt.NDArray[np.int64],
    rec: npt.NDArray[np.int64],
    kid: npt.NDArray[np.int64],
    key_ns: npt.NDArray[np.int64],
) -> set[int]:
    """Component labels in which some namespace holds two or more distinct values."""
    if rec.size == 0:
        return set()
    import numpy as np

    ns = key_ns[kid]
    keep = ns < len(NAMESPACES)
    comp = labels[rec][keep]
    ns = ns[keep]
    k = kid[keep]
    if k.size == 0:
        return set()
    # distinct (component, namespace, key) triples, then count keys per (component, ns)
    idx = np.lexsort((k, ns, comp))
    comp, ns, k = comp[idx], ns[idx], k[idx]
    new_triple = np.ones(k.size, dtype=bool)
    new_triple[1:] = (comp[1:] != comp[:-1]) | (ns[1:] != ns[:-1]) | (k[1:] != k[:-1])
    comp, ns = comp[new_triple], ns[new_triple]
    same_pair = (comp[1:] == comp[:-1]) & (ns[1:] == ns[:-1])
    return set(np.unique(comp[1:][same_pair]).tolist())


def group_identities(papers: Iterable[Paper]) -> list[Group]:
    """Group papers that share any identifier; split and flag conflicts (see :func:`group_keys`)."""
    return group_keys([identity_keys(p) for p in papers])


_T = TypeVar("_T")


def _dedupe(items: tuple[_T, ...]) -> tuple[_T, ...]:
    out: list[_T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return tuple(out)
